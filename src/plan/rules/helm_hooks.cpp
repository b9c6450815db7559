// Rule "helm-hooks": `helm template` output with hooks plants in Helm's install order. A
// release is the units of one seed file on one cluster. Its pre-install hooks run one at a time
// in Helm's order, each after the one before it is done (a Job complete, a Pod succeeded, any
// other kind created); everything else of the release waits for the last of them; post-install
// hooks wait for everything else to be declared, then run one at a time like the first ones.
// Hooks of other events never reach the plan (src/plan/set_aside.cpp).
#include "plan/rules.h"
#include "plan/rules/release_order.h"

namespace planter {

namespace {

// What Helm waits for before the next hook: a Job's or Pod's completion, else its creation. An
// author's ready-when says otherwise.
ReadinessPredicate hook_done(const RuleContext& ctx, size_t object) {
  using Type = ReadinessPredicate::Type;
  const ObjectRef& ref = ctx.objects[object].ref;
  if (string_in(ctx.index.annotations(object), kReadyWhenAnnotation)) return ctx.ready_when(object);
  if (ref.kind == "Job" && ref.group() == "batch") return {Type::kCondition, "Complete", {}};
  if (ref.kind == "Pod" && ref.group().empty())
    return ReadinessPredicate::jsonpath(Type::kJsonPath, "{.status.phase}", "Succeeded").value();
  return ReadinessPredicate::of(Type::kExists);
}

Requirement on_unit(const RuleContext& ctx, size_t unit, ReadinessPredicate when) {
  return {unit, std::nullopt, ctx.units[unit].cluster, std::move(when), "helm-hooks"};
}

}  // namespace

void require_helm_hooks(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  size_t self = ctx.unit_index(unit);
  ReleaseOrder::HelmPlace place = ctx.family<ReleaseOrder>().helm(self);
  if (!place.release) return;
  const ReleaseOrder::Release& rel = *place.release;
  auto after_hook = [&](size_t hook_unit) {
    out.push_back(on_unit(ctx, hook_unit, hook_done(ctx, ctx.units[hook_unit].object)));
  };
  switch (place.phase) {
    case InstallPhase::kBefore:
      if (place.position > 0) after_hook(rel.before[place.position - 1]);
      break;
    case InstallPhase::kWith:
      if (!rel.before.empty() && !applied_first(ctx.objects[unit.object]))
        after_hook(rel.before.back());
      break;
    case InstallPhase::kAfter:
      if (place.position > 0) {
        after_hook(rel.after[place.position - 1]);
        break;
      }
      for (size_t u : rel.with)
        out.push_back(on_unit(ctx, u, ReadinessPredicate::of(ReadinessPredicate::Type::kExists)));
      // A release of hooks only: the last pre-install hook comes first.
      if (rel.with.empty() && !rel.before.empty()) after_hook(rel.before.back());
      break;
    case InstallPhase::kNever:
      break;
  }
}

}  // namespace planter
