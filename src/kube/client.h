// A Kubernetes client for one cluster: discovery and REST mapping, the verbs planter uses, and
// watch streams. Built on Transport (rate limit, retries, HTTP/2) and CredentialSource.
//
// Objects are Boost.JSON objects, identified by apiVersion + kind (+ namespace + name); the
// REST mapper turns that into a path. A mapping miss refreshes discovery, at most once per
// `discovery_refresh`, so a kind appears as soon as its CRD is established; still missing, the
// error is `kind_unknown()` ("no matches for kind").
//
// Every verb has an asynchronous form (the callback runs on the transport thread and must not
// block; a request that fails before anything is sent, a kind discovery has just been asked
// about in vain, is answered at once on the calling thread) and a synchronous one (callable from
// any thread but the transport's; called from there it returns an error instead of deadlocking). A
// namespaced kind without a namespace gets the context's namespace, as kubectl does.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kube/api_error.h"
#include "kube/discovery.h"
#include "kube/kubeconfig.h"
#include "kube/transport.h"
#include "kube/watch_event.h"

namespace planter::kube {

// What discovery found, kept for the clients a process makes of the same servers (the operator
// makes clients per Seed and per step, of the same clusters): a new client maps kinds from the
// table another client found less than `fresh_for` ago instead of asking again. A kind the table
// lacks is asked for as always (a fresh discovery), so a CRD installed since is found; a kind no
// longer served fails its request, as it does with any client's older table. Thread-safe.
class DiscoveryCache {
 public:
  explicit DiscoveryCache(std::chrono::milliseconds fresh_for) : fresh_for_(fresh_for) {}
  // The table found for `key` (a server and who asks) if fresh, else null.
  std::shared_ptr<const RestMapper::Table> find(const std::string& key) const;
  void keep(const std::string& key, std::shared_ptr<const RestMapper::Table> table);

 private:
  struct Kept {
    std::shared_ptr<const RestMapper::Table> table;
    std::chrono::steady_clock::time_point at;
  };
  std::chrono::milliseconds fresh_for_;
  mutable std::mutex mu_;
  std::map<std::string, Kept> kept_;
};

struct ClientOptions {
  TransportOptions transport;
  std::chrono::milliseconds discovery_refresh{500};  // the shortest time between refreshes
  std::shared_ptr<DiscoveryCache> discovery_cache;   // none: each client discovers for itself
};

// `options` for a client that can only read and dry-run (TransportOptions::read_only).
inline ClientOptions read_only(ClientOptions options) {
  options.transport.read_only = true;
  return options;
}

// What a list or watch is about. An empty `ns` on a namespaced kind means all namespaces.
struct ResourceQuery {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string label_selector;
  std::string field_selector;
};

struct ObjectList {
  std::vector<boost::json::object> items;
  std::string resource_version;  // of the list, to watch from
};

struct ApplyOptions {
  std::string field_manager = "planter";
  bool force = false;
  bool dry_run = false;
  // fieldValidation: "Strict" refuses a field the schema does not know (400) instead of pruning
  // it with a warning; empty: the server's default (Warn).
  std::string field_validation;
  // Called just before the answer, on the transport's thread, with how long the request was on
  // the wire (curl's total time of its last attempt) and the HTTP status (an apply's 201 says
  // it created the object, 200 that it was there); not called when no answer came.
  std::function<void(std::chrono::microseconds on_wire, int status)> on_answer;
};

struct DeleteOptions {
  std::string propagation_policy;  // Foreground, Background, Orphan; empty: the kind's default
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
};

class Client {
 public:
  using ObjectDone = std::function<void(ApiResult<boost::json::object>)>;
  using ListDone = std::function<void(ApiResult<ObjectList>)>;
  using ResourceDone = std::function<void(ApiResult<ApiResource>)>;

  static Result<std::unique_ptr<Client>> create(RestConfig config, ClientOptions options = {});
  ~Client();

  const RestConfig& config() const;
  Transport& transport();

  // --- discovery -------------------------------------------------------------------------
  void resource_async(std::string api_version, std::string kind, ResourceDone done);
  ApiResult<ApiResource> resource(std::string_view api_version, std::string_view kind);
  // Like resource_async, but from a discovery made after this call (a forced refresh; refreshes
  // asked for together share one): for when the caller knows the server serves something new,
  // such as a CRD that has just become Established.
  void rediscover_async(std::string api_version, std::string kind, ResourceDone done);
  // Whether the last discovery came from the aggregated document.
  bool aggregated_discovery() const;
  int discovery_refreshes() const;

  // --- verbs (synchronous) -----------------------------------------------------------------
  ApiResult<boost::json::object> get(const std::string& api_version, const std::string& kind,
                                     const std::string& ns, const std::string& name);
  // Follows `continue` until the end; `page_size` objects per request.
  ApiResult<ObjectList> list(const ResourceQuery& query, int page_size = 500);
  // Server-side apply of the whole object (application/apply-patch+yaml, as JSON).
  ApiResult<boost::json::object> apply(const boost::json::object& object,
                                       const ApplyOptions& options = {});
  // The same against the status subresource.
  ApiResult<boost::json::object> apply_status(const boost::json::object& object,
                                              const ApplyOptions& options = {});
  ApiResult<boost::json::object> create(const boost::json::object& object);
  // POST pods/<pod>/binding: binds a pod to a node, as a scheduler does.
  ApiResult<boost::json::object> bind(const std::string& ns, const std::string& pod,
                                      const std::string& node);
  // PUT; with metadata.resourceVersion set a stale object is a conflict().
  ApiResult<boost::json::object> update(const boost::json::object& object);
  ApiResult<boost::json::object> update_status(const boost::json::object& object);
  ApiResult<boost::json::object> merge_patch(const std::string& api_version,
                                             const std::string& kind, const std::string& ns,
                                             const std::string& name,
                                             const boost::json::object& patch, bool status = false);
  // Returns what the server answers: the object (with deletionTimestamp while finalizers hold
  // it) or a Success Status.
  ApiResult<boost::json::object> remove(const std::string& api_version, const std::string& kind,
                                        const std::string& ns, const std::string& name,
                                        const DeleteOptions& options = {});

  // --- verbs (asynchronous) ----------------------------------------------------------------
  void get_async(std::string api_version, std::string kind, std::string ns, std::string name,
                 ObjectDone done);
  void list_async(ResourceQuery query, ListDone done, int page_size = 500);
  void apply_async(boost::json::object object, ApplyOptions options, ObjectDone done);
  void remove_async(std::string api_version, std::string kind, std::string ns, std::string name,
                    DeleteOptions options, ObjectDone done);

  // --- watch ------------------------------------------------------------------------------
  // Opens one watch stream from `resource_version` (empty: the server's choice) with bookmarks.
  // `on_event` runs per event; `on_end` once: ok when the server closed the stream (a timeout),
  // an error otherwise (gone() for an expired resourceVersion). Both on the transport thread.
  // Not resumed: Informer does that. Cancelling ends it with reason "Cancelled".
  class WatchHandle {
   public:
    virtual ~WatchHandle() = default;
    virtual void cancel() = 0;
  };
  std::shared_ptr<WatchHandle> watch(ResourceQuery query, std::string resource_version,
                                     std::function<void(WatchEvent)> on_event,
                                     std::function<void(ApiResult<bool>)> on_end);

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::kube
