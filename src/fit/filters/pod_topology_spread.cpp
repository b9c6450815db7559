// PodTopologySpread, whenUnsatisfiable: DoNotSchedule. Per constraint, the pods of the pod's
// namespace that its labelSelector matches are counted per value of its topology key, over the
// nodes that have every constraint's key and that the pod's node affinity admits
// (nodeAffinityPolicy: Honor, the default) and whose taints it tolerates (nodeTaintsPolicy:
// Honor only). A node fits when (its domain's count + 1 if the pod matches itself) - the
// smallest count is at most maxSkew; the smallest count is 0 while there are fewer domains than
// minDomains. A node without the key cannot take the pod at all.
#include <algorithm>
#include <limits>

#include "fit/filters/filters.h"

namespace planter::fit::filters {

namespace {

bool eligible(const PodInfo& pod, const NodeInfo& node, const SpreadConstraint& c) {
  for (const SpreadConstraint& other : pod.spread)
    if (!node.label(other.topology_key)) return false;
  if (c.honor_node_affinity && !node_affinity_matches(pod, node)) return false;
  if (c.honor_taints)
    for (const Taint& t : node.taints)
      if ((t.effect == "NoSchedule" || t.effect == "NoExecute") && !tolerated(pod.tolerations, t))
        return false;
  return true;
}

}  // namespace

void prefilter_topology_spread(CycleState& state, const PodInfo& pod, const Snapshot& snapshot) {
  for (const SpreadConstraint& c : pod.spread) {
    SpreadState::Constraint out;
    out.spec = &c;
    out.self_match = c.selector && c.selector->matches(pod.labels);
    for (const NodeInfo& n : snapshot.nodes()) {
      if (!eligible(pod, n, c)) continue;
      int64_t& count = out.counts[*n.label(c.topology_key)];
      if (!c.selector) continue;
      for (const auto& p : n.pods)
        if (p->ns == pod.ns && c.selector->matches(p->labels)) count = add_sat(count, p.copies);
    }
    if (static_cast<int64_t>(out.counts.size()) < c.min_domains) {
      out.min_count = 0;
    } else {
      out.min_count = std::numeric_limits<int64_t>::max();
      for (const auto& [_, n] : out.counts) out.min_count = std::min(out.min_count, n);
    }
    state.spread.constraints.push_back(std::move(out));
  }
}

Status pod_topology_spread(const CycleState& state, const PodInfo&, const NodeInfo& node) {
  for (const SpreadState::Constraint& c : state.spread.constraints) {
    const std::string* domain = node.label(c.spec->topology_key);
    if (!domain) return {{}, {kSpreadMissingLabel}, true};
    auto it = c.counts.find(*domain);
    int64_t here = it == c.counts.end() ? 0 : it->second;
    if (here + (c.self_match ? 1 : 0) - c.min_count > c.spec->max_skew)
      return {{}, {kSpread}, false};
  }
  return {};
}

}  // namespace planter::fit::filters
