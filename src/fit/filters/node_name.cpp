// NodeName: a pod whose spec.nodeName is set goes on that node only.
#include "fit/filters/filters.h"

namespace planter::fit::filters {

Status node_name(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  if (pod.node_name.empty() || pod.node_name == node.name) return {};
  return {{}, {kNodeName}, true};
}

}  // namespace planter::fit::filters
