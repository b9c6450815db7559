// VolumeRestrictions, for ReadWriteOncePod: a claim with that access mode may be used by one pod
// in the whole cluster, so a pod whose such claim another pod (bound, or assumed by the decision)
// already uses fits on no node. kube-scheduler says "node has pod using PersistentVolumeClaim with
// the same name and ReadWriteOncePod access mode" for each node (Unschedulable: preemption could
// free the claim). The in-tree disk conflicts (GCE PD, EBS, RBD, iSCSI) are not modelled.
#include "fit/filters/filters.h"

namespace planter::fit::filters {

void prefilter_volume_restrictions(CycleState& state, const PodInfo& pod,
                                   const Snapshot& snapshot) {
  for (const std::string& name : pod.claims)
    if (const Claim* claim = snapshot.claim(pod.ns, name); claim && claim->read_write_once_pod())
      state.volumes.read_write_once_pod_users =
          add_sat(state.volumes.read_write_once_pod_users, snapshot.claim_users(pod.ns, name));
}

Status volume_restrictions(const CycleState& state, const PodInfo&, const NodeInfo&) {
  if (state.volumes.read_write_once_pod_users > 0) return {{}, {kReadWriteOncePodConflict}, false};
  return {};
}

}  // namespace planter::fit::filters
