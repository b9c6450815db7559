// stack-fits: every member of an atomic stack waits until its cluster holds all of the stack at
// once (docs/stacks.md, "Atomic"); a co-scheduled stack's anchor waits for it too (planter places
// the anchor where the whole group fits), and so do the members of an atomic co-scheduled stack
// that make no pods. The requirement names the Stack, which is never declared; the engine's
// gate decides it with the fit model (docs/fit.md).
#include "plan/rules.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

void require_stack_fits(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const auto& m = ctx.stacks.member[unit.object];
  if (!m) return;
  const StackNeeds& s = (*ctx.stacks.stacks)[m->stack];
  if ((!s.atomic && !s.anchor) || s.members.empty()) return;
  bool is_anchor = s.anchor && unit.object == *s.anchor;
  if (s.anchor && !is_anchor && (m->makes_pods || !s.atomic)) return;  // rules/anchor.cpp
  out.push_back({std::nullopt, ObjectRef{std::string(kStackApiVersion), "Stack", "", s.name},
                 unit.cluster, ReadinessPredicate{ReadinessPredicate::Type::kStackFits, s.name, {}},
                 "stack-fits"});
}

}  // namespace planter
