#include "plan/plan.h"

#include <fmt/format.h>

#include <algorithm>

namespace planter {

std::string Requirement::describe() const {
  std::string what;
  if (when.type == ReadinessPredicate::Type::kClusterReady) {
    what = fmt::format("cluster {} ready", object.name);
  } else if (object.name.empty()) {
    what = fmt::format("kind {} {} {}", object.api_version, object.kind, when.str());
  } else {
    what = fmt::format("{} {}", object.short_form(), when.str());
  }
  if (external()) what += " (not in seed)";
  return what;
}

int Plan::wave_count() const {
  int waves = 0;
  for (const Unit& u : units) waves = std::max(waves, u.wave + 1);
  return waves;
}

size_t Plan::external_requirement_count() const {
  size_t n = 0;
  for (const Unit& u : units)
    for (const Requirement& r : u.requirements) n += r.external() ? 1 : 0;
  return n;
}

}  // namespace planter
