// Rule "namespace": no namespaced object before its Namespace is Active.
//
// An object whose Namespace is in the seed but placed on other clusters only would wait for ever
// for a Namespace that nothing creates where the object goes ("not in seed", though it is): bad
// input, naming both placements.
#include <fmt/format.h>

#include <algorithm>

#include "plan/rules.h"

namespace planter {

void require_namespace(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out) {
  const Object& o = ctx.objects[unit.object];
  if (o.ref.ns.empty()) return;
  const auto active = ReadinessPredicate::of(ReadinessPredicate::Type::kActive);
  auto in_seed = ctx.index.namespace_of(unit.object);
  if (in_seed.empty()) {
    out.push_back(ctx.need(ObjectRef{"v1", "Namespace", "", o.ref.ns}, unit.cluster_index, active,
                           "namespace"));
    return;
  }
  if (!ctx.unit_on(in_seed, unit.cluster_index)) {
    const Object& ns = ctx.objects[in_seed.front()];
    std::string clusters;
    for (uint32_t c : ctx.placements[in_seed.front()].clusters)
      clusters += (clusters.empty() ? "" : ", ") + ctx.inventory.clusters()[c].name;
    ctx.diags.add(o.where(), o.display(),
                  fmt::format("it is placed on cluster {}, but the seed places its Namespace {} "
                              "({}) on {} only: it would wait for ever",
                              unit.cluster, o.ref.ns, ns.where(), clusters),
                  fmt::format("place the Namespace on {} too (planter.nephio.org/clusters), or "
                              "place the object where its Namespace is",
                              unit.cluster));
  }
  out.push_back(ctx.need(in_seed.front(), unit.cluster_index, active, "namespace"));
}

}  // namespace planter
