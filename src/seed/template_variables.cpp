#include "seed/template_variables.h"

#include <fmt/format.h>

#include <cctype>

namespace planter {

bool has_template_variable(std::string_view s) {
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] != '$') continue;
    char c = s[i + 1];
    if (c == '{' || c == '_' || std::isalpha(static_cast<unsigned char>(c))) return true;
  }
  return false;
}

void report_template_variable(const Object& o, std::string_view field, std::string_view value,
                              Diagnostics& diags) {
  diags.add(o.where(), o.display(),
            fmt::format("{} \"{}\" holds an unsubstituted template variable", field, value),
            "render the template first (for example with envsubst or clusterctl generate)");
}

}  // namespace planter
