#include <cstdio>

#include "model/strings.h"
#include "sim/api_defaults.h"
#include "sim/handler.h"
#include "sim/json_access.h"
#include "sim/object_validation.h"
#include "sim/scheduling_validation.h"
#include "sim/schema.h"

namespace planter::sim {

namespace {

// Kinds whose metadata.generation counts spec changes: workloads and other kinds with a status
// subresource outside the core group, ReplicationControllers, and every custom resource.
bool tracks_generation(const ResourceType& t) {
  if (t.custom) return true;
  if (t.group.empty()) return t.kind == "ReplicationController";
  return t.has_status || t.group == "apps" || t.group == "batch";
}

// ---- names ----

// Kinds whose names are DNS labels rather than subdomains (as the real validators check).
bool needs_dns_label(const ResourceType& t) {
  return t.group.empty() && (t.kind == "Namespace" || t.kind == "Service");
}

// Kinds whose names are path segments only (RBAC allows ':' and uppercase).
bool path_segment_name(const ResourceType& t) {
  return t.group == "rbac.authorization.k8s.io" || t.kind == "Node" ||
         t.group == "apiregistration.k8s.io";
}

std::optional<std::string> name_problem(const ResourceType& t, std::string_view name) {
  if (path_segment_name(t)) {
    if (name == "." || name == ".." || name.find('/') != std::string_view::npos ||
        name.find('%') != std::string_view::npos)
      return "may not contain '/' or '%' and may not be '.' or '..'";
    return std::nullopt;
  }
  if (needs_dns_label(t)) {
    if (!is_rfc1123_label(name))
      return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
             "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    return std::nullopt;
  }
  if (!is_rfc1123_subdomain(name))
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
           "'-' or '.', and must start and end with an alphanumeric character (e.g. "
           "'example.com', regex used for validation is "
           "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  return std::nullopt;
}

std::string uuid(uint64_t a, uint64_t b) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

// ---- structural schema checks for CRD-defined kinds ----

void unknown_fields(const json::value& value, const json::value* schema, const std::string& path,
                    std::vector<std::string>& out, json::value* prune) {
  if (!schema || !schema->is_object()) return;
  const auto& s = schema->as_object();
  if (auto* p = s.if_contains("x-kubernetes-preserve-unknown-fields");
      p && p->is_bool() && p->as_bool())
    return;
  if (value.is_object()) {
    auto* props = s.if_contains("properties");
    auto* additional = s.if_contains("additionalProperties");
    if (additional &&
        (additional->is_object() || (additional->is_bool() && additional->as_bool()))) {
      if (additional->is_object())
        for (const auto& [k, v] : value.as_object())
          unknown_fields(v, additional, path + "." + std::string(k), out,
                         prune ? &prune->as_object()[k] : nullptr);
      return;
    }
    if (!props || !props->is_object()) {
      if (s.contains("type") || s.contains("properties")) {
        for (const auto& [k, _] : value.as_object()) out.push_back(path + "." + std::string(k));
        if (prune) prune->as_object().clear();
      }
      return;
    }
    std::vector<std::string> drop;
    for (const auto& [k, v] : value.as_object()) {
      std::string child = path.empty() ? std::string(k) : path + "." + std::string(k);
      auto* ps = props->as_object().if_contains(k);
      if (!ps) {
        out.push_back(child);
        drop.emplace_back(k);
        continue;
      }
      unknown_fields(v, ps, child, out, prune ? &prune->as_object()[k] : nullptr);
    }
    if (prune)
      for (const auto& k : drop) prune->as_object().erase(k);
  } else if (value.is_array()) {
    auto* items = s.if_contains("items");
    for (size_t i = 0; i < value.as_array().size(); ++i)
      unknown_fields(value.as_array()[i], items, path + "[" + std::to_string(i) + "]", out,
                     prune ? &prune->as_array()[i] : nullptr);
  }
}

// Fields of a custom resource that its CRD's schema does not know; they are pruned from `obj`.
std::vector<std::string> prune_unknown(const ResourceType& t, json::object& obj) {
  std::vector<std::string> out;
  if (!t.schema.is_object()) return out;
  json::value v = std::move(obj);
  json::value top = v;
  for (auto k : {"apiVersion", "kind", "metadata"}) top.as_object().erase(k);
  json::value pruned = top;
  unknown_fields(top, &t.schema, "", out, &pruned);
  for (auto k : {"apiVersion", "kind", "metadata"})
    if (auto* m = v.as_object().if_contains(k)) pruned.as_object()[k] = *m;
  obj = std::move(pruned.as_object());
  return out;
}

}  // namespace

// `fieldValidation`: unknown fields of custom resources are pruned; Strict refuses them,
// Warn (the default) reports them in Warning headers.
std::optional<Response> Handler::validate_fields(
    const ResourceType& t, json::object& obj,
    std::vector<std::pair<std::string, std::string>>& headers, const json::object* old) {
  std::string mode = query(req, "fieldValidation");
  if (mode.empty()) mode = "Warn";
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore")
    return bad_request("fieldValidation parameter unsupported: " + mode);
  if (!t.custom) return std::nullopt;
  auto unknown = prune_unknown(t, obj);
  // Then what kube-apiserver does with a structural schema: nulls dropped, defaults applied,
  // every value checked.
  apply_schema_defaults(t.schema, obj);
  if (auto violations = validate_against_schema(t.schema, obj, old); !violations.empty()) {
    std::vector<Cause> causes;
    for (auto& v : violations)
      causes.push_back({std::move(v.reason), std::move(v.message), std::move(v.field)});
    return invalid(t, meta_string(obj, "name"), std::move(causes));
  }
  if (unknown.empty() || mode == "Ignore") return std::nullopt;
  if (mode == "Strict") {
    std::string msg = t.kind + " in version \"" + t.version + "\" cannot be handled as a " +
                      t.kind + ": strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i)
      msg += (i ? ", " : "") + std::string("unknown field \"") + unknown[i] + "\"";
    return bad_request(msg);
  }
  for (const auto& f : unknown)
    headers.emplace_back("Warning", "299 - \"unknown field \\\"" + f + "\\\"\"");
  return std::nullopt;
}

// Checks apiVersion/kind/name/namespace of a body against the request target.
std::optional<Response> Handler::check_identity(const Cluster::Target& t, json::object& obj,
                                                bool creating) {
  const ResourceType& type = *t.type;
  std::string av = string_at(obj, "apiVersion"), kind = string_at(obj, "kind");
  if (kind.empty()) obj["kind"] = kind = type.kind;
  if (av.empty()) obj["apiVersion"] = av = type.api_version();
  if (av != type.api_version() || kind != type.kind) {
    if (kind != type.kind)
      return bad_request("the kind in the data (" + kind + ") does not match the expected kind (" +
                         type.kind + ")");
    return bad_request("the API version in the data (" + av +
                       ") does not match the expected API version (" + type.api_version() + ")");
  }
  json::object& meta = meta_of(obj);
  std::string ns = meta_string(obj, "namespace");
  if (type.namespaced) {
    if (!ns.empty() && ns != t.ns)
      return bad_request(
          "the namespace of the provided object does not match the namespace sent on the "
          "request");
    meta["namespace"] = t.ns;
  } else {
    meta.erase("namespace");
  }
  std::string name = meta_string(obj, "name");
  if (creating && name.empty()) {
    std::string gen = meta_string(obj, "generateName");
    if (gen.empty())
      return invalid(type, "",
                     {{"FieldValueRequired", "Required value: name or generateName is required",
                       "metadata.name"}});
    static const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
    uint64_t r = c.env_.random();
    for (int i = 0; i < 5; ++i) gen += alphabet[(r >> (i * 5)) % 27];
    meta["name"] = name = gen;
  }
  if (!t.name.empty() && name != t.name)
    return bad_request("the name of the object (" + name +
                       ") does not match the name on the URL (" + t.name + ")");
  if (auto problem = name_problem(type, name))
    return invalid(
        type, name,
        {{"FieldValueInvalid", "Invalid value: \"" + name + "\": " + *problem, "metadata.name"}});
  return std::nullopt;
}

std::optional<Response> Handler::check_namespace(const Cluster::Target& t) {
  if (!t.type->namespaced) return std::nullopt;
  StoredObject ns = c.store_.get("/namespaces", "", t.ns);
  if (!ns) return namespace_not_found(t.ns);
  if (!meta_string(*ns, "deletionTimestamp").empty())
    return api_status(403, "Forbidden",
                      t.type->qualified() + " \"" + t.name +
                          "\" is forbidden: unable to create new "
                          "content in namespace " +
                          t.ns + " because it is being terminated",
                      {{"name", t.name}, {"kind", t.type->resource}});
  return std::nullopt;
}

// Defaults a kube-apiserver sets on every new object, and the kind-specific ones clients
// notice.
void Handler::prepare_create(const ResourceType& t, json::object& obj) {
  json::object& meta = meta_of(obj);
  meta["uid"] = uuid(c.env_.random(), c.env_.random());
  meta["creationTimestamp"] = rfc3339(now());
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  meta.erase("resourceVersion");
  meta.erase("managedFields");
  if (tracks_generation(t))
    meta["generation"] = 1;
  else
    meta.erase("generation");
  if (t.has_status && t.kind != "Node" && t.kind != "Namespace") obj.erase("status");
  if (t.group.empty() && t.kind == "Namespace") {
    auto& labels = meta_of(obj)["labels"];
    if (!labels.is_object()) labels = json::object{};
    labels.as_object()["kubernetes.io/metadata.name"] = meta_string(obj, "name");
    obj["spec"] = {{"finalizers", {"kubernetes"}}};
    obj["status"] = {{"phase", "Active"}};
  }
  if (t.group.empty() && t.kind == "Service") allocate_cluster_ip(obj);
  if (t.group.empty() && t.kind == "Pod") default_pod(obj);
  if (t.group == "batch" && t.kind == "Job") default_job(obj);
  if (t.group.empty() && t.kind == "PersistentVolumeClaim") default_claim(obj);
  if (t.group == "apps" &&
      (t.kind == "Deployment" || t.kind == "StatefulSet" || t.kind == "DaemonSet"))
    default_apps_workload(obj, t.kind);
  if (t.group == "apiextensions.k8s.io" && t.kind == "CustomResourceDefinition")
    obj["status"] = {{"conditions", json::array{}},
                     {"acceptedNames", {{"kind", ""}, {"plural", ""}}},
                     {"storedVersions", json::array{}}};
}

// The Service defaults a kube-apiserver sets: type, a cluster IP from 10.96.0.0/12 (unless
// headless or ExternalName), IP families, session affinity.
void Handler::allocate_cluster_ip(json::object& svc) {
  auto& spec_v = svc["spec"];
  if (!spec_v.is_object()) spec_v = json::object{};
  json::object& spec = spec_v.as_object();
  std::string type = string_at(spec, "type");
  if (type.empty()) spec["type"] = type = "ClusterIP";
  if (type == "ExternalName") return;
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  std::string ip = string_at(spec, "clusterIP");
  if (ip.empty()) {
    uint64_t n = c.next_cluster_ip_++;
    ip = "10.96." + std::to_string((n >> 8) & 0xff) + "." + std::to_string(n & 0xff);
    spec["clusterIP"] = ip;
  }
  if (!spec.contains("clusterIPs")) spec["clusterIPs"] = json::array{json::value(ip)};
  if (!spec.contains("ipFamilies")) spec["ipFamilies"] = json::array{"IPv4"};
  if (!spec.contains("ipFamilyPolicy")) spec["ipFamilyPolicy"] = "SingleStack";
  // NodePort and LoadBalancer Services get a node port per port, from 30000-32767.
  if (type == "NodePort" || type == "LoadBalancer")
    if (auto* ports = spec.if_contains("ports"); ports && ports->is_array())
      for (auto& port : ports->as_array())
        if (port.is_object() && int_at(&port.as_object(), "nodePort") == 0)
          port.as_object()["nodePort"] = 30000 + static_cast<int64_t>(c.next_node_port_++ % 2768);
  if (!svc.contains("status")) svc["status"] = {{"loadBalancer", json::object{}}};
}

// Carries what a write may not change over from the stored object.
void Handler::carry_over(const ResourceType& t, const json::object& old, json::object& obj,
                         std::string_view subresource) {
  json::object& meta = meta_of(obj);
  const json::object* old_meta = meta_of(old);
  for (auto k : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                 "generation"}) {
    auto* v = old_meta ? old_meta->if_contains(k) : nullptr;
    if (v)
      meta[k] = *v;
    else
      meta.erase(k);
  }
  if (subresource == "status") {
    // A status write changes status only.
    json::object kept = old;
    if (auto* s = obj.if_contains("status"))
      kept["status"] = *s;
    else
      kept.erase("status");
    obj = std::move(kept);
    return;
  }
  if (t.has_status || (t.group.empty() && t.kind == "Namespace")) {
    if (auto* s = old.if_contains("status"))
      obj["status"] = *s;
    else
      obj.erase("status");
  }
  if (t.group.empty() && t.kind == "Namespace") {
    if (auto* s = old.if_contains("spec")) obj["spec"] = *s;
    auto& labels = meta_of(obj)["labels"];
    if (!labels.is_object()) labels = json::object{};
    labels.as_object()["kubernetes.io/metadata.name"] = meta_string(obj, "name");
  }
  // generation follows changes outside metadata and status.
  if (tracks_generation(t)) {
    json::object a = old, b = obj;
    for (auto* o : {&a, &b}) {
      o->erase("metadata");
      o->erase("status");
    }
    if (a != b) {
      auto* g = old_meta ? old_meta->if_contains("generation") : nullptr;
      meta_of(obj)["generation"] = (g && g->is_number() ? g->to_number<int64_t>() : 0) + 1;
    }
  }
}

// Validation a user notices for specific kinds.
std::optional<Response> Handler::validate_kind(const ResourceType& t, const json::object& obj) {
  if (auto undecodable = object_meta_decode_error(obj))
    return bad_request(t.kind + " in version \"" + t.version + "\" cannot be handled as a " +
                       t.kind + ": " + *undecodable);
  if (auto undecodable = workload_count_decode_error(t, obj))
    return bad_request(t.kind + " in version \"" + t.version + "\" cannot be handled as a " +
                       t.kind + ": " + *undecodable);
  std::vector<Cause> meta_causes = object_meta_causes(obj);
  for (Cause& c : workload_selector_causes(t, obj)) meta_causes.push_back(std::move(c));
  for (Cause& c : workload_count_causes(t, obj)) meta_causes.push_back(std::move(c));
  for (Cause& c : config_key_causes(t, obj)) meta_causes.push_back(std::move(c));
  for (Cause& c : container_resource_causes(t, obj)) meta_causes.push_back(std::move(c));
  for (Cause& c : scheduling_causes(t, obj)) meta_causes.push_back(std::move(c));
  if (!meta_causes.empty()) return invalid(t, meta_string(obj, "name"), std::move(meta_causes));
  if (auto denied = check_escalation(t, obj)) return *denied;
  if (t.group == "apiextensions.k8s.io" && t.kind == "CustomResourceDefinition") {
    std::string name = meta_string(obj, "name");
    auto* spec = obj.if_contains("spec");
    std::vector<Cause> causes;
    if (!spec || !spec->is_object()) {
      causes.push_back({"FieldValueRequired", "Required value", "spec"});
    } else {
      const auto& s = spec->as_object();
      std::string group = string_at(s, "group");
      auto* names = s.if_contains("names");
      std::string plural =
          names && names->is_object() ? string_at(names->as_object(), "plural") : "";
      std::string kind = names && names->is_object() ? string_at(names->as_object(), "kind") : "";
      if (group.empty()) causes.push_back({"FieldValueRequired", "Required value", "spec.group"});
      if (plural.empty())
        causes.push_back({"FieldValueRequired", "Required value", "spec.names.plural"});
      if (kind.empty())
        causes.push_back({"FieldValueRequired", "Required value", "spec.names.kind"});
      if (!group.empty() && !plural.empty() && name != plural + "." + group)
        causes.push_back(
            {"FieldValueInvalid",
             "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group",
             "metadata.name"});
      std::string scope = string_at(s, "scope");
      if (scope != "Namespaced" && scope != "Cluster")
        causes.push_back(
            {"FieldValueNotSupported",
             "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"",
             "spec.scope"});
      auto* versions = s.if_contains("versions");
      if (!versions || !versions->is_array() || versions->as_array().empty())
        causes.push_back({"FieldValueInvalid",
                          "Invalid value: must have exactly one version marked as storage version",
                          "spec.versions"});
      else {
        int storage = 0;
        for (const auto& v : versions->as_array())
          if (v.is_object())
            if (auto* st = v.as_object().if_contains("storage");
                st && st->is_bool() && st->as_bool())
              ++storage;
        if (storage != 1)
          causes.push_back(
              {"FieldValueInvalid",
               "Invalid value: must have exactly one version marked as storage version",
               "spec.versions"});
      }
    }
    if (!causes.empty()) return invalid(t, name, std::move(causes));
  }
  return std::nullopt;
}

void Handler::default_claim(json::object& pvc) const {
  auto& spec_v = pvc["spec"];
  if (!spec_v.is_object()) spec_v = json::object{};
  json::object& spec = spec_v.as_object();
  if (!spec.contains("volumeMode")) spec["volumeMode"] = "Filesystem";
  if (spec.contains("storageClassName")) return;
  for (const auto& [_, sc] : c.store_.bucket("storage.k8s.io/storageclasses"))
    if (string_at(object_at(object_at(*sc, "metadata"), "annotations"),
                  "storageclass.kubernetes.io/is-default-class") == "true") {
      spec["storageClassName"] = meta_string(*sc, "name");
      return;
    }
}

}  // namespace planter::sim
