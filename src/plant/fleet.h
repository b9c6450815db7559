// What the planting engine needs of the fleet, as an interface: links to clusters, watch caches
// and readiness, discovery of kinds, and writing a unit. FleetView (fleet_view.h) is the real one,
// over kube::Client; the engine's unit tests give it a double (tests/unit/engine_test.cpp).
//
// Threads: every method runs on the engine's EventLoop thread; so do the handlers.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <optional>
#include <string>

#include "kube/api_error.h"
#include "kube/client.h"
#include "plan/plan.h"
#include "plant/readiness_check.h"

namespace planter::plant {

// Whom the seed's objects are written as, when not the client's own identity: the operator
// impersonates a Seed's service account (Impersonate-User and -Group) on the management cluster,
// and on workload clusters when on_workload_clusters says so.
// Reads (watches, discovery) stay the client's own.
struct WriteIdentity {
  std::string user;
  std::vector<std::string> groups;
  // Workload clusters are written as the same user too (impersonated with the credentials their
  // kubeconfig gives), not as those credentials' own identity.
  bool on_workload_clusters = false;
  // Units the client's own identity writes even so (the operator's admin objects).
  std::function<bool(const Unit&)> as_self;

  // Whether `unit` is written as this identity (else as the client's own).
  bool impersonates(const Unit& unit) const {
    return (unit.cluster == kSelf || on_workload_clusters) && !(as_self && as_self(unit));
  }
  // Client options that impersonate it.
  kube::ClientOptions impersonating(kube::ClientOptions options) const {
    options.transport.impersonate_user = user;
    options.transport.impersonate_groups = groups;
    return options;
  }
};

struct FleetHandlers {
  // An object of a watched kind was added, changed or deleted: `key` is its object_key().
  std::function<void(const std::string& cluster, const std::string& key,
                     const boost::json::object& object)>
      changed;
  // A watch cache listed (first time or after a 410): everything in it may have changed.
  std::function<void(const std::string& cluster)> synced;
  // A cluster is linked (its API answered), or its link state changed.
  std::function<void(const std::string& cluster)> linked;
  // A kind's discoverability on a cluster was confirmed (or not) by a fresh discovery.
  std::function<void(const std::string& cluster, const std::string& api_version,
                     const std::string& kind)>
      kind_checked;
};

class Fleet {
 public:
  enum class KindState { kUnknown, kChecking, kServed, kMissing };
  // kFailed: its API refused us for good (credentials, certificate, URL): nothing can be
  // declared there, and the units placed on it fail with the reason.
  enum class Link { kWaiting, kConnecting, kLinked, kAbsent, kFailed };

  virtual ~Fleet() = default;

  // Connects the known clusters and starts watching the seed's cluster objects.
  virtual void start() = 0;
  // Stops every watch; no handler runs afterwards.
  virtual void stop() = 0;

  virtual Link link(const std::string& cluster) const = 0;
  bool linked(const std::string& cluster) const { return link(cluster) == Link::kLinked; }
  // Why a cluster is not linked yet: "Cluster/fleet/edge1: phase is Provisioning".
  virtual std::string link_status(const std::string& cluster) const = 0;

  // Writes `unit`'s `body` by server-side apply, as WriteIdentity says; `done` runs on a
  // transport thread (the engine posts it to its loop). False when no client can write it (the
  // cluster is not linked, or the write identity cannot be taken on); `done` then never runs.
  virtual bool apply(const Unit& unit, boost::json::object body, kube::ApplyOptions options,
                     kube::Client::ObjectDone done) = 0;
  // Deletes `unit`'s object (`ref`) with the client `apply` writes it with; `done` as there.
  virtual bool remove(const Unit& unit, const ObjectRef& ref, kube::DeleteOptions options,
                      kube::Client::ObjectDone done) = 0;

  // Watches a kind on a cluster (all namespaces, or one namespace narrowed by a field selector).
  // Idempotent; remembered until the cluster is linked.
  virtual void watch(const std::string& cluster, const std::string& api_version,
                     const std::string& kind, const std::string& ns = "",
                     const std::string& field_selector = "") = 0;
  // Whether a unit still open reads `cluster` (a requirement of its is there): the engine says
  // so as the last such unit ends and as one opens again. A fleet may close the watches nothing
  // reads then (a fleet of 5,000 clusters keeps only those still planting open), and opens them
  // again, to be listed afresh, before they are read.
  virtual void needed(const std::string& /*cluster*/, bool /*needed*/) {}
  // Watches a kind for the fit model (fit::kSnapshotKinds, all namespaces): the watch may keep
  // only what the fit reads of each object (of a Node, fit::keep_what_the_fit_reads), so that
  // candidates' nodes cost what is read of them. The same kind watched whole (watch()) is kept
  // whole, for both readers.
  virtual void watch_for_the_fit(const std::string& cluster, const std::string& api_version,
                                 const std::string& kind) {
    watch(cluster, api_version, kind);
  }
  // True once a watch of that kind on that cluster has listed.
  virtual bool synced(const std::string& cluster, const std::string& api_version,
                      const std::string& kind) const = 0;
  // True once a watch of that kind on that cluster was told the cluster serves no such kind (one
  // newer than the cluster's Kubernetes, or of a CRD not installed): it has none of them.
  virtual bool unserved(const std::string& /*cluster*/, const std::string& /*api_version*/,
                        const std::string& /*kind*/) const {
    return false;
  }
  virtual std::optional<boost::json::object> get(const std::string& cluster,
                                                 const std::string& api_version,
                                                 const std::string& kind, const std::string& ns,
                                                 const std::string& name) const = 0;
  // check_readiness() of the cached object (null when no watch has it).
  virtual Readiness readiness(const std::string& cluster, const std::string& api_version,
                              const std::string& kind, const std::string& ns,
                              const std::string& name,
                              const ReadinessPredicate& predicate) const = 0;
  // Each object of a kind on a cluster in the cache of its all-namespaces watch, read in place.
  virtual void for_each(const std::string& cluster, const std::string& api_version,
                        const std::string& kind,
                        const std::function<void(const boost::json::object&)>& fn) const = 0;

  // Whether `api_version` `kind` is served on a cluster, as the last check found; check_kind()
  // asks with a fresh discovery, and the kind_checked handler reports the answer.
  virtual KindState kind_state(const std::string& cluster, const std::string& api_version,
                               const std::string& kind) const = 0;
  virtual void check_kind(const std::string& cluster, const std::string& api_version,
                          const std::string& kind) = 0;
  // Forgets a confirmation: the server said it does not serve the kind after all.
  virtual void forget_kind(const std::string& cluster, const std::string& api_version,
                           const std::string& kind) = 0;
};

}  // namespace planter::plant
