// NodeAffinity: the node has every label of the pod's nodeSelector, and matches one of the
// required nodeSelectorTerms (fit/node_terms.h says how a term matches).
#include "fit/filters/filters.h"

namespace planter::fit::filters {

bool node_affinity_matches(const PodInfo& pod, const NodeInfo& node) {
  for (const auto& [k, v] : pod.node_selector) {
    const std::string* have = node.label(k);
    if (!have || *have != v) return false;
  }
  return !pod.has_node_terms || pod.node_affinity.matches(node.labels, node.name);
}

Status node_affinity(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  if (node_affinity_matches(pod, node)) return {};
  return {{}, {kNodeAffinity}, true};
}

}  // namespace planter::fit::filters
