// The objects of one simulated cluster, its resourceVersion counter, the recent change history
// that watches resume from, and the watches themselves.
//
// Not thread-safe: used from the server's event loop only. Stored objects are immutable and
// shared, so a list or a watch event never copies an object it does not change.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace planter::sim {

using StoredObject = std::shared_ptr<const boost::json::object>;

enum class EventType { kAdded, kModified, kDeleted };
const char* event_name(EventType t);

struct Change {
  uint64_t resource_version;
  EventType type;
  std::string storage_key;  // "apps/deployments"
  std::string ns;
  StoredObject object;    // the new state (the last state for kDeleted)
  StoredObject previous;  // the state before, nullptr for kAdded
};

class Store {
 public:
  explicit Store(size_t history_limit = 20000) : history_limit_(history_limit) {}

  uint64_t resource_version() const { return rv_; }

  // Objects of one resource, keyed "namespace/name" ("/name" when cluster-scoped) in the order
  // a kube-apiserver lists them.
  using Bucket = std::map<std::string, StoredObject, std::less<>>;
  const Bucket& bucket(const std::string& storage_key) const;
  StoredObject get(const std::string& storage_key, std::string_view ns,
                   std::string_view name) const;

  // Stores `object` (ADDED when new, MODIFIED otherwise) after setting its
  // metadata.resourceVersion to the next value; returns the stored object.
  StoredObject put(const std::string& storage_key, boost::json::object object);
  // Removes an object, recording a DELETED event with a fresh resourceVersion.
  StoredObject erase(const std::string& storage_key, std::string_view ns, std::string_view name);
  // Removes every object of a resource (a CRD going away).
  void erase_all(const std::string& storage_key);

  // Objects whose metadata.ownerReferences name `owner_uid`, with their storage keys (the
  // garbage collector's index, kept up to date by put and erase).
  std::vector<std::pair<std::string, StoredObject>> dependents(std::string_view owner_uid) const;

  // The watch history: changes after `rv` (oldest first). Returns false when `rv` is older than
  // the history reaches, the watch must answer 410 Gone.
  bool changes_since(uint64_t rv, const std::function<void(const Change&)>& visit) const;
  uint64_t oldest_resource_version() const;

  // Watches are called synchronously for every change, in order.
  uint64_t add_watch(std::string storage_key, std::function<void(const Change&)> on_change);
  void remove_watch(uint64_t id);

  static std::string bucket_key(std::string_view ns, std::string_view name);

  // Persistence (--state-dir): `journal` hears every change once it is made.
  void set_journal(std::function<void(const Change&)> journal) { journal_ = std::move(journal); }
  // Loads objects saved before: no history and no watch events; the counter continues from
  // `rv`, and watches from older resourceVersions get 410 Gone, as after an etcd compaction.
  void restore(std::vector<std::pair<std::string, boost::json::object>> objects, uint64_t rv);
  // Visits every stored object with its storage key (a snapshot).
  void for_each(const std::function<void(const std::string&, const StoredObject&)>& visit) const;

 private:
  void record(Change change);
  void index_owners(const std::string& storage_key, const std::string& key,
                    const boost::json::object* before, const boost::json::object* after);

  uint64_t rv_ = 1;
  size_t history_limit_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::deque<Change> history_;
  uint64_t compacted_rv_ = 1;  // changes at or below this are gone from history
  // Watches by the resource they watch, so a change is offered only to its own watchers;
  // within a resource in the order they started.
  std::unordered_map<std::string, std::map<uint64_t, std::function<void(const Change&)>>> watches_;
  std::unordered_map<uint64_t, std::string> watch_keys_;  // id -> storage key
  // owner uid -> (storage key, bucket key) of its dependents
  std::unordered_map<std::string, std::set<std::pair<std::string, std::string>>> dependents_;
  uint64_t next_watch_ = 1;
  std::function<void(const Change&)> journal_;
};

}  // namespace planter::sim
