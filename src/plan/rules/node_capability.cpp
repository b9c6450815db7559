// Rule "node-capability": a unit whose pods need something of a node that not every node has
// (plan/node_needs.h) waits until its cluster has enough schedulable nodes that have it; the
// engine's gate counts them (plant/gates/node_capability.cpp). It also waits for the seed's
// providers of it on its cluster (plan/node_providers.h) to be done in their own way, and for
// the network attachments its pods name to exist (Multus refuses a pod whose network is not
// defined).
#include <fmt/format.h>

#include "plan/rules.h"

namespace planter {

using Type = ReadinessPredicate::Type;

namespace {

// The family index: object i's needs are plan.node_needs[from[i]] up to [from[i + 1]] (the needs
// are in object order).
struct NeedsFrom {
  std::vector<size_t> from;
};

}  // namespace

FamilyIndex prepare_node_needs_index(const RuleContext& ctx) {
  const std::vector<NodeNeed>& needs = ctx.plan.node_needs;
  NeedsFrom out{std::vector<size_t>(ctx.objects.size() + 1, 0)};
  for (size_t i = 0, n = 0; i <= ctx.objects.size(); ++i) {
    while (n < needs.size() && needs[n].object < i) ++n;
    out.from[i] = n;
  }
  return FamilyIndex::of(std::move(out));
}

void require_node_capability(const RuleContext& ctx, const Unit& unit,
                             std::vector<Requirement>& out) {
  uint32_t cluster = unit.cluster_index;
  const std::vector<size_t>& needs_from = ctx.family<NeedsFrom>().from;
  for (size_t n = needs_from[unit.object]; n < needs_from[unit.object + 1]; ++n) {
    const NodeNeed& need = ctx.plan.node_needs[n];
    // Who provides it for this cluster (for people), and what waits for them: the seed's
    // providers on the cluster are done, and the network definitions exist.
    std::string by;
    std::vector<Requirement> providers;
    for (size_t p : need.providers) {
      const SeedProvider& provider = ctx.plan.node_providers[p];
      const std::string short_form = ctx.objects[provider.object].ref.short_form();
      // A Cluster's node pools, on the cluster it defines: the cluster-ready rule waits for it.
      if (!provider.kind->same_cluster) {
        if (ctx.inventory.clusters()[cluster].object == provider.object)
          by += (by.empty() ? "" : ", ") + short_form;
        continue;
      }
      if (!ctx.placed_on(provider.object, cluster)) continue;
      by += (by.empty() ? "" : ", ") + short_form;
      providers.push_back(ctx.need(provider.object, cluster, provider.done, "node-capability"));
      if (provider.done_object)
        providers.push_back(
            ctx.need(*provider.done_object, cluster, provider.done_object_when, "node-capability"));
    }
    for (size_t a : need.networks)
      providers.push_back(
          ctx.need(a, cluster, ReadinessPredicate::of(Type::kExists), "node-capability"));
    for (const auto& [ns, name] : need.external_networks)
      providers.push_back(
          ctx.need(ObjectRef{"k8s.cni.cncf.io/v1", "NetworkAttachmentDefinition", ns, name},
                   cluster, ReadinessPredicate::of(Type::kExists), "node-capability"));
    // The nodes first: while they lack it, its wait says how far its providers are.
    if (!need.resources.empty() || !need.labels.empty() || need.claims)
      out.push_back(
          {std::nullopt, ObjectRef{"v1", "Node", "", ""}, unit.cluster,
           ReadinessPredicate{Type::kNodeCapability, need.what, fmt::format("{};{}", n, by)},
           "node-capability"});
    for (Requirement& r : providers) out.push_back(std::move(r));
  }
}

}  // namespace planter
