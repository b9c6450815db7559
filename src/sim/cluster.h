// One simulated cluster's API: every request a kube-apiserver answers (discovery, OpenAPI,
// get/list/watch/create/update/patch/apply/delete on built-in and CRD-defined kinds), the
// admission a real server does (namespaces must exist, names must be valid, optimistic
// concurrency, field validation), and the built-in controllers whose effects clients wait on:
// CRDs become Established after a delay, namespaces terminate, owners' dependents are collected.
//
// Transport-free: the HTTP server (server.h) turns requests into Request values and streams
// watch frames to a WatchSink. Not thread-safe: everything runs on the server's event loop;
// time and timers come in through Environment so tests control them.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/api.h"
#include "sim/audit.h"
#include "sim/catalog.h"
#include "sim/store.h"

namespace planter::sim {

struct Environment {
  std::function<std::chrono::system_clock::time_point()> now;
  // Runs `fn` on the event loop after `delay`.
  std::function<void(std::chrono::milliseconds delay, std::function<void()> fn)> after;
  std::function<uint64_t()> random;
};

// Faults injected into one cluster's requests (server.h applies them).
struct Faults {
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds jitter{0};  // the latency varies by up to this much either way
  std::chrono::milliseconds write_latency{0};
  double error_rate = 0;                    // share of requests answered 5xx or 429
  std::chrono::milliseconds watch_drop{0};  // watch streams end after this long; 0: never
  // Its API server is stopped: every request, probes included, is answered 503 and its watch
  // streams end (all clusters share the sim's address, so it cannot refuse connections).
  bool down = false;
};

// A taint of a node, as `kubectl taint` writes it.
struct NodeTaint {
  std::string key, value, effect;  // effect: NoSchedule, PreferNoSchedule or NoExecute
};

// A group of identical simulated nodes (a planter Cluster's spec.nodes entry, or the flags).
struct NodePool {
  int count = 1;
  // Nodes are named <cluster>-<name>-<i> (i from 1 within the pool); without a name
  // <cluster>-node-<n>, n counting across the cluster's unnamed pools.
  std::string name;
  std::map<std::string, std::string> labels;
  std::string cpu;     // allocatable cpu; empty: ClusterOptions::node_cpu
  std::string memory;  // allocatable memory; empty: ClusterOptions::node_memory
  int pods = 0;        // allocatable pods; 0: ClusterOptions::node_pods
  // Extended resources ("nvidia.com/gpu": "4", "hugepages-2Mi": "1Gi"), on top of
  // ClusterOptions::node_resources.
  std::map<std::string, std::string> resources;
  std::vector<NodeTaint> taints;
  // What configuring its nodes gives them (a planter Cluster's kernelConfig and memoryConfig, as
  // the provisioner reads them): without any, nodes start configured. With some, each node
  // registers cordoned and without these; the node configuration controller
  // (workloads/node_configuration.cpp) then reboots the nodes one at a time into them.
  // (The node-configuration operators the sim plays want the same of nodes: NodeWants.)
  struct Configuration {
    std::map<std::string, std::string> labels;
    std::map<std::string, std::string> resources;  // "hugepages-1Gi": "4Gi"
    std::string kernel_version;                    // nodeInfo.kernelVersion once configured
    bool empty() const { return labels.empty() && resources.empty() && kernel_version.empty(); }
    // Adds `o`'s (its values win).
    void merge(const Configuration& o) {
      for (const auto& [k, v] : o.labels) labels[k] = v;
      for (const auto& [k, v] : o.resources) resources[k] = v;
      if (!o.kernel_version.empty()) kernel_version = o.kernel_version;
    }
  };
  Configuration configuration;
};

struct ClusterOptions {
  std::chrono::milliseconds crd_delay{200};
  std::chrono::milliseconds bookmark_interval{60000};
  size_t history_limit = 20000;
  // Until Deployments, StatefulSets, DaemonSets and Pods report ready.
  std::chrono::milliseconds workload_delay{1000};
  // Until a claim that can be provisioned is (a slow storage backend): it stays Pending so long,
  // and a scheduler must wait for it to be Bound before it binds the pods that use it.
  std::chrono::milliseconds volume_delay{0};
  // Nodes run kubelets (pods bound to them start). Off only in benchmarks of schedulers, whose
  // nodes are fake as in Kubernetes' scheduler_perf: bound pods then stay as bound.
  bool kubelets = true;
  // The most pods one workload's controller keeps (docs/limits.md): kube-apiserver accepts
  // replicas up to 2^31-1, which a real cluster's quotas and nodes stop long before; the sim
  // stops here, so that one small object cannot take its memory.
  int64_t max_pods_per_workload = 10000;
  std::vector<NodePool> nodes{NodePool{}};
  std::string node_cpu = "8";
  std::string node_memory = "32Gi";
  int node_pods = 110;
  std::map<std::string, std::string> node_resources;  // extended resources of every node
  // Nodes are labelled topology.kubernetes.io/zone=zone-<i>, round robin over this many zones
  // (0: no zone labels).
  int zones = 0;
  Faults faults;
  // --authorization rbac: requests are authorized by the cluster's RBAC objects (rbac.h);
  // otherwise every authenticated user may do everything.
  bool rbac = false;
  // How long node configuration waits before it starts on a node, and how long a node is
  // NotReady while it reboots into its configuration (--configure-delay).
  std::chrono::milliseconds configure_delay{2000};
  // The Kubernetes minor version whose API is served (--api-level; Catalog::builtin).
  int api_minor = 37;
  std::chrono::milliseconds reboot_time{500};
  // The seed of the scheduler's draws between equally good nodes (--scheduler-seed).
  uint64_t scheduler_seed = 1;
};

// A cluster's objects as saved by --state-dir.
struct Snapshot {
  uint64_t resource_version = 0;
  std::vector<std::pair<std::string, boost::json::object>> objects;  // storage key, object
};

class Controllers;
namespace sched {
class Scheduler;
}

class Cluster {
 public:
  // A new cluster starts with the namespaces and nodes of a fresh kube-apiserver; a restored
  // one with the objects of `restored`. Either way its controllers then catch up with every
  // object (they are level-based).
  Cluster(std::string name, ClusterOptions options, Environment env, AuditLog* audit,
          const Snapshot* restored = nullptr);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  const std::string& name() const { return name_; }
  const ClusterOptions& options() const { return options_; }
  Faults& faults() { return options_.faults; }
  // Ends every watch stream it serves (its API server stopped: Faults::down).
  void end_watches();
  Store& store() { return store_; }
  const Catalog& catalog() const { return catalog_; }
  const Environment& environment() const { return env_; }
  AuditLog* audit() const { return audit_; }

  // Creates a CRD that is Established at once (what a cluster starts with).
  void install_crd(boost::json::object crd);
  // Serves (or, with none, stops serving) the resource types of an aggregated API under `key`
  // (aggregated_apis.h).
  void serve_aggregated(const std::string& key, std::vector<ResourceType> types);
  // Ends every watch stream: the cluster is going away.
  void shutdown();

  // True for requests that only a streaming response can answer (?watch=true, /watch/ paths).
  static bool is_watch(const Request& req);
  // True for requests that change state (the sim's write latency applies to them).
  static bool is_write(const Request& req);

  Response handle(const Request& req);
  // Impersonate-User / Impersonate-Group: checks that `req`'s user may impersonate (with RBAC),
  // then makes the request the impersonated user's. An error response when it may not.
  std::optional<Response> impersonate(Request& req, const std::string& user,
                                      const std::vector<std::string>& groups) const;
  // A request from inside the sim (its controllers, its provisioner) as `user`, with `agent` as
  // the user agent (the default field manager is its program name). It goes through everything
  // a client's request does: validation, managedFields, the audit log, watches.
  Response call(std::string method, std::string path, std::string content_type,
                const boost::json::object& body, std::string user, std::string agent,
                std::map<std::string, std::string> query = {});
  // Starts a watch; returns an error response instead when it cannot (a 410 for an expired
  // resourceVersion is a frame, as a real server sends it). `id` receives the watch's id, or 0
  // when the stream already finished.
  std::optional<Response> watch(const Request& req, std::shared_ptr<WatchSink> sink, uint64_t* id);
  // Stops a watch whose client went away. Unknown ids are ignored.
  void cancel_watch(uint64_t id);

 private:
  struct Target;
  struct WatchState;
  friend struct Handler;

  ClusterOptions options_;
  Environment env_;
  AuditLog* audit_;
  std::string name_;
  Catalog catalog_;
  std::map<std::string, std::string> aggregated_;  // serve_aggregated's key -> what it serves
  Store store_;
  std::map<uint64_t, std::shared_ptr<WatchState>> watches_;
  std::shared_ptr<bool> alive_;
  bool bookmarks_scheduled_ = false;
  uint64_t next_cluster_ip_ = 10;
  uint64_t next_node_port_ = 0;
  std::unique_ptr<Controllers> controllers_;
  std::unique_ptr<sched::Scheduler> scheduler_;
};

}  // namespace planter::sim
