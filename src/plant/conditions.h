// What a readiness or health check answers, and the status condition most checks read; shared by
// readiness_check (the predicates) and health (Argo CD's rules), neither of which includes the
// other's header for it.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace planter::plant {

struct Readiness {
  bool holds = false;
  std::string why;     // when it does not hold: "phase is Terminating", "not found"
  bool exists = true;  // false when there was no object to look at
};

// The condition `type` of an object's status.conditions, or null.
const boost::json::object* find_condition(const boost::json::object& object, std::string_view type);

}  // namespace planter::plant
