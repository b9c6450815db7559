// The node-configuration providers planter knows, as data (docs/node-configuration.md): for each
// kind, what it gives the nodes it configures (allocatable resources, labels) and how it says it
// is done. The Node is the signal they share; a provider's own "done" is waited for as well when
// it is in the seed on the consumer's cluster.
//
//   PerformanceProfile (performance.openshift.io)  hugepages-<size> of spec.hugepages.pages;
//       done: its MachineConfigPool (selected by spec.machineConfigPoolSelector, else named after
//       the node-role.kubernetes.io/<role> of its nodeSelector) Updated
//   SriovNetworkNodePolicy (sriovnetwork.openshift.io)  <prefix>/<spec.resourceName>, prefix
//       openshift.io or the policy's planter.nephio.org/resource-prefix annotation; the Node is
//       the signal (its SriovNetworkNodeState reaches Succeeded as the resource appears)
//   ClusterPolicy, NVIDIADriver (nvidia.com)  nvidia.com/gpu; done: status.state ready
//   GPUCluster (nvidia.com, the GPU Operator's DRA mode)  nvidia.com/gpu, served by the devices
//       its driver publishes (the DeviceClass gpu.nvidia.com's extendedResourceName); done:
//       status.state ready
//   NodeFeatureRule (nfd.k8s-sigs.io)  its rules' labels and extendedResources
//       (feature.node.kubernetes.io/ when unprefixed); the Node is the only signal
//   Module (kmm.sigs.x-k8s.io)  the label kmm.node.kubernetes.io/<namespace>.<name>.ready
//   Cluster (planter.nephio.org)  on the workload cluster it defines: its node pools' labels
//       and resources, what their KernelConfig and MemoryConfig give (the labels
//       planter.nephio.org/kernel-config, realtime-kernel, memory-config, numa; hugepages-<size>)
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/object.h"
#include "plan/inventory.h"
#include "plan/placement.h"

namespace planter {

// What a provider gives its nodes.
struct Provided {
  std::vector<std::string> resources;  // "hugepages-1Gi", "openshift.io/intelnics"
  std::vector<std::string> labels;     // "key=value", or "key" for any value
  // Whether it gives a node what a need names: a resource by name, a label "key=value" (or
  // "key") by key and value.
  bool gives_resource(std::string_view name) const;
  bool gives_label(std::string_view label) const;
};

struct NodeProvider {
  std::string_view group, kind;
  // What the object gives its nodes. `objects`: the seed, for what it refers to (a Cluster's
  // KernelConfig and MemoryConfig).
  Provided (*provides)(const Object& o, const std::vector<Object>& objects);
  // Its own "done", as a planter.nephio.org/ready-when predicate on itself; empty: none (the
  // Node is the only signal).
  std::string_view done;
  // Done is another object's state (a PerformanceProfile's MachineConfigPool): that object, and
  // the predicate on it.
  std::optional<ObjectRef> (*done_object)(const Object& o,
                                          const std::vector<Object>& objects) = nullptr;
  std::string_view done_object_when;
  // It configures nodes of the cluster it is declared on; false: of the cluster it defines.
  bool same_cluster = true;
  // The field of its spec that holds the node labels it selects its nodes by ("nodeSelector");
  // empty: it selects them otherwise (by their hardware).
  std::string_view node_selector;
  // Done per node: an object of this kind named after each node, in the provider's namespace
  // (an SriovNetworkNodeState), says it with this predicate; a node whose state object exists
  // and does not say it is not counted yet. Empty: the Node alone.
  std::string_view node_state_api_version, node_state_kind, node_state_when;
};

inline constexpr std::string_view kResourcePrefixAnnotation = "planter.nephio.org/resource-prefix";

// The device resource an SR-IOV policy or network names: <prefix>/<spec.resourceName>, the
// prefix openshift.io (the operator's default) or the object's planter.nephio.org/resource-prefix
// annotation; empty when it names none.
std::string sriov_resource(const Object& o);

// What a provider (or the object that says it is done) says of its progress, for people:
// "MachineConfigPool worker-cnf Updating, 1 of 3 machines updated", "ClusterPolicy
// gpu-cluster-policy notReady"; empty when it says nothing planter reads.
std::string provider_progress(const boost::json::object& o);

// Warns, naming both, about each provider of the seed whose node selector matches no node pool
// of the Cluster (in the seed, with node pools) that defines the cluster it goes to: it would
// configure nothing there.
void warn_unmatched_providers(const std::vector<Object>& objects,
                              const std::vector<Placement>& placements, const Inventory& inventory,
                              Diagnostics& diags);

std::span<const NodeProvider> node_providers();
// The provider entry of a kind; null when the kind provides nothing planter knows.
const NodeProvider* node_provider(std::string_view group, std::string_view kind);

}  // namespace planter
