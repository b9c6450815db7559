// anchor: a member of a co-scheduled stack (coschedule mode anchor) that makes pods waits for the
// anchor's pod to be bound where the whole group fits, so that its pods follow the anchor and
// none starts on a node the anchor did not reserve (docs/coscheduling.md). Members that make no
// pods (the claims the anchor mounts, a Service) never wait for it: the anchor's pod may need
// them. A member planted where the anchor is not is an error.
#include "plan/rules/stack_index.h"

namespace planter {

void require_anchor(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const StackIndex& stacks = ctx.family<StackIndex>();
  const auto& m = stacks.member[unit.object];
  if (!m || !m->makes_pods) return;
  const StackNeeds& s = ctx.plan.stacks[m->stack];
  if (!s.anchor || unit.object == *s.anchor) return;
  auto anchor = stacks.lead_unit(ctx, unit, m->stack, stacks.anchor_on[m->stack], "anchor");
  if (!anchor) return;
  out.push_back({*anchor, std::nullopt, unit.cluster,
                 ReadinessPredicate{ReadinessPredicate::Type::kAnchorScheduled, s.name, {}},
                 "anchor"});
}

}  // namespace planter
