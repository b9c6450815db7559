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

#include "sim/cluster.h"

namespace planter::sim {

class ControllerKit;

// What configuring a node gives it: labels, allocatable and capacity, a kernel.
using NodeWants = NodePool::Configuration;

// What the proof of concept's KernelConfig and MemoryConfig give the nodes of a planter Cluster's
// node pool that names them (the provisioner reads them from the management cluster): labels
// planter.nephio.org/kernel-config and realtime-kernel, a kernel; memory-config, numa, and
// hugepages-<hugePages>: hugePagesCount (4 by default) x hugePages.
NodeWants kernel_config_wants(const boost::json::object& kernel_config);
NodeWants memory_config_wants(const boost::json::object& memory_config);

// What the operators' objects in the cluster want of `node`.
NodeWants operators_want(ControllerKit& kit, const boost::json::object& node);

// The storage keys of the operators' objects (a change of one may want nodes configured again).
const std::initializer_list<const char*>& operator_kinds();

// Writes the operators' status from the nodes as they are now: PerformanceProfile conditions,
// MachineConfigPool counts and conditions, SriovNetworkNodeStates, the NetworkAttachmentDefinitions
// of SriovNetworks, ClusterPolicy state. Nothing when the cluster holds none of their objects.
void report_operators(ControllerKit& kit);

// True when `node` has all of `wants` and is Ready.
bool node_has(const boost::json::object& node, const NodeWants& wants);

}  // namespace planter::sim
