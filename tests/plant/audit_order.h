// Test support for the engine: the sim's audit log as the oracle. Reads the plan (`planter plan
// -o json`) and the audit log and checks the engine's invariant, "no unit was written before
// every requirement in its plan had held", by position in the log (the sim writes it from one
// thread, in order).
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace planter::testing {

struct AuditEntry {
  size_t index = 0;
  std::string cluster;  // "management", "edge1"
  std::string verb;     // create, patch, update, delete, ...; empty for ready events
  std::string what;     // ready events: established, active, available, endpoints-ready, ...
  std::string object;   // the version-free key "group|Kind|ns|name"
  std::string user;
};

std::vector<AuditEntry> parse_audit(const std::vector<std::string>& lines);

// "apps/v1|Deployment|ns|name" (the proof-of-concept id) -> "apps|Deployment|ns|name".
std::string key_of_id(const std::string& id);

struct OrderCheck {
  size_t units_written = 0;  // units of the plan found written by planter
  size_t requirements_checked = 0;
  std::vector<std::string> violations;  // one line per requirement that had not held
};

// `plan` is `planter plan -o json`. Writes are the ones made by `writer` (the user planter
// authenticates as, or several separated by commas: the operator writes as a Seed's service
// account on the management cluster and with the workload clusters' own credentials there).
OrderCheck check_plant_order(const boost::json::object& plan, const std::vector<AuditEntry>& audit,
                             const std::string& writer = "admin");

// For uproot: every deleted unit was deleted after every unit that requires it.
OrderCheck check_uproot_order(const boost::json::object& plan, const std::vector<AuditEntry>& audit,
                              const std::string& writer = "admin");

}  // namespace planter::testing
