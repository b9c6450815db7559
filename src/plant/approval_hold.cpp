#include "plant/approval_hold.h"

#include <set>

#include "plan/rules.h"

namespace planter::plant {

namespace {

bool is_open(UnitState s) {
  return s == UnitState::kPending || s == UnitState::kDeclaring;
}

}  // namespace

ApprovalHold::ApprovalHold(const Plan& plan)
    : plan_(plan),
      waiters_(plan.units.size()),
      held_(plan.units.size(), 0),
      open_(plan.units.size(), 1),
      at_approval_(plan.units.size(), 0),
      open_count_(plan.units.size()) {
  std::vector<size_t> todo;
  for (size_t u = 0; u < plan.units.size(); ++u) {
    bool waits_for_approval = false;
    for (const Requirement& r : plan.units[u].requirements) {
      if (r.unit) waiters_[*r.unit].push_back(u);
      waits_for_approval = waits_for_approval || !approval_of(plan, r).empty();
    }
    if (!waits_for_approval) continue;
    approval_units_.push_back(u);
    held_[u] = 1;
    todo.push_back(u);
  }
  // Whoever waits for a held unit is held too.
  while (!todo.empty()) {
    size_t u = todo.back();
    todo.pop_back();
    for (size_t w : waiters_[u])
      if (!held_[w]) {
        held_[w] = 1;
        todo.push_back(w);
      }
  }
  for (size_t u = 0; u < plan.units.size(); ++u) open_free_ += held_[u] ? 0 : 1;
}

void ApprovalHold::on_change(size_t u, const UnitRecord& record) {
  if (u >= open_.size()) return;
  bool open = is_open(record.state);
  if (open != static_cast<bool>(open_[u])) {
    open ? ++open_count_ : --open_count_;
    if (!held_[u]) open ? ++open_free_ : --open_free_;
  }
  open_[u] = open ? 1 : 0;
  bool at = false;
  if (record.state == UnitState::kPending && !record.waits.empty() &&
      record.waits.back().until < 0 && record.waits.back().requirement >= 0) {
    const auto& reqs = plan_.units[u].requirements;
    auto i = static_cast<size_t>(record.waits.back().requirement);
    at = i < reqs.size() && !approval_of(plan_, reqs[i]).empty();
  }
  if (at != static_cast<bool>(at_approval_[u])) at ? ++at_approval_count_ : --at_approval_count_;
  at_approval_[u] = at ? 1 : 0;
}

bool ApprovalHold::only_approvals_left() const {
  if (at_approval_count_ == 0 || open_free_ > 0) return false;
  // Every open unit is at an approval, or waits for one that is, through open units.
  std::vector<char> stuck(open_.size(), 0);
  std::vector<size_t> todo;
  for (size_t u : approval_units_)
    if (at_approval_[u]) {
      stuck[u] = 1;
      todo.push_back(u);
    }
  size_t reached = todo.size();
  while (!todo.empty()) {
    size_t u = todo.back();
    todo.pop_back();
    for (size_t w : waiters_[u])
      if (open_[w] && !stuck[w]) {
        stuck[w] = 1;
        ++reached;
        todo.push_back(w);
      }
  }
  return reached == open_count_;
}

std::vector<std::string> ApprovalHold::waited_for() const {
  std::set<std::string> names;
  for (size_t u : approval_units_)
    if (at_approval_[u])
      for (const Requirement& r : plan_.units[u].requirements)
        if (auto name = approval_of(plan_, r); !name.empty()) names.emplace(name);
  return {names.begin(), names.end()};
}

}  // namespace planter::plant
