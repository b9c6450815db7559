// NodePorts: a host port (hostIP, protocol, hostPort) the pod asks for must not be taken on the
// node; 0.0.0.0 clashes with every IP.
#include "fit/filters/filters.h"

namespace planter::fit::filters {

Status node_ports(const CycleState&, const PodInfo& pod, const NodeInfo& node) {
  for (const HostPort& want : pod.host_ports)
    for (const HostPort& used : node.used_ports)
      if (want.clashes(used)) return {{}, {kNodePorts}, false};
  return {};
}

}  // namespace planter::fit::filters
