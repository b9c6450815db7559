#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <set>

#include "model/strings.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/protobuf.h"

namespace planter::sim {

Result<Handler::DeleteOptions> Handler::delete_options() const {
  DeleteOptions o;
  o.propagation = query(req, "propagationPolicy");
  if (!req.body.empty()) {
    json::value v;
    if (req.content_type.starts_with(kProtobufMedia)) {
      auto decoded = decode_kubernetes_protobuf(req.body);
      if (!decoded) return Error{"invalid DeleteOptions body: " + decoded.error().message};
      v = std::move(decoded.value());
    } else {
      boost::system::error_code ec;
      v = json::parse(req.body, ec, {}, kParseLimits);
      if (ec || !v.is_object()) return Error{"invalid DeleteOptions body"};
    }
    const auto& b = v.as_object();
    if (auto p = string_at(b, "propagationPolicy"); !p.empty()) o.propagation = p;
    if (auto* pre = b.if_contains("preconditions"); pre && pre->is_object()) {
      o.uid = string_at(pre->as_object(), "uid");
      o.resource_version = string_at(pre->as_object(), "resourceVersion");
    }
    if (auto* orphan = b.if_contains("orphanDependents");
        orphan && orphan->is_bool() && orphan->as_bool() && o.propagation.empty())
      o.propagation = "Orphan";
  }
  if (!o.propagation.empty() && o.propagation != "Orphan" && o.propagation != "Background" &&
      o.propagation != "Foreground")
    return Error{"propagationPolicy: Unsupported value: \"" + o.propagation +
                 "\": supported values: \"Foreground\", \"Background\", \"Orphan\""};
  return o;
}

Response Handler::remove(const Cluster::Target& t) {
  const ResourceType& type = *t.type;
  auto opts = delete_options();
  if (!opts) return api_status(422, "Invalid", opts.error().message);
  StoredObject old = c.store_.get(type.storage_key(), t.ns, t.name);
  if (!old) return not_found(type, t.name);
  if (!opts->uid.empty() && opts->uid != meta_string(*old, "uid"))
    return api_status(409, "Conflict",
                      "Precondition failed: UID in precondition: " + opts->uid +
                          ", UID in object meta: " + meta_string(*old, "uid"),
                      details_for(type, t.name));
  if (!opts->resource_version.empty() &&
      opts->resource_version != meta_string(*old, "resourceVersion"))
    return api_status(
        409, "Conflict",
        "Precondition failed: ResourceVersion in precondition: " + opts->resource_version +
            ", ResourceVersion in object meta: " + meta_string(*old, "resourceVersion"),
        details_for(type, t.name));
  if (dry_run()) return object_response(200, *old, type);
  return delete_object(type, old, opts->propagation, true);
}

// Deletes (or starts deleting) one object. `respond`: build the response a DELETE returns.
Response Handler::delete_object(const ResourceType& type, StoredObject old, std::string propagation,
                                bool respond) {
  bool is_namespace = type.group.empty() && type.kind == "Namespace";
  bool is_crd = type.group == "apiextensions.k8s.io" && type.kind == "CustomResourceDefinition";
  if (propagation.empty()) propagation = "Background";
  json::object obj = *old;
  json::object& meta = meta_of(obj);
  if (is_namespace || is_crd || has_finalizers(obj)) {
    // Graceful: mark, and let the finalizers (or the built-in controller) finish.
    if (!meta.contains("deletionTimestamp")) {
      meta["deletionTimestamp"] = rfc3339(now());
      meta["deletionGracePeriodSeconds"] = 0;
      if (propagation == "Foreground" && !is_namespace) {
        auto& f = meta["finalizers"];
        if (!f.is_array()) f = json::array{};
        f.as_array().push_back("foregroundDeletion");
      }
      if (is_namespace) {
        obj["status"] = {{"phase", "Terminating"}};
      }
      if (is_crd)
        set_condition(obj, "Terminating", "True", "InstanceDeletionInProgress",
                      "CustomResource deletion is in progress");
      StoredObject stored = commit(type, std::move(obj));
      audit("delete", *stored, 200);
      if (is_namespace) c.env_.after(std::chrono::milliseconds(0), namespace_finalizer(stored));
      if (is_crd) c.env_.after(std::chrono::milliseconds(0), crd_finalizer(stored));
      if (propagation == "Foreground" && !is_namespace)
        c.env_.after(std::chrono::milliseconds(0),
                     foreground_collector(type.storage_key(), stored));
      return object_response(200, *stored, type);
    }
    return object_response(200, *old, type);
  }
  StoredObject gone =
      c.store_.erase(type.storage_key(), meta_string(*old, "namespace"), meta_string(*old, "name"));
  audit("delete", *gone, 200);
  collect_dependents(*gone, propagation);
  if (!respond) return Response{};
  json::object details = details_for(type, meta_string(*gone, "name"));
  details["uid"] = meta_string(*gone, "uid");
  return api_status(200, "", "", std::move(details));
}

// After an object with pending finalizers loses its last one.
void Handler::finalize_delete(const ResourceType& type, StoredObject stored) {
  StoredObject gone = c.store_.erase(type.storage_key(), meta_string(*stored, "namespace"),
                                     meta_string(*stored, "name"));
  if (gone) collect_dependents(*gone, "Background");
}

// Garbage collection: dependents (ownerReferences to the owner's uid) are deleted, or orphaned.
void Handler::collect_dependents(const json::object& owner, const std::string& propagation) {
  std::string uid = meta_string(owner, "uid");
  if (uid.empty() || c.store_.dependents(uid).empty()) return;
  auto alive = c.alive_;
  Cluster* cluster = &c;
  // Dependents are found again when the collector runs: they may have changed or gone, and
  // so may their kinds (a CRD deleted in between).
  c.env_.after(std::chrono::milliseconds(0), [alive, cluster, uid, propagation] {
    if (!*alive) return;
    Request gc_req;
    gc_req.user = "system:serviceaccount:kube-system:generic-garbage-collector";
    Handler h{*cluster, gc_req};
    for (const auto& [storage_key, cur] : cluster->store_.dependents(uid)) {
      auto types = cluster->catalog_.versions_of(storage_key);
      if (types.empty()) continue;
      if (propagation == "Orphan") {
        json::object obj = *cur;
        auto& refs = meta_of(obj)["ownerReferences"].as_array();
        refs.erase(std::remove_if(refs.begin(), refs.end(),
                                  [&](const json::value& r) {
                                    return r.is_object() && string_at(r.as_object(), "uid") == uid;
                                  }),
                   refs.end());
        if (refs.empty()) meta_of(obj).erase("ownerReferences");
        cluster->store_.put(storage_key, std::move(obj));
      } else {
        h.delete_object(*types.front(), cur, "Background", false);
      }
    }
  });
}

std::function<void()> Handler::foreground_collector(std::string storage_key, StoredObject owner) {
  auto alive = c.alive_;
  Cluster* cluster = &c;
  return [alive, cluster, storage_key, owner] {
    if (!*alive) return;
    Request gc_req;
    gc_req.user = "system:serviceaccount:kube-system:generic-garbage-collector";
    Handler h{*cluster, gc_req};
    // Dependents go first (synchronously here), then the owner's finalizer is removed.
    h.collect_dependents(*owner, "Background");
    cluster->env_.after(std::chrono::milliseconds(0), [alive, cluster, storage_key, owner] {
      if (!*alive) return;
      StoredObject cur = cluster->store_.get(storage_key, meta_string(*owner, "namespace"),
                                             meta_string(*owner, "name"));
      if (!cur) return;
      json::object obj = *cur;
      auto& f = meta_of(obj)["finalizers"];
      if (f.is_array()) {
        auto& a = f.as_array();
        a.erase(std::remove(a.begin(), a.end(), json::value("foregroundDeletion")), a.end());
      }
      Request gc_req2;
      gc_req2.user = "system:serviceaccount:kube-system:generic-garbage-collector";
      Handler h2{*cluster, gc_req2};
      const ResourceType* t = nullptr;
      for (const auto* v : cluster->catalog_.versions_of(storage_key)) t = v;
      if (!t) return;
      if (!has_finalizers(obj)) {
        cluster->store_.put(storage_key, std::move(obj));
        h2.finalize_delete(*t, cluster->store_.get(storage_key, meta_string(*owner, "namespace"),
                                                   meta_string(*owner, "name")));
      } else {
        cluster->store_.put(storage_key, std::move(obj));
      }
    });
  };
}

Response Handler::delete_collection(const Cluster::Target& t) {
  auto labels = LabelSelector::parse(query(req, "labelSelector"));
  if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
  auto fields = FieldSelector::parse(query(req, "fieldSelector"), t.type->kind, t.type->custom);
  if (!fields) return bad_request(fields.error().message);
  auto opts = delete_options();
  if (!opts) return api_status(422, "Invalid", opts.error().message);
  std::vector<StoredObject> victims;
  for (const auto& [key, obj] : c.store_.bucket(t.type->storage_key())) {
    if (!t.ns.empty() && !std::string_view(key).starts_with(t.ns + "/")) continue;
    if (labels->matches(*obj) && fields->matches(*obj)) victims.push_back(obj);
  }
  json::array items;
  for (auto& v : victims) {
    if (!dry_run()) delete_object(*t.type, v, opts->propagation, false);
    items.push_back(*v);
  }
  json::object list{
      {"kind", t.type->kind + "List"},
      {"apiVersion", t.type->api_version()},
      {"metadata", {{"resourceVersion", std::to_string(c.store_.resource_version())}}},
      {"items", std::move(items)}};
  return Response{200, "application/json", json::serialize(list), {}};
}

// The namespace controller: deletes everything in a terminating namespace, then the
// namespace once it is empty (objects with finalizers keep it Terminating until they go).
std::function<void()> Handler::namespace_finalizer(StoredObject ns_obj) {
  auto alive = c.alive_;
  Cluster* cluster = &c;
  std::string ns = meta_string(*ns_obj, "name");
  return [alive, cluster, ns] {
    if (!*alive) return;
    Request r;
    r.user = "system:serviceaccount:kube-system:namespace-controller";
    Handler h{*cluster, r};
    h.drain_namespace(ns);
  };
}

void Handler::drain_namespace(const std::string& ns) {
  bool remaining = false;
  std::set<std::string> seen;
  for (const auto* t : all_types()) {
    if (!t->namespaced || !seen.insert(t->storage_key()).second) continue;
    std::vector<StoredObject> victims;
    for (const auto& [key, obj] : c.store_.bucket(t->storage_key()))
      if (std::string_view(key).starts_with(ns + "/")) victims.push_back(obj);
    for (auto& v : victims) {
      remaining = true;
      if (meta_string(*v, "deletionTimestamp").empty()) delete_object(*t, v, "Background", false);
    }
  }
  if (!remaining || namespace_empty(ns)) {
    StoredObject gone = c.store_.erase("/namespaces", "", ns);
    (void)gone;
    return;
  }
  // Objects held by finalizers: look again when anything changes. A short timer keeps this
  // simple; namespaces with finalized content are rare in the sim.
  auto alive = c.alive_;
  Cluster* cluster = &c;
  c.env_.after(std::chrono::milliseconds(50), [alive, cluster, ns] {
    if (!*alive) return;
    Request r;
    r.user = "system:serviceaccount:kube-system:namespace-controller";
    Handler h{*cluster, r};
    h.drain_namespace(ns);
  });
}

bool Handler::namespace_empty(const std::string& ns) {
  for (const auto* t : all_types()) {
    if (!t->namespaced) continue;
    const auto& b = c.store_.bucket(t->storage_key());
    auto it = b.lower_bound(ns + "/");
    if (it != b.end() && std::string_view(it->first).starts_with(ns + "/")) return false;
  }
  return true;
}

}  // namespace planter::sim
