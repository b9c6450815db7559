// What the sim's controllers share: writes through the API as their own service accounts (so
// they are validated, audited, recorded in managedFields and seen by watches like any client's),
// status updates that write only a change, conditions that keep their times while nothing
// changes, timers that die with the cluster, and a work queue of level-based reconciles.
//
// Not thread-safe: the controllers run on the server's event loop.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/api.h"
#include "sim/events.h"
#include "sim/store.h"

namespace planter::sim {

class Cluster;

class ControllerKit {
 public:
  explicit ControllerKit(Cluster& cluster);
  ~ControllerKit();
  ControllerKit(const ControllerKit&) = delete;
  ControllerKit& operator=(const ControllerKit&) = delete;

  Cluster& cluster() { return c_; }
  Store& store();
  std::string now() const;

  // A request as `component` (the service account system:serviceaccount:kube-system:<component>;
  // kubelet, kube-scheduler and kube-apiserver name their own program as field manager).
  Response write(std::string method, std::string path, std::string content_type,
                 const boost::json::object& body, std::string_view component,
                 std::map<std::string, std::string> query = {});
  // Replaces the status of a stored object (PUT <path>/status) unless it already is `status`.
  void put_status(const std::string& path, const boost::json::object& current,
                  boost::json::object status, std::string_view component);
  // A condition as controllers write it; its times stay as they were while nothing changes.
  boost::json::object condition(const boost::json::object* old_status, std::string_view type,
                                std::string_view status, std::string_view reason,
                                std::string_view message, bool update_time = false) const;
  // A "ready" line in the audit log (available, endpoints-ready, active, complete).
  void ready_event(const std::string& object_id, std::string_view what);
  // Events recorded as `component` (one recorder per component).
  EventRecorder& events(const std::string& component);

  // Runs `fn` on the event loop after `delay`, unless the controllers are gone by then.
  void after(std::chrono::milliseconds delay, std::function<void()> fn);
  // Calls `fn` synchronously for every change of a resource, until the controllers go.
  void watch(const std::string& storage_key, std::function<void(const Change&)> fn);

 private:
  Cluster& c_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::vector<uint64_t> watch_ids_;
  std::map<std::string, std::unique_ptr<EventRecorder>> recorders_;
};

// Keys ("namespace", "name") waiting to be reconciled: each at most once per turn of the event
// loop, however many changes named it.
class WorkQueue {
 public:
  using Reconcile = std::function<void(const std::string& ns, const std::string& name)>;
  WorkQueue(ControllerKit& kit, Reconcile reconcile);
  void add(const std::string& ns, const std::string& name);
  // Queues every object of `storage_key` now, and each one again when it changes.
  void follow(const std::string& storage_key);
  // Queues the controller owner of kind `owner_kind` of each object of `storage_key` that changes
  // (a ReplicaSet when one of its pods does).
  void follow_owned(const std::string& storage_key, const std::string& owner_kind);

 private:
  void flush();
  ControllerKit& kit_;
  Reconcile reconcile_;
  std::set<std::pair<std::string, std::string>> keys_;
  bool scheduled_ = false;
};

// The API path of a stored object of `storage_key` ("<group>/<plural>", "/<plural>" for the
// core group): /api/v1/namespaces/<ns>/pods/<name>, /apis/<group>/<version>/<plural>/<name>.
std::string object_path(std::string_view storage_key, const boost::json::object& object);

// The controller owner reference of an object: (kind, name), or empty strings.
std::pair<std::string, std::string> controller_of(const boost::json::object& object);

// A short name suffix made from `text`, in the alphabet Kubernetes uses for generated names
// ("bcdfghjklmnpqrstvwxz2456789").
std::string safe_hash(std::string_view text, size_t length);

// The hash controllers label pods with (pod-template-hash, controller-revision-hash): FNV-1a of
// the template, its decimal digits spelt in the safe alphabet, as Kubernetes computes it.
std::string template_hash(const boost::json::value& pod_template, int64_t collision_count = 0);

}  // namespace planter::sim
