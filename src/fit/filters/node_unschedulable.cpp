// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.
#include "fit/filters/filters.h"

namespace planter::fit::filters {

Status node_unschedulable(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  if (!node.unschedulable) return {};
  if (tolerated(pod.tolerations, Taint{"node.kubernetes.io/unschedulable", "", "NoSchedule"}))
    return {};
  return {{}, {kUnschedulable}, true};
}

}  // namespace planter::fit::filters
