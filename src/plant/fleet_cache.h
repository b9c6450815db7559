// What a process that plants run after run keeps of its fleet between them (the operator: a Seed
// is planted in slices, again on each change, again when a chosen cluster fails): per cluster (a
// workload cluster reached through its kubeconfig, and the management cluster), a client of the
// process's own identity, linked and discovered, and the watches every run makes alike: the fit
// model's (a Node kept as the fit reads it), the Namespaces, and the cluster objects and
// kubeconfig Secrets that lead to workload clusters; one of each however many runs read them. A run
// (FleetView) subscribes to a watch: it hears each change and each listing, and reads the shared
// cache in place. Without it, every run of a Seed choosing among 1,000 clusters would connect,
// discover, list and watch all 1,000 anew (docs/decisions.md, "A fleet kept between runs").
//
// What is kept: a cluster's client and watches while a run subscribes to one of them, or while a
// holder (a Seed whose choice of clusters has it as a candidate, or a candidate's cluster object)
// retains it. Of a cluster not retained, a watch goes with its last subscriber, and the cluster
// with the last subscriber of all. New credentials (another kubeconfig) make a new
// client; the runs subscribed through the old one keep it until they end.
//
// Threads: every method may be called from any thread. Listeners are called on a transport
// thread, one at a time per watch, and must not block (a FleetView posts to its loop); none is
// called once its Subscription is destroyed.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "kube/client.h"
#include "kube/informer.h"
#include "model/result.h"

namespace planter::plant {

class FleetCache {
 public:
  struct Listener {
    std::function<void(const boost::json::object&)> changed;  // added, updated or deleted
    std::function<void()> synced;                             // listed (and after each relist)
    std::function<void()> unserved;                           // the cluster serves no such kind
  };
  class Subscription {
   public:
    ~Subscription();
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    const kube::Informer& informer() const;
    // No listener call after it returns; the cache stays readable until destruction.
    void quiet();
    struct State;

   private:
    friend class FleetCache;
    explicit Subscription(std::shared_ptr<State> state) : state_(std::move(state)) {}
    std::shared_ptr<State> state_;
  };

  explicit FleetCache(kube::ClientOptions options);
  ~FleetCache();
  FleetCache(const FleetCache&) = delete;
  FleetCache& operator=(const FleetCache&) = delete;

  // The shared client of `cluster` for the credentials `fingerprint` stands for (its kubeconfig's
  // origin and bytes): made from `config` when none is kept, or the fingerprint changed.
  Result<std::shared_ptr<kube::Client>> client(const std::string& cluster,
                                               const std::string& fingerprint,
                                               const kube::RestConfig& config);
  // Subscribes to the watch of `kind` in `ns` (empty: all namespaces) on `cluster` through
  // `client` (what client() gave), started on first use with `transform` (what is kept of each
  // object). A listener that comes after the list hears `synced` (or `unserved`) at once, and
  // no `changed` for what was listed: it reads the cache.
  std::unique_ptr<Subscription> watch(const std::string& cluster,
                                      const std::shared_ptr<kube::Client>& client,
                                      const std::string& api_version, const std::string& kind,
                                      const std::string& ns,
                                      std::function<void(boost::json::object&)> transform,
                                      Listener listener);
  // A run is done with the client client() gave it for `cluster` (and has dropped it): the
  // cluster is let go when nothing else holds it.
  void done_with(const std::string& cluster);
  // What `holder` keeps watched between its runs (replacing what it kept before); an empty set
  // lets go of all.
  void retain(const std::string& holder, std::set<std::string> clusters);
  // Clusters kept, and watches open: for tests and metrics.
  size_t clusters() const;
  size_t watches() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace planter::plant
