// The clusters a seed can be placed on: the management cluster (SELF), the clusters the seed
// itself defines (planter `Cluster`, Cluster API `Cluster`), and those given on the command line
// (`--cluster NAME=CONTEXT`, with `--cluster-labels NAME=k=v,...`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/object.h"
#include "plan/label_selector.h"

namespace planter {

inline constexpr std::string_view kSelf = "SELF";
inline constexpr uint32_t kSelfIndex = 0;  // SELF's index in Inventory::clusters()

struct ClusterInfo {
  std::string name;              // "SELF" for the management cluster
  std::string from;              // "self", "seed" or "flag"
  std::string namespace_;        // the cluster object's namespace, for seed clusters
  std::optional<size_t> object;  // the seed's cluster object
  std::string context;           // kubeconfig context, for clusters given on the command line
  Labels labels;
};

// True for the kinds that define a cluster: planter.nephio.org Cluster and cluster.x-k8s.io
// Cluster.
bool is_cluster_definition(const ObjectRef& ref);
// True for every kind of the Cluster API groups (infrastructure, control plane, bootstrap…) and
// planter's Cluster: they all belong on the management cluster.
bool is_cluster_api_kind(const ObjectRef& ref);

class Inventory {
 public:
  // SELF, then the seed's cluster objects in seed order, then `flags`. Problems (two clusters with
  // one name) go to diags.
  static Inventory build(const std::vector<Object>& objects, std::vector<ClusterInfo> flags,
                         Diagnostics& diags);

  // SELF is always clusters()[0]. The planner names clusters by their index here.
  const std::vector<ClusterInfo>& clusters() const { return clusters_; }
  const ClusterInfo* find(std::string_view name) const;
  std::optional<uint32_t> index_of(std::string_view name) const;

  // Resolves one placement reference: "SELF", "name" or the proof-of-concept "namespace|name".
  // Returns the cluster's index, or an error for a person.
  Result<uint32_t> resolve(std::string_view ref) const;
  // Indices of the clusters whose labels match, ascending.
  std::vector<uint32_t> select(const LabelSelector& selector) const;
  // "SELF, edge1, edge2": for hints.
  std::string names() const;

 private:
  std::vector<ClusterInfo> clusters_;
};

}  // namespace planter
