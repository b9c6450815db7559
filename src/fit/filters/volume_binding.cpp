// VolumeBinding, for the claims the fit model can see: a claim bound to a volume with required
// node affinity (a local volume) ties the pod to the nodes that affinity admits; a claim still
// binding whose volume is being provisioned for a node (volume.kubernetes.io/selected-node) ties
// it to that node. A claim not yet there (one the group itself makes) or provisioned on demand
// ties nothing. kube-scheduler's reason: "node(s) had volume node affinity conflict".
#include "fit/filters/filters.h"

namespace planter::fit::filters {

void prefilter_volume_binding(CycleState& state, const PodInfo& pod, const Snapshot& snapshot) {
  for (const std::string& claim : pod.claims) {
    Snapshot::ClaimTie tie = snapshot.claim_tie(pod.ns, claim);
    if (tie.terms) state.volumes.terms.push_back(*tie.terms);
    if (!tie.node.empty()) state.volumes.nodes.push_back(tie.node);
  }
}

Status volume_binding(const CycleState& state, const PodInfo&, const NodeInfo& node) {
  for (const boost::json::array& terms : state.volumes.terms)
    if (!node_terms_match(terms, node)) return {{}, {kVolumeNodeConflict}, true};
  for (const std::string& n : state.volumes.nodes)
    if (n != node.name) return {{}, {kVolumeNodeConflict}, true};
  return {};
}

}  // namespace planter::fit::filters
