#include "plant/existing_clusters.h"

#include <fmt/format.h>

#include <algorithm>

#include "kube/retry.h"
#include "model/label_selector.h"
#include "model/object.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

// The cluster kinds, each with the versions tried in order (the first served is read): planter's
// and Cluster API's Clusters, then sig-multicluster's ClusterProfiles (KEP-4322), whose clusters
// are candidates like the others unless a Cluster of the same name already is one.
struct ClusterKind {
  std::string kind;
  std::vector<std::string> versions;
};
const ClusterKind kClusterKinds[] = {
    {"Cluster", {"planter.nephio.org/v1alpha1"}},
    {"Cluster", {"cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"}},
    {"ClusterProfile", {"multicluster.x-k8s.io/v1alpha1"}},
};

// A ClusterProfile's status.properties ([{name, value}], KEP-4322), for preferences'
// property:NAME; the first 256, each name and value a string.
Labels profile_properties(const json::object& profile) {
  Labels out;
  const json::value* list = find_path(profile, {"status", "properties"});
  if (!list || !list->is_array()) return out;
  for (const json::value& p : list->as_array()) {
    if (out.size() >= 256) break;
    const json::object* o = p.if_object();
    const json::value* name = o ? o->if_contains("name") : nullptr;
    const json::value* value = o ? o->if_contains("value") : nullptr;
    if (name && name->is_string() && value && value->is_string())
      out.emplace(std::string(name->as_string()), std::string(value->as_string()));
  }
  return out;
}

}  // namespace

Result<std::vector<ClusterInfo>> read_existing_clusters(kube::Client& management,
                                                        const ExistingClustersOptions& options) {
  std::vector<ClusterInfo> out;
  bool told = false;  // that the management cluster does not answer: once
  auto unreachable = [&](const kube::ApiError& e) {
    if (!told && options.on_unreachable) options.on_unreachable(e.str());
    told = true;
  };
  for (const ClusterKind& kind : kClusterKinds) {
    for (const std::string& api_version : kind.versions) {
      auto list = kube::retry_transient(
          [&] {
            return management.list({api_version, kind.kind, "", "", ""});
          },
          options.deadline, unreachable);
      if (!list && list.error().kind_unknown()) continue;  // not served: try the next version
      if (!list)
        return Error{fmt::format("cannot list {} {} objects: {}", api_version, kind.kind,
                                 list.error().str())};
      for (const json::object& item : list->items) {
        std::string name = string_field(item, {"metadata", "name"});
        std::string ns = string_field(item, {"metadata", "namespace"});
        if (name.empty() || ns.empty()) continue;
        if (kind.kind == "ClusterProfile" &&
            std::any_of(out.begin(), out.end(),
                        [&](const ClusterInfo& c) { return c.name == name; }))
          continue;  // the profile of a cluster known by its Cluster object
        ObjectRef ref{api_version, kind.kind, ns, name};
        const json::value* labels = find_path(item, {"metadata", "labels"});
        out.push_back({std::move(name),
                       "management",
                       std::move(ns),
                       std::nullopt,
                       {},
                       labels_of(labels ? labels->if_object() : nullptr),
                       std::move(ref),
                       read_cluster_taints(item),
                       profile_properties(item)});
      }
      break;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ClusterInfo& a, const ClusterInfo& b) { return a.name < b.name; });
  return out;
}

Result<std::vector<ClusterInfo>> read_existing_clusters(const kube::RestConfig& management,
                                                        const kube::ClientOptions& client,
                                                        const ExistingClustersOptions& options) {
  auto made = kube::Client::create(management, client);
  if (!made) return made.error();
  return read_existing_clusters(*made.value(), options);
}

}  // namespace planter::plant
