// The node-configuration operators the sim plays, each read its own way from its objects (the
// sim's own reading, sharing nothing with planter's provider table, which it judges):
//
//   PerformanceProfile (Node Tuning Operator)  nodes of spec.nodeSelector get the huge pages of
//       spec.hugepages.pages (count x size) and, with spec.realTimeKernel.enabled, a realtime
//       kernel; the profile is Available at once; the MachineConfigPools whose nodeSelector
//       selects those nodes report machineCount, updatedMachineCount and Updated/Updating as
//       the nodes are rebooted one at a time
//   SriovNetworkNodePolicy  nodes of spec.nodeSelector that Node Feature Discovery found
//       SR-IOV capable (feature.node.kubernetes.io/network-sriov.capable=true) get
//       openshift.io/<spec.resourceName>: spec.numVfs; each has a SriovNetworkNodeState of its
//       name in the policy's namespace, syncStatus InProgress until it is configured, then
//       Succeeded
//   SriovNetwork  the NetworkAttachmentDefinition of its name in spec.networkNamespace (its own
//       namespace by default), annotated k8s.v1.cni.cncf.io/resourceName
//   ClusterPolicy (NVIDIA GPU Operator)  nodes with an NVIDIA PCI device
//       (feature.node.kubernetes.io/pci-10de.present=true) get nvidia.com/gpu (the node's
//       label sim.planter.io/gpus, else 1) and the label nvidia.com/gpu.present=true;
//       status.state notReady until every such node has them, then ready
//   Module (Kernel Module Management)  nodes of spec.selector get the label
//       kmm.node.kubernetes.io/<namespace>.<name>.ready
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <string>

namespace planter::sim {

class ControllerKit;

// What configuring a node gives it.
struct NodeWants {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> resources;  // allocatable and capacity
  std::string kernel_version;
  bool empty() const { return labels.empty() && resources.empty() && kernel_version.empty(); }
  void merge(const NodeWants& o);
};

// What the operators' objects in the cluster want of `node`.
NodeWants operators_want(ControllerKit& kit, const boost::json::object& node);

// The storage keys of the operators' objects (a change of one may want nodes configured again).
const std::initializer_list<const char*>& operator_kinds();

// Writes the operators' status from the nodes as they are now: PerformanceProfile conditions,
// MachineConfigPool counts and conditions, SriovNetworkNodeStates, the NetworkAttachmentDefinitions
// of SriovNetworks, ClusterPolicy state. `has(node, wants)` says whether a node is configured.
void report_operators(ControllerKit& kit);

// True when `node` has all of `wants` and is Ready.
bool node_has(const boost::json::object& node, const NodeWants& wants);

}  // namespace planter::sim
