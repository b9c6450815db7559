// The simulated controllers of one cluster: what kube-controller-manager, the scheduler, the
// kubelets and the aggregator do that clients wait on.
//
//   - the workload controllers, the kubelets and the node lifecycle
//     (workloads/workload_controllers.h): nodes, Pods of Deployments, ReplicaSets,
//     StatefulSets, DaemonSets and Jobs, pods that run after ClusterOptions::workload_delay;
//   - Services get an EndpointSlice and an Endpoints object listing the ready pods they select;
//   - APIServices become Available once their Service has a ready endpoint.
//
// The scheduler is the cluster's own (scheduler/scheduler.h).
//
// Level-based, as real controllers are: a change enqueues the objects it affects, and each is
// reconciled from what the store holds, so a cluster restored from --state-dir catches up.
// Writes go through Cluster::handle as the controllers' own users, so they are validated,
// audited, recorded in managedFields and seen by watches like any client's. Readiness
// transitions go to the audit log as "ready" events (available, endpoints-ready, active).
#pragma once

#include <memory>

namespace planter::sim {

class Cluster;

class Controllers {
 public:
  explicit Controllers(Cluster& cluster);
  ~Controllers();
  Controllers(const Controllers&) = delete;
  Controllers& operator=(const Controllers&) = delete;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::sim
