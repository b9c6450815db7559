// The words for what happened to units (engine.h): their states and what their applies did.
#include "plant/engine.h"

namespace planter::plant {

std::string_view to_string(UnitState s) {
  switch (s) {
    case UnitState::kPending:
      return "pending";
    case UnitState::kDeclaring:
      return "declaring";
    case UnitState::kDeclared:
      return "declared";
    case UnitState::kFailed:
      return "failed";
    case UnitState::kBlocked:
      return "blocked";
    case UnitState::kNotChosen:
      return "not-chosen";
  }
  return "pending";
}

std::string_view to_string(Applied a) {
  switch (a) {
    case Applied::kNotYet:
      return "";
    case Applied::kCreated:
      return "created";
    case Applied::kConfigured:
      return "configured";
    case Applied::kUnchanged:
      return "unchanged";
    case Applied::kApplied:
      return "serverside-applied";
    case Applied::kReplaced:
      return "replaced";
  }
  return "";
}

size_t PlantOutcome::count(UnitState s) const {
  size_t n = 0;
  for (const UnitRecord& r : units) n += r.state == s ? 1 : 0;
  return n;
}

}  // namespace planter::plant
