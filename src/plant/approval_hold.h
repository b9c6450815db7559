// What a roll-out's approvals hold back (planter.nephio.org/rollout `approval`), for `plant
// --no-wait-approval`: the units that wait for an approval, and every unit that waits for one of
// them, directly or through others. Fed every change of the engine's units, it says when nothing
// is left to do but wait for a person: each unit still open (pending or being declared) waits for
// an approval now, or waits, directly or through others, for a unit that does.
#pragma once

#include <string>
#include <vector>

#include "plan/plan.h"
#include "plant/engine.h"

namespace planter::plant {

class ApprovalHold {
 public:
  explicit ApprovalHold(const Plan& plan);
  // Whether the plan has an approval at all.
  bool any() const { return !approval_units_.empty(); }
  // EngineOptions::on_change's record of unit `u`.
  void on_change(size_t u, const UnitRecord& record);
  // Only approvals hold what is left.
  bool only_approvals_left() const;
  // The approvals waited for now, by name, sorted.
  std::vector<std::string> waited_for() const;

 private:
  const Plan& plan_;
  std::vector<std::vector<size_t>> waiters_;  // by unit: the units with a requirement on it
  std::vector<char> held_;                    // by unit: an approval may hold it back
  std::vector<char> open_;                    // by unit: pending or being declared
  std::vector<char> at_approval_;             // by unit: pending on one of its approvals now
  std::vector<size_t> approval_units_;        // the units that wait for an approval themselves
  size_t open_free_ = 0;                      // units no approval holds that are still open
  size_t open_count_ = 0;                     // units still open
  size_t at_approval_count_ = 0;
};

}  // namespace planter::plant
