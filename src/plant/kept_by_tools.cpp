#include "plant/kept_by_tools.h"

#include <fmt/format.h>

#include "model/object.h"
#include "model/strings.h"

namespace planter::plant {

namespace {

constexpr std::string_view kHelmPolicy = "helm.sh/resource-policy";
constexpr std::string_view kArgoSyncOptions = "argocd.argoproj.io/sync-options";
constexpr std::string_view kKappDeleteStrategy = "kapp.k14s.io/delete-strategy";

std::string annotation(const boost::json::object& live, std::string_view key) {
  return string_field(live, {"metadata", "annotations", std::string(key)});
}

}  // namespace

std::optional<std::string> kept_by_tools(const boost::json::object& live, Removal removal,
                                         const Conventions& conventions) {
  if (conventions.helm && annotation(live, kHelmPolicy) == "keep")
    return fmt::format("{}: keep: left alone, as helm uninstall does", kHelmPolicy);
  if (conventions.argocd) {
    // A comma-separated list of Option=value, as Argo CD reads it.
    std::string_view wanted = removal == Removal::kPrune ? "Prune=false" : "Delete=false";
    // Kept in a variable: split's views point into it (a temporary in the range would be gone).
    std::string options = annotation(live, kArgoSyncOptions);
    for (std::string_view option : split(options, ','))
      if (trim(option) == wanted)
        return fmt::format("{}: {}: left alone, as Argo CD's {} does", kArgoSyncOptions, wanted,
                           removal == Removal::kPrune ? "prune" : "app deletion");
  }
  if (conventions.kapp && annotation(live, kKappDeleteStrategy) == "orphan")
    return fmt::format("{}: orphan: left alone, as kapp does", kKappDeleteStrategy);
  return std::nullopt;
}

}  // namespace planter::plant
