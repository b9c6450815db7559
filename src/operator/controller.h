// The Seed controller: watches Seeds and plants each one, level-based.
//
// On start and on every change of a Seed, it compares what the Seed asks for (its generation and
// replant token) with what it is doing, and starts planting when they differ. Planting runs the
// engine (src/plant) on one of a few planting workers; the engine reads the clusters and declares
// with server-side apply, which is idempotent, so a restarted operator simply plants again and
// finds what is already declared. Nothing the controller keeps in memory is needed after a
// restart: the Seed's status (observedGeneration, the replant token it last planted) says what
// was done.
//
// Identity: a Seed's objects are written on the management cluster as its service account
// (impersonation); admin objects (planter.nephio.org/user: admin) as the operator itself when the
// Seed's namespace is one of --admin-namespaces. Status, Events and finalizers are the operator's.
//
// Failover: the planter Clusters are watched too; when a cluster a Seed's choice of clusters
// holds is tainted so that the choice gives it up (planter.nephio.org/unreachable, which
// cluster_health.h sets, once its tolerationSeconds end), the Seed is planted again: the choice
// takes another cluster for that share and the Seed's status records it.
//
// Threads: one worker for the queue of Seeds to look at; a fixed pool of planting workers
// (ControllerOptions::workers) that plant and uproot Seeds a slice at a time, so a Seed that waits
// long holds no worker between slices; one status writer (at most one write per Seed per second,
// at once on a phase change).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/log.h"
#include "kube/client.h"
#include "operator/cluster_health.h"
#include "operator/metrics.h"
#include "operator/seed_resource.h"
#include "plant/engine.h"

namespace planter::op {

struct ControllerOptions {
  std::string watch_namespace;  // empty: every namespace
  std::string plugin_dir;       // where spec.plugins are found
  std::vector<std::string> admin_namespaces;
  // On workload clusters, a Seed's objects are written as its service account (impersonated with
  // the credentials of the cluster's kubeconfig); false: as those credentials themselves.
  bool workload_impersonation = true;
  SourceLimits sources;
  kube::ClientOptions client;
  std::string identity;  // this replica, for Events
  std::chrono::milliseconds status_interval{1000};
  // A Seed that failed is planted again after this backoff (doubling up to retry_max).
  std::chrono::milliseconds retry_min{30'000};
  std::chrono::milliseconds retry_max{300'000};
  size_t status_units_max = 20;  // units listed in status.notDeclared
  // Seeds planted (or uprooted) at once; each holds a worker for at most `slice`, then yields it
  // while it still waits, and goes on after a pause (slice_pool.h).
  size_t workers = 16;
  std::chrono::milliseconds slice{30'000};
  // Seeds whose source is a URL are fetched first, on these workers of their own (so that a
  // server that trickles holds no planting worker), each fetch bounded by `slice`; tenants
  // (namespaces) take turns on both pools.
  size_t fetchers = 8;
  // Seeds are split into this many shards by a stable hash (shards.h); start() says which one
  // this replica plants.
  uint32_t shards = 1;
  // Probing the workload clusters and tainting those that do not answer (cluster_health.h), on
  // the replica of shard 0; the failover of every replica's Seeds follows the taints.
  ClusterHealthOptions cluster_health;
  // Keep each Seed's plan once its run ended (the dashboard shows it, and the run's timeline):
  // a planted Seed then costs its plan as well as its records.
  bool keep_last_plan = false;
};

class Controller {
 public:
  Controller(kube::RestConfig config, ControllerOptions options, Metrics& metrics,
             const daemon::Log& log);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Starts watching Seeds (and working on those of `shard`, of ControllerOptions::shards). An
  // error when the client cannot be made.
  Result<bool> start(uint32_t shard = 0);
  // Stops every planting (nothing is lost: planting again resumes it) and the watch.
  void stop();
  bool synced() const;
  Metrics::Gauges gauges() const;

  // What the dashboard shows (dashboard.h), copied under the runs' locks: each Seed this replica
  // has looked at, and one Seed's plan with its units' records as its run last had them.
  struct SeedView {
    std::string key;  // "ns/name"
    std::string phase, reason, message;
    size_t units = 0, declared = 0;
    uint64_t version = 0;  // of its units' records: another one when any of them changed
  };
  std::vector<SeedView> seeds() const;
  struct SeedRunView {
    SeedView seed;
    std::shared_ptr<const Plan> plan;  // null while it has none (being fetched, planned, idle)
    std::vector<plant::UnitRecord> records;  // left empty when the version is `known`
    // On the run's clock: where its records count time from, and where its last slice ended.
    std::chrono::steady_clock::time_point started;
    std::chrono::microseconds elapsed{0};
  };
  std::optional<SeedRunView> seed(const std::string& key,
                                  std::optional<uint64_t> known = std::nullopt) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::op
