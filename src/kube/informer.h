// An informer: a list, then a watch from the list's resourceVersion, into a cache of objects,
// with callbacks for what changes. When the stream ends it watches again from the last
// resourceVersion it saw (bookmarks included), so nothing is missed and nothing repeats; when
// that resourceVersion has expired (410 Gone) it lists again and reports the difference as
// added/updated/deleted. Failures back off with jitter.
//
// Threads: callbacks run on the client's transport thread, one at a time, and must not block.
// The cache can be read from any thread. stop() (and the destructor) return only when no
// callback is running or will run.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kube/client.h"

namespace planter::kube {

struct InformerHandlers {
  std::function<void(const boost::json::object&)> added;
  std::function<void(const boost::json::object& before, const boost::json::object& now)> updated;
  std::function<void(const boost::json::object&)> deleted;
  // After the first list is in the cache (and after each relist).
  std::function<void()> synced;
  // A list or watch failed in a way that will not fix itself (forbidden, kind unknown); the
  // informer keeps retrying with backoff.
  std::function<void(const ApiError&)> failed;
  // What is kept of each object: called on every object listed or watched before it is cached
  // or handed to the callbacks (client-go's SetTransform), to keep what its readers read. It
  // must keep metadata.name, metadata.namespace and metadata.resourceVersion.
  std::function<void(boost::json::object&)> transform;
};

struct InformerStats {
  uint64_t lists = 0;
  uint64_t watches = 0;  // streams opened
  uint64_t gone = 0;     // 410s that forced a relist
  uint64_t events = 0;   // ADDED/MODIFIED/DELETED applied
  uint64_t bookmarks = 0;
};

// Watch streams that informers of this process opened again after one ended (a timeout, a
// dropped connection, a 410), for metrics.
uint64_t watch_restarts();

class Informer {
 public:
  Informer(Client& client, ResourceQuery query, InformerHandlers handlers);
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  void start();
  void stop();

  bool synced() const;
  // "ns/name" or "name" for cluster-scoped objects.
  std::optional<boost::json::object> get(const std::string& ns, const std::string& name) const;
  // Calls `fn` with the cached object (null when absent) under the cache's lock, without copying
  // it: `fn` must be quick and must not call back into the informer.
  void inspect(const std::string& ns, const std::string& name,
               const std::function<void(const boost::json::object*)>& fn) const;
  std::vector<boost::json::object> items() const;
  // Calls `fn` with each cached object under the cache's lock, without copying: `fn` must be
  // quick and must not call back into the informer.
  void for_each(const std::function<void(const boost::json::object&)>& fn) const;
  InformerStats stats() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace planter::kube
