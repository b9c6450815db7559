// pod-group: a member of a stack co-scheduled by planter's scheduler (coschedule mode scheduler)
// waits for its PodGroup on the same cluster, so that no member's pod reaches the scheduler
// without its gang. A member planted where the PodGroup is not is an error.
#include "plan/rules/stack_index.h"

namespace planter {

void require_pod_group(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const StackIndex& stacks = ctx.family<StackIndex>();
  const auto& m = stacks.member[unit.object];
  if (!m) return;
  const StackNeeds& s = ctx.plan.stacks[m->stack];
  if (!s.pod_group) return;
  auto group = stacks.lead_unit(ctx, unit, m->stack, stacks.group_on[m->stack], "PodGroup");
  if (!group) return;
  out.push_back({*group, std::nullopt, unit.cluster,
                 ReadinessPredicate::of(ReadinessPredicate::Type::kExists), "pod-group"});
}

}  // namespace planter
