#include "plant/existing_clusters.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "model/object.h"
#include "plan/label_selector.h"

namespace planter::plant {

namespace json = boost::json;

namespace {

// The cluster kinds, each with the versions tried in order (the first served is read).
struct ClusterKind {
  std::vector<std::string> versions;
};
const ClusterKind kClusterKinds[] = {
    {{"planter.nephio.org/v1alpha1"}},
    {{"cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1"}},
};

// One list, retried while the failure is transient and time remains.
kube::ApiResult<kube::ObjectList> list_retrying(kube::Client& client,
                                                const kube::ResourceQuery& query,
                                                const ExistingClustersOptions& options,
                                                bool& told) {
  std::chrono::milliseconds backoff{200};
  for (;;) {
    auto list = client.list(query);
    if (list || !list.error().transient() ||
        std::chrono::steady_clock::now() + backoff >= options.deadline)
      return list;
    if (!told && options.on_unreachable) options.on_unreachable(list.error().str());
    told = true;
    std::this_thread::sleep_for(backoff);
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5'000));
  }
}

}  // namespace

Result<std::vector<ClusterInfo>> read_existing_clusters(kube::Client& management,
                                                        const ExistingClustersOptions& options) {
  std::vector<ClusterInfo> out;
  bool told = false;
  for (const ClusterKind& kind : kClusterKinds) {
    for (const std::string& api_version : kind.versions) {
      auto list = list_retrying(management, {api_version, "Cluster", "", "", ""}, options, told);
      if (!list && list.error().kind_unknown()) continue;  // not served: try the next version
      if (!list)
        return Error{
            fmt::format("cannot list {} Cluster objects: {}", api_version, list.error().str())};
      for (const json::object& item : list->items) {
        const json::object* meta =
            item.if_contains("metadata") ? item.at("metadata").if_object() : nullptr;
        const auto* name = string_in(meta, "name");
        const auto* ns = string_in(meta, "namespace");
        if (!name || !ns) continue;
        const json::object* labels =
            meta->if_contains("labels") ? meta->at("labels").if_object() : nullptr;
        ObjectRef ref{api_version, "Cluster", std::string(*ns), std::string(*name)};
        out.push_back({std::string(*name),
                       "management",
                       std::string(*ns),
                       std::nullopt,
                       {},
                       labels_of(labels),
                       std::move(ref)});
      }
      break;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ClusterInfo& a, const ClusterInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace planter::plant
