// Helpers shared by the unit tests: plan a seed given as text, find units and requirements.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "plan/planner.h"
#include "sanitized.h"
#include "seed/seed.h"

namespace planter::testing {

inline PlanOutcome plan_yaml(const std::string& yaml, PlanOptions options = {}) {
  Seed seed;
  Diagnostics load;
  parse_seed_text(yaml, "seed.yaml", seed, load);
  if (!load.empty()) {
    PlanOutcome out;
    out.diags = load;
    return out;
  }
  return plan_seed(std::move(seed), options);
}

// The unit of the object with this short form ("Deployment/cnf/cnf") on `cluster`, or nullptr.
inline const Unit* find_unit(const Plan& plan, const std::string& short_form,
                             const std::string& cluster = "SELF") {
  for (const Unit& u : plan.units)
    if (u.cluster == cluster && plan.object_of(u).ref.short_form() == short_form) return &u;
  return nullptr;
}

// The requirement of `u` on the object with this short form, or nullptr.
inline const Requirement* find_requirement(const Plan& plan, const Unit& u,
                                           const std::string& short_form) {
  for (const Requirement& r : u.requirements) {
    const ObjectRef& t = plan.target(r);
    if (t.short_form() == short_form || (t.name.empty() && t.kind + "/" == short_form)) return &r;
  }
  return nullptr;
}

// This process's peak resident memory (VmHWM), in KiB.
inline long peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.starts_with("VmHWM:")) return std::stol(line.substr(6));
  return 0;
}

// Resets the peak to what is resident now (proc(5): clear_refs "5") and returns it: what a piece
// of work then adds to the peak is what it took.
inline long peak_rss_reset_kib() {
  std::ofstream("/proc/self/clear_refs") << "5";
  return peak_rss_kib();
}

inline std::string all_errors(const Diagnostics& d) {
  std::string s;
  for (const auto& i : d.items()) s += i.str() + "\n";
  return s;
}

}  // namespace planter::testing
