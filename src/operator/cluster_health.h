// Whether the workload clusters answer (docs/placement.md, "Failover"): the operator asks the API
// server of each provisioned planter Cluster `GET /readyz` every probe interval, through the
// kubeconfig its status names. One that has not answered for `unreachable_after` is tainted
// planter.nephio.org/unreachable:NoSelect, timeAdded now (choices of clusters give it up once
// their tolerations of it end: the Seed controller's failover), and the taint goes when it answers
// again; an Event on the Cluster says each. As Open Cluster Management's registration controller
// taints a ManagedCluster whose lease is not renewed.
//
// Where the management cluster serves sig-multicluster's ClusterProfile (KEP-4322), each probed
// Cluster is published as one next to it, by its name: its labels, planter as its cluster manager
// (x-k8s.io/cluster-manager: planter), ControlPlaneHealthy from the probes; what MultiKueue, Argo
// CD or OCM integrations read.
//
// One thread; probes are asynchronous (one request each, never retried: a probe that fails is the
// news), so a round over 1,000 clusters takes one probe's time. The taint is written with a merge
// patch that carries the resourceVersion read, so a taint written meanwhile is never lost (a
// conflict is tried again next round).
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "daemon/log.h"
#include "kube/client.h"
#include "kube/informer.h"

namespace planter::op {

// planter's Cluster, the kind probed and tainted.
inline constexpr std::string_view kClusterApiVersion = "planter.nephio.org/v1alpha1";

struct ClusterHealthOptions {
  std::chrono::milliseconds probe_interval{10'000};
  // 0: never taint (the operator's --cluster-unreachable-after 0).
  std::chrono::milliseconds unreachable_after{50'000};
  kube::ClientOptions client;  // the probes' (their timeout is the probe interval, at most 10 s)
};

class ClusterHealth {
 public:
  // An Event on a Cluster: its object, type, reason and message.
  using EventSink = std::function<void(const boost::json::object& cluster, std::string_view type,
                                       std::string_view reason, const std::string& message)>;

  // `clusters`: an informer of planter Clusters on `management`, started by the caller.
  ClusterHealth(kube::Client& management, const kube::Informer& clusters,
                ClusterHealthOptions options, const daemon::Log& log, EventSink events);
  ~ClusterHealth();
  ClusterHealth(const ClusterHealth&) = delete;
  ClusterHealth& operator=(const ClusterHealth&) = delete;

  void start();
  void stop();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::op
