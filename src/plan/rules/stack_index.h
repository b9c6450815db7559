// The index the stack rules share (rules/stack_fits.cpp, anchor.cpp, pod_group.cpp,
// scheduler_ready.cpp), prepared once per plan by prepare_stack_index (stack_index.cpp).
#pragma once

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "plan/rules.h"

namespace planter {

// What the stack rules (rules/stack_fits.cpp, anchor.cpp, pod_group.cpp, scheduler_ready.cpp)
// read: each object's stack, and each stack's anchor and PodGroup units per cluster.
struct StackIndex {
  struct Membership {
    size_t stack = 0;
    bool makes_pods = false;
  };
  std::vector<std::optional<Membership>> member;                // by object
  std::vector<std::map<uint32_t, size_t>> anchor_on, group_on;  // stack -> cluster -> unit

  // The unit on the member's cluster of what leads a co-scheduled stack (`on`: its anchor_on or
  // group_on entry); none when the member is planted where that is not, which is reported at
  // the member (`what`: "anchor", "PodGroup").
  std::optional<size_t> lead_unit(const RuleContext& ctx, const Unit& unit, size_t stack,
                                  const std::map<uint32_t, size_t>& on,
                                  std::string_view what) const;

  static StackIndex build(const std::vector<StackNeeds>& stacks, size_t objects,
                          const std::vector<Unit>& units);
};

}  // namespace planter
