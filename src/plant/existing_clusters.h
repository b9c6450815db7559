// The workload clusters that already exist: the cluster objects (planter and Cluster API
// `Cluster`) on the management cluster, read before planning so that a seed can name them and
// select them by label without defining them (see PlanOptions::existing_clusters).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kube/client.h"
#include "model/result.h"
#include "plan/inventory.h"

namespace planter::plant {

struct ExistingClustersOptions {
  // Transient failures (refused, 429, 5xx) are retried with backoff until then.
  std::chrono::steady_clock::time_point deadline;
  // Hears once that the management cluster does not answer, with the error.
  std::function<void(const std::string&)> on_unreachable;
};

// Every cluster object of both kinds in every namespace, as ClusterInfo with from "management",
// its namespace, labels and object reference, sorted by name. A kind the cluster does not serve
// contributes none.
Result<std::vector<ClusterInfo>> read_existing_clusters(kube::Client& management,
                                                        const ExistingClustersOptions& options);
// The same through a client of its own.
Result<std::vector<ClusterInfo>> read_existing_clusters(const kube::RestConfig& management,
                                                        const kube::ClientOptions& client,
                                                        const ExistingClustersOptions& options);

}  // namespace planter::plant
