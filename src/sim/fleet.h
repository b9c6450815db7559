// The simulated fleet: the management cluster and the workload clusters it provisions.
//
// The management cluster starts as one running planter and Cluster API does: with planter's
// CRDs (Seed, Cluster) and Cluster API's Cluster CRD established. Its provisioner turns each
// planter Cluster (planter.nephio.org/v1alpha1) and Cluster API Cluster (cluster.x-k8s.io/v1beta1)
// into a workload cluster after a delay, writes the Secret `<name>-kubeconfig` (key `value`, the
// Cluster API convention) next to it and reports in its status; deleting the Cluster removes the
// workload cluster. Annotations `sim.planter.io/<fault>` on a Cluster change the faults of its
// workload cluster while the sim runs.
//
// Transport-free like Cluster: the server (server.h) routes requests to clusters found here.
// Runs on the server's event loop, except names(), which any thread may call.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "sim/cluster.h"

namespace planter::sim {

class StateDir;

// How clients reach the fleet: what kubeconfigs say.
struct Access {
  std::string url;     // "https://127.0.0.1:6443", the management cluster
  std::string ca_pem;  // empty over plain HTTP
  std::string token;
};

struct FleetOptions {
  ClusterOptions cluster;                        // every cluster's, faults included
  std::map<std::string, Faults> cluster_faults;  // by cluster name, replacing cluster.faults
  std::chrono::milliseconds provision_delay{2000};
  int clusters = 0;       // workload clusters edge1..edgeN provisioned at start
  std::string state_dir;  // empty: state is in memory only
};

// Parses one fault setting as the flags and annotations spell it, into `faults`:
// "latency" MS[,JITTER], "write-latency" MS, "error-rate" P (0..1), "watch-drop" SECONDS.
std::optional<Error> parse_fault(std::string_view setting, std::string_view value, Faults& faults);

class Fleet {
 public:
  Fleet(FleetOptions options, Environment env, AuditLog* audit, Access access);
  ~Fleet();
  Fleet(const Fleet&) = delete;
  Fleet& operator=(const Fleet&) = delete;

  // Creates (or restores from the state folder) the management cluster, then the workload
  // clusters it had provisioned and those --clusters asks for.
  std::optional<Error> start();

  // The cluster served as `name` ("management" included), or null.
  std::shared_ptr<Cluster> find(std::string_view name) const;
  // Cluster names in the order they came, management first. Thread-safe.
  std::vector<std::string> names() const;

  // A kubeconfig with a context per cluster, `management` current.
  std::string kubeconfig() const;
  // The kubeconfig of one workload cluster, as its Secret carries it.
  std::string kubeconfig_of(const std::string& cluster) const;

  // Called when a workload cluster comes or goes (the server rewrites --kubeconfig-out).
  std::function<void()> on_change;

  struct Provisioner;

 private:
  std::shared_ptr<Cluster> make_cluster(const std::string& name, ClusterOptions options);
  void drop_cluster(const std::string& name);
  void start_provisioner(const std::string& host);

  FleetOptions options_;
  Environment env_;
  AuditLog* audit_;
  Access access_;
  std::unique_ptr<StateDir> state_;
  std::map<std::string, std::shared_ptr<Cluster>, std::less<>> clusters_;
  std::vector<std::string> order_;  // guarded by order_mutex_
  mutable std::mutex order_mutex_;
  // A provisioner per cluster that may hold Cluster objects (every one: a cluster serves the
  // kinds once their CRDs are installed), by the cluster's name.
  std::map<std::string, std::unique_ptr<Provisioner>, std::less<>> provisioners_;
  // workload cluster name -> its owner: "<host>|<storage key>|<namespace>|<name>". Names are
  // the fleet's: one workload cluster per name, whichever cluster's object asked for it.
  std::map<std::string, std::string> owners_;
};

}  // namespace planter::sim
