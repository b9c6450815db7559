#include "plant/existing_clusters.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

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

}  // namespace

bool is_cluster_kind(std::string_view api_version, std::string_view kind) {
  for (const ClusterKind& k : kClusterKinds)
    if (k.kind == kind &&
        std::find(k.versions.begin(), k.versions.end(), api_version) != k.versions.end())
      return true;
  return false;
}

namespace {

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

// Appends the cluster `item` (of `kind` at `api_version`) stands for, unless it names none.
void add_cluster(std::vector<ClusterInfo>& out, const std::string& api_version,
                 const std::string& kind, const json::object& item) {
  std::string name = string_field(item, {"metadata", "name"});
  std::string ns = string_field(item, {"metadata", "namespace"});
  if (name.empty() || ns.empty()) return;
  if (kind == "ClusterProfile" &&
      std::any_of(out.begin(), out.end(), [&](const ClusterInfo& c) { return c.name == name; }))
    return;  // the profile of a cluster known by its Cluster object
  ObjectRef ref{api_version, kind, ns, name};
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

void sort_by_name(std::vector<ClusterInfo>& out) {
  std::stable_sort(out.begin(), out.end(),
                   [](const ClusterInfo& a, const ClusterInfo& b) { return a.name < b.name; });
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
      for (const json::object& item : list->items) add_cluster(out, api_version, kind.kind, item);
      break;
    }
  }
  sort_by_name(out);
  return out;
}

Result<std::vector<ClusterInfo>> read_existing_clusters(const kube::RestConfig& management,
                                                        const kube::ClientOptions& client,
                                                        const ExistingClustersOptions& options) {
  auto made = kube::Client::create(management, client);
  if (!made) return made.error();
  return read_existing_clusters(*made.value(), options);
}

// Per cluster kind (kClusterKinds' order), an informer per version in its order; `built` is what
// read() last made of them, good while no informer has changed since (`generation`).
struct WatchedClusters::Impl {
  struct Watch {
    std::string api_version, kind;
    std::unique_ptr<kube::Informer> informer;
    bool synced = false, unserved = false;  // under mu
  };
  std::vector<std::vector<std::unique_ptr<Watch>>> kinds;
  OnChange on_change;
  mutable std::mutex mu;
  uint64_t generation = 0;
  mutable std::optional<std::vector<ClusterInfo>> built;
  mutable uint64_t built_at = 0;

  void changed(const json::object& cluster) {
    {
      std::lock_guard lock(mu);
      ++generation;
    }
    if (on_change) on_change(string_field(cluster, {"metadata", "name"}));
  }
};

WatchedClusters::WatchedClusters(kube::Client& management, OnChange on_change)
    : impl_(std::make_unique<Impl>()) {
  Impl* impl = impl_.get();
  impl->on_change = std::move(on_change);
  for (const ClusterKind& kind : kClusterKinds) {
    auto& versions = impl_->kinds.emplace_back();
    for (const std::string& api_version : kind.versions) {
      auto w = std::make_unique<Impl::Watch>();
      Impl::Watch* wp = w.get();
      w->api_version = api_version;
      w->kind = kind.kind;
      kube::InformerHandlers h;
      h.added = [impl](const json::object& o) { impl->changed(o); };
      h.updated = [impl](const json::object&, const json::object& now) { impl->changed(now); };
      h.deleted = h.added;
      h.synced = [impl, wp] {
        std::lock_guard lock(impl->mu);
        wp->synced = true;
        wp->unserved = false;
        ++impl->generation;
      };
      h.failed = [impl, wp](const kube::ApiError& e) {
        if (!e.kind_unknown()) return;
        std::lock_guard lock(impl->mu);
        wp->unserved = true;
        ++impl->generation;
      };
      w->informer = std::make_unique<kube::Informer>(
          management, kube::ResourceQuery{api_version, kind.kind, "", "", ""}, std::move(h));
      versions.push_back(std::move(w));
    }
  }
  for (auto& versions : impl_->kinds)
    for (auto& w : versions) w->informer->start();
}

WatchedClusters::~WatchedClusters() {
  for (auto& versions : impl_->kinds)
    for (auto& w : versions) w->informer->stop();
}

std::optional<std::vector<ClusterInfo>> WatchedClusters::read() const {
  std::lock_guard lock(impl_->mu);
  if (impl_->built && impl_->built_at == impl_->generation) return impl_->built;
  std::vector<ClusterInfo> out;
  for (const auto& versions : impl_->kinds)
    for (const auto& w : versions) {
      if (w->unserved) continue;  // not served: the next version
      if (!w->synced) return std::nullopt;
      w->informer->for_each(
          [&](const json::object& item) { add_cluster(out, w->api_version, w->kind, item); });
      break;
    }
  sort_by_name(out);
  impl_->built = std::move(out);
  impl_->built_at = impl_->generation;
  return impl_->built;
}

}  // namespace planter::plant
