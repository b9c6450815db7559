// stack-fits: every member of an atomic stack waits until its cluster holds all of the stack at
// once (docs/stacks.md, "Atomic"); a co-scheduled stack's anchor waits for it too (planter places
// the anchor where the whole group fits), and so do the members of an atomic co-scheduled stack
// that make no pods. A stack co-scheduled by planter's scheduler (a gang) waits like an atomic
// one: its members are declared when the whole gang fits, so that a gang that can never fit says
// why at --timeout rather than leaving pods pending (docs/decisions.md). A stack held to one
// topology domain (spec.topology required) waits until one domain holds all of it. The requirement
// names the Stack, which is never declared; the engine's gate decides it with the fit model
// (docs/fit.md).
#include "plan/rules/stack_index.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

void require_stack_fits(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const StackIndex& stacks = ctx.family<StackIndex>();
  const auto& m = stacks.member[unit.object];
  if (!m) return;
  const StackNeeds& s = ctx.plan.stacks[m->stack];
  bool gang = s.pod_group.has_value();
  if ((!s.atomic && !s.anchor && !gang && !s.held) || s.members.empty()) return;
  bool is_anchor = s.anchor && unit.object == *s.anchor;
  if (s.anchor && !is_anchor && (m->makes_pods || !s.atomic)) return;  // rules/anchor.cpp
  out.push_back({std::nullopt, ObjectRef{std::string(kStackApiVersion), "Stack", "", s.name},
                 unit.cluster, ReadinessPredicate{ReadinessPredicate::Type::kStackFits, s.name, {}},
                 "stack-fits"});
}

}  // namespace planter
