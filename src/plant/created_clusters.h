// The workload clusters a seed reaches through cluster objects (the clusters it creates, and
// cluster objects already on the management cluster that it places objects on), reached before or
// after planting the way the engine links them (fleet_view.cpp): the cluster object on its host,
// its kubeconfig (a Secret, or a URL), the context it names. Diff, preflight, the inventory, prune
// and uproot then see those clusters as they see the management cluster and `--cluster` contexts.
//
// Fleets of fleets: a cluster whose object is declared on another created cluster is reached once
// that one is; the walk goes down until nothing more can be reached.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "kube/client.h"
#include "plan/plan.h"
#include "plant/fleet.h"
#include "plant/readiness_check.h"

namespace planter::plant {

// The clusters the plan puts something on, or may (a cluster choice's candidates).
std::set<std::string_view> clusters_in_use(const Plan& plan);
// The cluster a cluster object of the seed is declared on (SELF for one already on the management
// cluster).
std::string host_of(const Plan& plan, const ClusterInfo& info);

// Reading a workload cluster's kubeconfig from where its cluster object says it is
// (KubeconfigLocation), shared by the engine's links (fleet_view.cpp) and the reach below; each
// error is in the words the link states show.
// The kubeconfig in a Secret's data under the location's key.
Result<std::string> kubeconfig_in_secret(const boost::json::object& secret,
                                         const KubeconfigLocation& where);
// The kubeconfig at the location's URL (http(s), file:// or a path).
Result<std::string> kubeconfig_at_url(const KubeconfigLocation& where);
// The client configuration of the context the location names, from the kubeconfig's bytes.
Result<kube::RestConfig> kubeconfig_rest_config(const std::string& bytes, const std::string& origin,
                                                const KubeconfigLocation& where);

struct CreatedClustersOptions {
  kube::ClientOptions client;
  // The operator's impersonation: a kubeconfig Secret on the management cluster is read as this
  // identity, so a Seed reaches no cluster whose credentials its service account may not read.
  std::optional<WriteIdentity> write_as;
  // Transient failures are retried until then; a cluster still unanswered is not reached.
  std::chrono::steady_clock::time_point deadline;
  // Cluster names to try besides the plan's own (what an inventory says the seed planted on).
  std::set<std::string> also;
};

struct CreatedClusters {
  std::map<std::string, kube::RestConfig> reached;
  // A cluster not reached, and why in a person's words ("Cluster default/edge1 does not exist
  // yet", "Cluster default/edge1: phase is Provisioning", "... will not be provisioned: ...").
  std::map<std::string, std::string> not_reached;
  // Of those, the clusters whose cluster object is not there at all: nothing can be on them.
  std::set<std::string> gone;
};

// Reaches every cluster of `plan` defined by a cluster object (seed or management) that is not in
// `reachable` already, on which the plan places something, or that the seed defines.
CreatedClusters reach_created_clusters(const Plan& plan,
                                       const std::map<std::string, kube::RestConfig>& reachable,
                                       const CreatedClustersOptions& options);

}  // namespace planter::plant
