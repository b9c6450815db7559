// kube-scheduler's filter plugins as planter's fit model runs them, one file each (the table is
// in framework.cpp). Each answers for one pod and one node with kube-scheduler's reason strings;
// semantics from the Kubernetes documentation and kube-scheduler's plugin tests (see each file).
#pragma once

#include "fit/plugin.h"

namespace planter::fit::filters {

// node_unschedulable.cpp
Status node_unschedulable(const CycleState&, const PodInfo& pod, const NodeInfo& node);
// node_name.cpp
Status node_name(const CycleState&, const PodInfo& pod, const NodeInfo& node);
// taint_toleration.cpp
Status taint_toleration(const CycleState&, const PodInfo& pod, const NodeInfo& node);
// node_affinity.cpp
Status node_affinity(const CycleState&, const PodInfo& pod, const NodeInfo& node);
bool node_affinity_matches(const PodInfo& pod, const NodeInfo& node);
// node_ports.cpp
Status node_ports(const CycleState&, const PodInfo& pod, const NodeInfo& node);
// node_resources_fit.cpp
Status node_resources_fit(const CycleState&, const PodInfo& pod, const NodeInfo& node);
// Which of `need`'s resources `node` lacks room for (with `pods` more pod slots), as reasons;
// with `devices`, not the extended resources devices serve on a node that does not list them.
std::vector<std::string> insufficient(const NodeInfo& node, const Resources& need, int64_t pods,
                                      const DeviceInventory* devices = nullptr);
// volume_restrictions.cpp
void prefilter_volume_restrictions(CycleState& state, const PodInfo& pod, const Snapshot& snapshot);
Status volume_restrictions(const CycleState& state, const PodInfo& pod, const NodeInfo& node);
// volume_binding.cpp
void prefilter_volume_binding(CycleState& state, const PodInfo& pod, const Snapshot& snapshot);
Status volume_binding(const CycleState& state, const PodInfo& pod, const NodeInfo& node);
// Whether the pod's waiting claims can bind on `node`; what each binds to in `out` when given.
bool waiting_claims_bind(const VolumeState& in, const NodeInfo& node,
                         std::vector<ClaimBinding>* out);
// dynamic_resources.cpp
void prefilter_dynamic_resources(CycleState& state, const PodInfo& pod, const Snapshot& snapshot);
Status dynamic_resources(const CycleState& state, const PodInfo& pod, const NodeInfo& node);
// pod_topology_spread.cpp
void prefilter_topology_spread(CycleState& state, const PodInfo& pod, const Snapshot& snapshot);
Status pod_topology_spread(const CycleState& state, const PodInfo& pod, const NodeInfo& node);
// inter_pod_affinity.cpp
void prefilter_inter_pod_affinity(CycleState& state, const PodInfo& pod, const Snapshot& snapshot);
Status inter_pod_affinity(const CycleState& state, const PodInfo& pod, const NodeInfo& node);

inline constexpr const char* kUnschedulable = "node(s) were unschedulable";
inline constexpr const char* kNodeName = "node(s) didn't match the requested node name";
inline constexpr const char* kNodeAffinity = "node(s) didn't match Pod's node affinity/selector";
inline constexpr const char* kNodePorts =
    "node(s) didn't have free ports for the requested pod ports";
inline constexpr const char* kTooManyPods = "Too many pods";
inline constexpr const char* kVolumeNodeConflict = "node(s) had volume node affinity conflict";
inline constexpr const char* kVolumeBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr const char* kUnboundImmediate = "pod has unbound immediate PersistentVolumeClaims";
inline constexpr const char* kReadWriteOncePodConflict =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";
inline constexpr const char* kClaimNotOnNode = "resourceclaim not available on the node";
inline constexpr const char* kCannotAllocate = "cannot allocate all claims";
inline constexpr const char* kSpread = "node(s) didn't match pod topology spread constraints";
inline constexpr const char* kSpreadMissingLabel =
    "node(s) didn't match pod topology spread constraints (missing required label)";
inline constexpr const char* kAffinity = "node(s) didn't match pod affinity rules";
inline constexpr const char* kAntiAffinity = "node(s) didn't match pod anti-affinity rules";
inline constexpr const char* kExistingAntiAffinity =
    "node(s) didn't satisfy existing pods anti-affinity rules";

}  // namespace planter::fit::filters
