// How one cluster answers one request: the Handler is made per request and reaches the
// cluster's state through `c`. Private to the sim's cluster (cluster.h's Cluster is its only
// user); each part of its work lives in a file of its own:
//
//   routing.cpp        paths to discovery, OpenAPI and resources; the verb a request asks for
//   authorization.cpp  --authorization rbac, RBAC's escalation check, impersonation
//   reads.cpp          get, list (limit/continue, selectors, Tables), the scale subresource
//   admission.cpp      identity, names, namespaces, field validation, defaulting on create,
//                      what a write may not change
//   writes.cpp         create, update, patch, server-side apply
//   deletion.cpp       delete, preconditions, garbage collection, the namespace controller
//   crd_lifecycle.cpp  CRDs: NamesAccepted, Established, served kinds, deletion; restore
//   binding.cpp        pods/binding: a scheduler assigns a pod to a node
//   watch.cpp          watch streams, bookmarks, --watch-drop
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"
#include "sim/api.h"
#include "sim/api_errors.h"
#include "sim/catalog.h"
#include "sim/cluster.h"
#include "sim/field_manager.h"
#include "sim/rbac.h"
#include "sim/selectors.h"
#include "sim/store.h"

namespace planter::sim {

namespace json = boost::json;

// ---- small JSON helpers (handler.cpp) ----

// metadata, created empty when missing.
json::object& meta_of(json::object& o);
const json::object* meta_of(const json::object& o);
bool has_finalizers(const json::object& o);
// "apiVersion|kind|namespace|name", as the audit log names objects.
std::string object_id(const json::object& o);
// The object as JSON, with apiVersion as the client asked for it (every version of a resource
// shares one stored object; CRD versions convert with strategy None).
std::string serialize_as(const json::object& obj, std::string_view api_version);
// The first document of a YAML (or JSON) body, which must be a mapping.
Result<json::object> yaml_object(std::string_view body);
std::string lower(std::string s);
// The default field manager: the user agent up to its first '/', as the apiserver derives it.
std::string default_manager(const Request& req);
// A query parameter, empty when absent.
std::string query(const Request& req, const std::string& key);
// Go's strconv.ParseBool, which the apiserver uses for boolean query parameters.
bool truthy(const std::string& v);

// ---- request targets ----

struct Cluster::Target {
  const ResourceType* type = nullptr;
  std::string ns;
  std::string name;
  std::string subresource;
  bool watch = false;
};

struct Cluster::WatchState {
  uint64_t store_id = 0;
  std::shared_ptr<WatchSink> sink;
  std::string version;  // apiVersion the client asked for
  std::string ns;
  LabelSelector labels;
  FieldSelector fields;
  bool bookmarks = false;
  bool done = false;
};

struct Handler {
  Cluster& c;
  const Request& req;

  std::chrono::system_clock::time_point now() const { return c.env_.now(); }

  Response object_response(int code, const json::object& obj, const ResourceType& t) const {
    return Response{code, "application/json", serialize_as(obj, t.api_version()), {}};
  }

  // Parses "/api/v1/..." and "/apis/<g>/<v>/...". Returns nullopt when the path is not a
  // resource path (discovery and friends are handled before).
  std::optional<Response> parse_target(Cluster::Target& t);

  Response handle();

  std::string verb_of(const Cluster::Target& t) const;

  AccessRequest access(const Cluster::Target& t, std::string verb) const;

  std::optional<Response> authorize(const Cluster::Target& t, std::string verb) const;

  // Writing a role or a binding cannot grant more than the writer holds (RBAC's escalation
  // check), unless the writer may `escalate` (roles) or `bind` (bindings).
  std::optional<Response> check_escalation(const ResourceType& t, const json::object& obj) const;

  Response get(const Cluster::Target& t);
  // A pod's log, exec, attach or portforward (pod_subresources.cpp).
  Response pod_subresource(const Cluster::Target& t);

  Response scale_of(const Cluster::Target& t, const json::object& obj);

  Response list(const Cluster::Target& t);
  // NodeMetrics and PodMetrics, computed when read (metrics_reads.cpp, resource_metrics.h).
  Response metrics_read(const Cluster::Target& t);

  // Continue tokens are opaque base64 of {"v","rv","start"}, like the apiserver's.
  static std::string encode_continue(const std::string& key, uint64_t rv);

  static Result<std::pair<std::string, uint64_t>> decode_continue(const std::string& token);

  Result<json::object> parse_body() const;

  Response body_error(const Error& e) const;

  WriteContext write_context(const ResourceType& t, std::string_view subresource) const;

  bool dry_run() const { return query(req, "dryRun") == "All"; }

  // `fieldValidation`: unknown fields of custom resources are pruned; Strict refuses them,
  // Warn (the default) reports them in Warning headers.
  std::optional<Response> validate_fields(const ResourceType& t, json::object& obj,
                                          std::vector<std::pair<std::string, std::string>>& headers,
                                          const boost::json::object* old = nullptr);

  // Checks apiVersion/kind/name/namespace of a body against the request target.
  std::optional<Response> check_identity(const Cluster::Target& t, json::object& obj,
                                         bool creating);

  std::optional<Response> check_namespace(const Cluster::Target& t);

  // Defaults a kube-apiserver sets on every new object, and the kind-specific ones clients
  // notice.
  void prepare_create(const ResourceType& t, json::object& obj);

  // The Service defaults a kube-apiserver sets: type, a cluster IP from 10.96.0.0/12 (unless
  // headless or ExternalName), IP families, session affinity.
  void allocate_cluster_ip(json::object& svc);

  // Carries what a write may not change over from the stored object.
  void carry_over(const ResourceType& t, const json::object& old, json::object& obj,
                  std::string_view subresource);

  void audit(std::string_view verb, const json::object& obj, int code);

  // Stores a new object and starts what its creation sets off.
  StoredObject commit(const ResourceType& t, json::object obj) {
    return c.store_.put(t.storage_key(), std::move(obj));
  }

  Response create(const Cluster::Target& t0);

  // `applied_ctx` non-null: a server-side apply that creates the object.
  Response create_object(Cluster::Target& t, json::object obj, std::string_view verb,
                         const WriteContext* applied_ctx);

  // Validation a user notices for specific kinds.
  std::optional<Response> validate_kind(const ResourceType& t, const json::object& obj);

  Response update(const Cluster::Target& t);

  // The DefaultStorageClass admission plugin: a claim without storageClassName gets the class
  // annotated storageclass.kubernetes.io/is-default-class; volumeMode Filesystem.
  void default_claim(json::object& pvc) const;

  // POST pods/<name>/binding, or POST bindings naming the pod (binding.cpp): assigns the pod to
  // the Binding's target node, once.
  Response bind_pod(const Cluster::Target& t);

  // POST selfsubjectreviews (self_subject_review.cpp): who the caller is, for any authenticated
  // user.
  Response self_subject_review();

  Response update_scale(const Cluster::Target& t, const json::object& old,
                        const json::object& scale);

  // The common tail of update, patch and apply on an existing object.
  Response write_existing(const Cluster::Target& t, const json::object& old, json::object obj,
                          std::string_view verb, bool managed_fields_done);

  Response patch(const Cluster::Target& t0);

  Response apply(Cluster::Target& t);

  Response apply_conflict(const ResourceType& t, std::string_view name,
                          const std::vector<ApplyConflict>& conflicts);

  struct DeleteOptions {
    std::string propagation;
    std::string uid, resource_version;  // preconditions
  };

  Result<DeleteOptions> delete_options() const;

  Response remove(const Cluster::Target& t);

  // Deletes (or starts deleting) one object. `respond`: build the response a DELETE returns.
  Response delete_object(const ResourceType& type, StoredObject old, std::string propagation,
                         bool respond);

  // After an object with pending finalizers loses its last one.
  void finalize_delete(const ResourceType& type, StoredObject stored);

  // Garbage collection: dependents (ownerReferences to the owner's uid) are deleted, or orphaned.
  void collect_dependents(const json::object& owner, const std::string& propagation);

  std::vector<const ResourceType*> all_types() const { return c.catalog_.all(); }

  std::function<void()> foreground_collector(std::string storage_key, StoredObject owner);

  Response delete_collection(const Cluster::Target& t);

  static void set_condition(json::object& obj, std::string_view type, std::string_view status_value,
                            std::string_view reason, std::string_view message,
                            std::string time = "");

  // What follows a write: CRDs are (re)published, watchers already heard through the store.
  void after_write(const ResourceType& type, StoredObject old, StoredObject now_obj);

  // NamesAccepted, and unless `names_only` Established: the CRD's kinds are served.
  static void establish_crd(Cluster* cluster, const std::string& name, bool names_only);

  // After a restart from saved state: serve the established CRDs' kinds again and pick up the
  // work the built-in controllers had not finished (their timers did not survive).
  void resume_after_restore();

  // NamesAccepted at once, Established after --crd-delay (immediately for an update of an
  // already established CRD).
  void schedule_crd(const std::string& name, bool created);

  static std::vector<ResourceType> crd_resource_types(const json::object& crd);

  std::function<void()> crd_finalizer(StoredObject crd);

  // The namespace controller: deletes everything in a terminating namespace, then the
  // namespace once it is empty (objects with finalizers keep it Terminating until they go).
  std::function<void()> namespace_finalizer(StoredObject ns_obj);

  void drain_namespace(const std::string& ns);

  bool namespace_empty(const std::string& ns);

  std::optional<Response> watch(std::shared_ptr<WatchSink> sink, uint64_t* id_out);

  void schedule_bookmark(uint64_t id, std::shared_ptr<Cluster::WatchState> state);
};

}  // namespace planter::sim
