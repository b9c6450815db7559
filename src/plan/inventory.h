// The clusters a seed can be placed on: the management cluster (SELF), the clusters the seed
// itself defines (planter `Cluster`, Cluster API `Cluster`), those given on the command line
// (`--cluster NAME=CONTEXT`, with `--cluster-labels NAME=k=v,...`), and the cluster objects already
// on the management cluster (read when planting, only when the seed names a cluster it does not
// define or selects clusters by label).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fit/cluster_taints.h"
#include "model/diagnostics.h"
#include "model/label_selector.h"
#include "model/object.h"

namespace planter {

inline constexpr std::string_view kSelf = "SELF";
inline constexpr uint32_t kSelfIndex = 0;  // SELF's index in Inventory::clusters()

struct ClusterInfo {
  std::string name;  // "SELF" for the management cluster
  // "self", "seed", "flag", "management" (a cluster object already on the management cluster), or
  // "unresolved" (planned offline: a name that only the management cluster can resolve)
  std::string from;
  std::string namespace_;        // the cluster object's namespace, for seed and management clusters
  std::optional<size_t> object;  // the seed's cluster object
  std::string context;           // kubeconfig context, for clusters given on the command line
  Labels labels;
  std::optional<ObjectRef> existing;      // the cluster object already on the management cluster
  std::vector<fit::ClusterTaint> taints;  // a planter Cluster's spec.taints
  // A ClusterProfile's status.properties (name -> value), for preferences' property:NAME.
  Labels properties;
};

// A planter Cluster's spec.taints (fit/cluster_taints.h); entries without a key or an effect of
// the three are left out (the Cluster CRD's schema refuses them).
std::vector<fit::ClusterTaint> read_cluster_taints(const boost::json::object& cluster);

// True for the kinds that define a cluster: planter.nephio.org Cluster and cluster.x-k8s.io
// Cluster.
bool is_cluster_definition(const ObjectRef& ref);
// True for every kind of the Cluster API groups (infrastructure, control plane, bootstrap…) and
// planter's Cluster: they all belong on the management cluster.
bool is_cluster_api_kind(const ObjectRef& ref);

// The cluster names a seed refers to that neither the seed nor `given` (--cluster,
// --cluster-labels) defines: in `planter.nephio.org/cluster(s)` annotations, --cluster-labels and
// `default_cluster`. `selects` is set when an object selects clusters by label.
struct ClusterReferences {
  std::vector<std::string> unknown;  // sorted, unique
  bool selects = false;
  // Only the management cluster's cluster objects can complete the inventory.
  bool need_existing() const { return selects || !unknown.empty(); }
};
ClusterReferences cluster_references(const std::vector<Object>& objects,
                                     const std::vector<ClusterInfo>& given,
                                     std::string_view default_cluster);

class Inventory {
 public:
  // SELF, then the seed's cluster objects in seed order, then `given` (the management cluster's
  // cluster objects that the seed does not define, then --cluster flags). `offline`: the management
  // cluster was not read, so a name nobody defines is an "unresolved" cluster, not an error.
  // Problems (two clusters with one name) go to diags.
  static Inventory build(const std::vector<Object>& objects, std::vector<ClusterInfo> given,
                         Diagnostics& diags, bool offline = false);

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
  // Planned without reading the management cluster (see build()).
  bool offline() const { return offline_; }

 private:
  std::vector<ClusterInfo> clusters_;
  bool offline_ = false;
};

}  // namespace planter
