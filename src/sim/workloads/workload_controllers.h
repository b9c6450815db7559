// The sim's workload controllers, as kube-controller-manager and the kubelets run them, each
// level-based (a change queues the objects it affects; each is reconciled from what the store
// holds, so a cluster restored from --state-dir catches up) and each in its own file:
//
//   node_lifecycle.cpp  the cluster's nodes from its node pools; pods of a deleted node go
//   node_configuration.cpp  nodes of configured pools rebooted into their configuration, one
//                       at a time; the proof of concept's WAN and Network Ready
//   kubelet.cpp         a bound pod starts: Running and Ready (or Succeeded, for pods that do
//                       not restart) after --workload-delay
//   replicasets.cpp     ReplicaSet -> Pods <rs>-<5 chars>
//   deployments.cpp     Deployment -> ReplicaSet <deploy>-<pod-template-hash>, rollouts, scale
//   statefulsets.cpp    StatefulSet -> Pods <sts>-0..N-1 in order, PVCs from volumeClaimTemplates
//   daemonsets.cpp      DaemonSet -> one Pod per node its pods may run on
//   jobs.cpp            Job -> Pods up to parallelism until completions succeeded
//   pod_group_protection.cpp  PodGroups kept while pods that joined them run
//   volumes.cpp         StorageClasses standard and local; claims provisioned and bound
//   resource_claims.cpp a pod's ResourceClaims from its templates
//   dra_drivers.cpp     DRA drivers' DeviceClasses and ResourceSlices
//   compute_domains.cpp NVIDIA ComputeDomains: their claim template, their nodes
//   custom_operators.cpp  the operators of CRDs annotated sim.planter.io/operator
//
// Each starts watching when made and stops when destroyed.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace planter::sim {

class ControllerKit;
class Cluster;
struct NodePool;

// The nodes of the cluster's node pools, in order: each with its pool and name
// (<cluster>-<pool>-<i>, or <cluster>-node-<n> for pools without a name).
std::vector<std::pair<const NodePool*, std::string>> pool_nodes(Cluster& cluster);

class WorkloadController {
 public:
  virtual ~WorkloadController() = default;
};

std::unique_ptr<WorkloadController> start_node_lifecycle(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_node_configuration(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_kubelet(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_replicaset_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_deployment_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_statefulset_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_daemonset_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_job_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_pod_group_protection(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_volume_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_resource_claim_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_dra_drivers(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_compute_domain_controller(ControllerKit& kit);
std::unique_ptr<WorkloadController> start_custom_operators(ControllerKit& kit);

}  // namespace planter::sim
