// Failover (controller.h): the planter Clusters' taints, watched; the Seeds whose choices hold a
// cluster looked at again when its taints change, and again when a toleration of them ends; the
// Seeds resting until a cluster is linked woken when its object changes; the probes of
// cluster_health.h, on shard 0.
#include <boost/json.hpp>

#include "operator/controller_impl.h"
#include "plan/inventory.h"

namespace planter::op {

void Controller::Impl::watch_clusters() {
  kube::InformerHandlers h;
  h.added = [this](const json::object& o) { cluster_seen(o, false); };
  h.updated = [this](const json::object& before, const json::object& now) {
    if (read_cluster_taints(before) != read_cluster_taints(now)) cluster_seen(now, false);
  };
  h.deleted = [this](const json::object& o) { cluster_seen(o, true); };
  h.failed = [this](const kube::ApiError& e) {
    if (!e.kind_unknown()) log.warn("cannot watch Clusters", {{"error", e.str()}});
  };
  cluster_informer = std::make_unique<kube::Informer>(
      *client, kube::ResourceQuery{std::string(kClusterApiVersion), "Cluster", "", "", ""},
      std::move(h));
  cluster_informer->start();
  if (shard != 0) return;  // one replica probes
  health = std::make_unique<ClusterHealth>(
      *client, *cluster_informer, options.cluster_health, log,
      [this](const json::object& cluster, std::string_view type, std::string_view reason,
             const std::string& message) { cluster_event(cluster, type, reason, message); });
  health->start();
}

void Controller::Impl::cluster_seen(const json::object& cluster, bool gone) {
  std::string name = meta(cluster, "name");
  std::set<std::string> seeds;
  {
    std::lock_guard lock(fleet_mu);
    if (gone)
      taints_by_cluster.erase(name);
    else
      taints_by_cluster[name] = read_cluster_taints(cluster);
    if (auto it = holders.find(name); it != holders.end()) seeds = it->second;
  }
  for (const std::string& key : seeds) enqueue(key);
}

void Controller::Impl::wake_waiting_on(const std::string& cluster) {
  std::map<std::string, std::weak_ptr<SlicePool::Job>> seeds;
  {
    std::lock_guard lock(fleet_mu);
    auto it = waiting_on_cluster.find(cluster);
    if (it == waiting_on_cluster.end()) return;
    seeds = std::move(it->second);
    waiting_on_cluster.erase(it);
  }
  for (const auto& [key, job] : seeds)
    if (auto j = job.lock()) {
      log.info("seed woken: a cluster it waits for changed", {{"seed", key}, {"cluster", cluster}});
      planters->wake(j);
    }
}

void Controller::Impl::hold(const SeedRun& run) {
  std::set<std::string> clusters = run.left;
  if (run.choices)
    for (const auto& [_, chosen] : *run.choices) clusters.insert(chosen.begin(), chosen.end());
  hold(run.key, std::move(clusters));
}

void Controller::Impl::hold(const std::string& key, std::set<std::string> clusters) {
  std::lock_guard lock(fleet_mu);
  std::set<std::string>& before = held[key];
  for (const std::string& c : before)
    if (!clusters.contains(c)) {
      auto it = holders.find(c);
      if (it == holders.end()) continue;
      it->second.erase(key);
      if (it->second.empty()) holders.erase(it);
    }
  for (const std::string& c : clusters) holders[c].insert(key);
  before = std::move(clusters);
  if (before.empty()) held.erase(key);
}

Controller::Impl::GiveUp Controller::Impl::gives_up(const SeedRun& run) {
  GiveUp out;
  if (!run.choices) return out;
  auto now = std::chrono::system_clock::now();
  std::lock_guard lock(fleet_mu);
  static const std::vector<fit::ClusterToleration> kNone;
  for (const auto& [choice, clusters] : *run.choices) {
    auto tolerations = run.tolerations.find(choice);
    const auto& tolerates = tolerations == run.tolerations.end() ? kNone : tolerations->second;
    for (const std::string& cluster : clusters) {
      auto taints = taints_by_cluster.find(cluster);
      if (taints == taints_by_cluster.end()) continue;
      auto from = fit::given_up_from(taints->second, tolerates, now);
      if (!from) continue;
      if (*from <= now) {
        // Given up now: a NoSelect taint is not tolerated, the worst there is, which the
        // judgement names ("taint K:NoSelect is not tolerated").
        if (out.why.empty())
          out.why = fmt::format("choice {} gives up cluster {}: {}{}", choice, cluster,
                                fit::judge_taints(taints->second, tolerates, now).why,
                                tolerates.empty() ? "" : " any more");
      } else if (!out.next || *from < *out.next) {
        out.next = from;
      }
    }
  }
  for (const std::string& cluster : run.left) {
    if (!out.why.empty()) break;
    auto taints = taints_by_cluster.find(cluster);
    if (taints == taints_by_cluster.end()) continue;  // gone, or not a planter Cluster
    bool unreachable =
        std::any_of(taints->second.begin(), taints->second.end(),
                    [](const fit::ClusterTaint& t) { return t.key == fit::kUnreachableTaint; });
    if (!unreachable)
      out.why = fmt::format(
          "cluster {} answers again: pruning what the Seed left there when its choice moved",
          cluster);
  }
  return out;
}

void Controller::Impl::cluster_event(const json::object& cluster, std::string_view type,
                                     std::string_view reason, const std::string& message) {
  json::object involved{{"apiVersion", kClusterApiVersion},
                        {"kind", "Cluster"},
                        {"name", meta(cluster, "name")},
                        {"namespace", meta(cluster, "namespace")},
                        {"uid", meta(cluster, "uid")}};
  record_event(std::move(involved), type, reason, message);
}

}  // namespace planter::op
