#include "model/diagnostics.h"

#include <fmt/format.h>

namespace planter {

std::string Diagnostic::str() const {
  std::string out;
  if (!source.empty()) out += source + ": ";
  if (!object.empty()) out += object + ": ";
  out += message;
  if (!hint.empty()) out += "\n  hint: " + hint;
  return out;
}

std::string Diagnostics::str() const {
  std::string out;
  for (const auto& d : items_) out += "error: " + d.str() + "\n";
  out += fmt::format("{} error{} in the seed\n", items_.size(), items_.size() == 1 ? "" : "s");
  return out;
}

}  // namespace planter
