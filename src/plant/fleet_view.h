// The engine's view of the fleet: one client per cluster, watch caches (informers) of the kinds
// the engine reads, and the links to workload clusters.
//
// A cluster given up front (the management cluster, `--cluster NAME=CONTEXT`) is linked as soon
// as its API answers. A workload cluster the seed creates, or whose cluster object is already on
// the management cluster, is linked when its cluster object (planter or Cluster API `Cluster`,
// watched on the cluster it is declared on) says it is provisioned, its kubeconfig can be read (a
// Secret, or the proof of concept's kubeconfigUrl), and its API answers. Until then watches asked
// for on it are remembered and started on link.
//
// Threads: every method runs on the EventLoop's thread; so do the handlers. Informers' callbacks
// arrive on the clients' transport threads and are posted to the loop.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kube/client.h"
#include "kube/informer.h"
#include "plan/plan.h"
#include "plant/event_loop.h"
#include "plant/fleet.h"
#include "plant/fleet_cache.h"
#include "plant/readiness_check.h"

namespace planter::plant {

class FleetView : public Fleet {
 public:
  // `known`: RestConfigs of the clusters given up front, by name ("SELF" included).
  FleetView(EventLoop& loop, const Plan& plan, std::map<std::string, kube::RestConfig> known,
            kube::ClientOptions options, FleetHandlers handlers);
  ~FleetView();
  FleetView(const FleetView&) = delete;
  FleetView& operator=(const FleetView&) = delete;

  // Connects the known clusters and starts watching the seed's cluster objects.
  void start() override;
  // Stops every watch; no handler runs afterwards. The clients stay until destruction.
  void stop() override;

  Link link(const std::string& cluster) const override;
  // Why a cluster is not linked yet: "Cluster/fleet/edge1: phase is Provisioning", "waiting for
  // its API to answer".
  std::string link_status(const std::string& cluster) const override;
  kube::Client* client(const std::string& cluster);
  // The client that writes `unit` on its cluster: client(), or one impersonating the
  // WriteIdentity (on the management cluster; on workload clusters too when it says so). Null
  // while the cluster is not linked, or when no impersonating client can be made.
  kube::Client* writer(const Unit& unit);
  bool apply(const Unit& unit, boost::json::object body, kube::ApplyOptions options,
             kube::Client::ObjectDone done) override;
  bool remove(const Unit& unit, const ObjectRef& ref, kube::DeleteOptions options,
              kube::Client::ObjectDone done) override;
  void set_write_identity(WriteIdentity identity) { write_identity_ = std::move(identity); }
  // Clusters are linked through `cache`'s clients (those given up front, and workload clusters
  // reached through their kubeconfig), and the watches it shares are its (fleet_cache.h).
  // Before start().
  void set_cache(FleetCache* cache) { cache_ = cache; }

  // Watches a kind on a cluster (all namespaces, or one namespace narrowed by a field selector).
  // Idempotent; remembered until the cluster is linked.
  void watch(const std::string& cluster, const std::string& api_version, const std::string& kind,
             const std::string& ns = "", const std::string& field_selector = "") override;
  // Not needed: the cluster's watches for its units' requirements are closed (those for the fit
  // and for links stay: they are read for other clusters' units); needed again: opened again.
  void needed(const std::string& cluster, bool needed) override;
  // A Node watched only for the fit keeps what the fit reads of it; asked for whole later, the
  // watch starts again, whole.
  void watch_for_the_fit(const std::string& cluster, const std::string& api_version,
                         const std::string& kind) override;
  // True once a watch of that kind on that cluster has listed.
  bool synced(const std::string& cluster, const std::string& api_version,
              const std::string& kind) const override;
  bool unserved(const std::string& cluster, const std::string& api_version,
                const std::string& kind) const override;
  std::optional<boost::json::object> get(const std::string& cluster, const std::string& api_version,
                                         const std::string& kind, const std::string& ns,
                                         const std::string& name) const override;
  // check_readiness() of the cached object (null when no watch has it), read in place.
  Readiness readiness(const std::string& cluster, const std::string& api_version,
                      const std::string& kind, const std::string& ns, const std::string& name,
                      const ReadinessPredicate& predicate) const override;
  std::vector<boost::json::object> items(const std::string& cluster, const std::string& api_version,
                                         const std::string& kind) const;
  // Each object of a kind on a cluster in the cache of its all-namespaces watch, read in place
  // (see kube::Informer::for_each).
  void for_each(const std::string& cluster, const std::string& api_version, const std::string& kind,
                const std::function<void(const boost::json::object&)>& fn) const override;

  // Whether `api_version` `kind` is served on a cluster, as the last check found; check_kind()
  // asks with a fresh discovery, and kind_checked reports the answer.
  KindState kind_state(const std::string& cluster, const std::string& api_version,
                       const std::string& kind) const override;
  void check_kind(const std::string& cluster, const std::string& api_version,
                  const std::string& kind) override;
  // Forgets a confirmation: the server said it does not serve the kind after all.
  void forget_kind(const std::string& cluster, const std::string& api_version,
                   const std::string& kind) override;

  struct ClusterLink;

 private:
  struct WatchEntry;
  // Whether a watch of the kind on the cluster has `flag` set (synced, unserved).
  bool any_watch(const std::string& cluster, const std::string& api_version,
                 const std::string& kind, bool WatchEntry::*flag) const;
  // `fingerprint`: what the cache keeps the client under (a kubeconfig's origin and bytes, or a
  // given configuration's kube::fingerprint); empty without a cache.
  void connect(const std::string& cluster, kube::RestConfig config,
               const std::string& fingerprint = "");
  // The cache a watch reads: its own informer, or the shared one it subscribed to.
  static const kube::Informer* informer_of(const WatchEntry& w);
  void probe(const std::string& cluster, std::chrono::milliseconds backoff);
  void add_watch(const std::string& cluster, const std::string& key, const std::string& api_version,
                 const std::string& kind, const std::string& ns, const std::string& field_selector,
                 bool fit_only, bool for_links);
  // Watches the cluster objects or kubeconfig Secrets of a namespace on their host, shared
  // through the cache when there is one: every run of a management cluster's Seeds reads them.
  void watch_for_links(const std::string& cluster, const std::string& api_version,
                       const std::string& kind, const std::string& ns);
  void start_watch(const std::string& cluster, WatchEntry& w);
  // Stops a watch's informer (or leaves the cache's), to be started again later: what the old one
  // posts after is dropped, and its readers wait for the new list.
  void close_watch(WatchEntry& w);
  void on_cluster_object(const std::string& workload);
  void read_kubeconfig(const std::string& workload);
  void check_secret_access(const std::string& workload, std::chrono::milliseconds backoff);
  // The client of the management cluster that acts as the write identity; nullptr without one.
  kube::Client* impersonating(const std::string& cluster = std::string(kSelf));
  const ClusterLink* find_link(const std::string& cluster) const;

  EventLoop& loop_;
  kube::ClientOptions options_;
  FleetHandlers handlers_;
  std::map<std::string, std::unique_ptr<ClusterLink>> links_;
  std::map<std::string, kube::RestConfig> pending_known_;  // until start()
  // cluster -> watches (the informer's key is api_version|kind|ns|field_selector)
  std::map<std::string, std::map<std::string, std::unique_ptr<WatchEntry>>> watches_;
  std::set<std::string> resting_;           // clusters no open unit reads (needed(cluster, false))
  std::map<std::string, KindState> kinds_;  // cluster|api_version|kind
  // host cluster \n object_key -> the workload cluster it leads to: its cluster object, and its
  // kubeconfig Secret once the cluster object names one.
  std::map<std::string, std::string> cluster_objects_, kubeconfig_secrets_;
  std::optional<WriteIdentity> write_identity_;
  FleetCache* cache_ = nullptr;
  // Per cluster, made on first use from its client's configuration (a new link drops it): the
  // client impersonating the WriteIdentity.
  std::map<std::string, std::unique_ptr<kube::Client>> impersonating_;
  std::shared_ptr<bool> alive_;
};

}  // namespace planter::plant
