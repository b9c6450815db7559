// Rule "cluster-ready": nothing goes into a cluster before it exists.
#include "plan/rules.h"

namespace planter {

void require_cluster_ready(const RuleContext& ctx, const Unit& unit,
                           std::vector<Requirement>& out) {
  if (unit.cluster_index == kSelfIndex) return;
  const ClusterInfo& cluster = ctx.inventory.clusters()[unit.cluster_index];
  // A cluster object already on the management cluster: the same wait, for an object outside the
  // seed.
  if (cluster.existing) {
    out.push_back(ctx.need(*cluster.existing, kSelfIndex,
                           ReadinessPredicate::of(ReadinessPredicate::Type::kClusterReady),
                           "cluster-ready"));
    return;
  }
  // Clusters given on the command line exist already; the engine still checks their API answers.
  if (!cluster.object) return;
  const auto& where = ctx.placements[*cluster.object].clusters;
  if (where.empty()) return;
  out.push_back(ctx.need(*cluster.object, where.front(),
                         ReadinessPredicate::of(ReadinessPredicate::Type::kClusterReady),
                         "cluster-ready"));
}

}  // namespace planter
