// DynamicResources: a pod's ResourceClaims must be allocatable on the node, all of them (fit/
// devices.h says how). PreFilter refuses a pod whose claim, or a class a request names, does not
// exist (kube-scheduler's UnschedulableAndUnresolvable); a claim allocated already admits only the
// nodes its allocation selects ("resourceclaim not available on the node"); the others must be
// allocatable on the node from its free devices ("cannot allocate all claims"). kube-scheduler
// runs it after the default filters above it, as here. (kubernetes.io, "Dynamic Resource
// Allocation": "Scheduling"; the plugin's reasons in pkg/scheduler/framework/plugins/
// dynamicresources.)
#include "fit/filters/filters.h"

namespace planter::fit::filters {

void prefilter_dynamic_resources(CycleState& state, const PodInfo& pod, const Snapshot& snapshot) {
  if (!snapshot.devices().takes_devices(pod)) return;
  state.devices.inventory = &snapshot.devices();
  state.devices.claims = snapshot.devices().resolve(pod);
  if (!state.devices.claims.refusal.empty() && state.refusal.empty()) {
    state.refused_by = "DynamicResources";
    state.refusal = state.devices.claims.refusal;
  }
}

Status dynamic_resources(const CycleState& state, const PodInfo&, const NodeInfo& node) {
  if (!state.devices.inventory) return {};
  for (const DeviceClaim* claim : state.devices.claims.allocated)
    if (!claim->nodes.empty() && !claim->nodes.matches(node.labels, node.name))
      return {{}, {kClaimNotOnNode}, true};
  if (!state.devices.inventory->allocate(state.devices.claims, node.name, node.labels,
                                         node.allocatable))
    return {{}, {kCannotAllocate}, false};
  return {};
}

}  // namespace planter::fit::filters
