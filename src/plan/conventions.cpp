#include "plan/conventions.h"

#include <fmt/format.h>

#include "model/strings.h"

namespace planter {

std::string_view convention_names() {
  return "kpt, helm, argocd, kapp";
}

Result<Conventions> Conventions::ignoring(const std::vector<std::string>& names) {
  Conventions c;
  for (const std::string& list : names) {
    for (std::string_view name : split_list(list)) {
      if (name == "kpt")
        c.kpt = false;
      else if (name == "helm")
        c.helm = false;
      else if (name == "argocd")
        c.argocd = false;
      else if (name == "kapp")
        c.kapp = false;
      else
        return Error{fmt::format("--ignore-annotations: unknown convention \"{}\"; one of {}", name,
                                 convention_names())};
    }
  }
  return c;
}

}  // namespace planter
