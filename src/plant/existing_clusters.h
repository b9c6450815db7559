// The workload clusters that already exist: the cluster objects (planter and Cluster API
// `Cluster`) on the management cluster, read before planning so that a seed can name them and
// select them by label without defining them (see PlanOptions::existing_clusters).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client.h"
#include "kube/informer.h"
#include "model/result.h"
#include "plan/inventory.h"

namespace planter::plant {

struct ExistingClustersOptions {
  // Transient failures (refused, 429, 5xx) are retried with backoff until then.
  std::chrono::steady_clock::time_point deadline;
  // Hears once that the management cluster does not answer, with the error.
  std::function<void(const std::string&)> on_unreachable;
};

// True for a kind and version whose objects are read here as clusters: planter's and Cluster
// API's Clusters, sig-multicluster's ClusterProfiles.
bool is_cluster_kind(std::string_view api_version, std::string_view kind);

// Every cluster object of both kinds in every namespace, as ClusterInfo with from "management",
// its namespace, labels and object reference, sorted by name. A kind the cluster does not serve
// contributes none.
Result<std::vector<ClusterInfo>> read_existing_clusters(kube::Client& management,
                                                        const ExistingClustersOptions& options);
// The same through a client of its own.
Result<std::vector<ClusterInfo>> read_existing_clusters(const kube::RestConfig& management,
                                                        const kube::ClientOptions& client,
                                                        const ExistingClustersOptions& options);

// The same kept up to date by watches, for a process that plans again and again (the operator,
// a plan per Seed and per change: 1,000 Seeds on a management cluster of 500 clusters listed
// 500,000 cluster objects). Each kind's versions are all watched; read() takes each kind's first
// served one, as read_existing_clusters does. What it reads is as of the watch, which may not have
// seen a cluster object created a moment before the Seed: a plan that fails on it should be made
// again from read_existing_clusters before it is reported.
class WatchedClusters {
 public:
  // Hears the name of each cluster object added, changed or deleted, of any kind and version
  // (on a watch's thread).
  using OnChange = std::function<void(const std::string& name)>;
  // Starts watching through `management`, which must outlive this.
  explicit WatchedClusters(kube::Client& management, OnChange on_change = {});
  ~WatchedClusters();
  WatchedClusters(const WatchedClusters&) = delete;
  WatchedClusters& operator=(const WatchedClusters&) = delete;
  // The clusters, sorted by name, once every kind has listed or is known not to be served; none
  // before (read them with read_existing_clusters meanwhile).
  std::optional<std::vector<ClusterInfo>> read() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::plant
