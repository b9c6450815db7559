// Rule "sync-waves": an Argo CD application's manifests plant in Argo CD's sync order without
// Argo CD. On a cluster where some object has argocd.argoproj.io/sync-wave or /hook, units are
// grouped by phase (PreSync, Sync, PostSync) and wave (0 when unset); each waits for every unit
// of the step before its own to be healthy as Argo CD judges the built-in kinds (the `healthy`
// predicate), as Argo CD waits before the next wave.
#include "plan/rules.h"
#include "plan/rules/release_order.h"

namespace planter {

void require_sync_waves(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  size_t self = ctx.unit_index(unit);
  auto previous = ctx.family<ReleaseOrder>().previous_step(self);
  if (previous.empty() || applied_first(ctx.objects[unit.object])) return;
  for (size_t u : previous) {
    size_t object = ctx.units[u].object;
    ReadinessPredicate when = string_in(ctx.index.annotations(object), kReadyWhenAnnotation)
                                  ? ctx.ready_when(object)
                                  : ReadinessPredicate::of(ReadinessPredicate::Type::kHealthy);
    out.push_back({u, std::nullopt, unit.cluster, std::move(when), "sync-waves"});
  }
}

}  // namespace planter
