#include "sim/cluster.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <cstdio>
#include <set>

#include "model/base64.h"
#include "model/names.h"
#include "model/strings.h"
#include "model/yaml.h"
#include "sim/controllers.h"
#include "sim/field_manager.h"
#include "sim/json_access.h"
#include "sim/patch.h"
#include "sim/protobuf.h"
#include "sim/rbac.h"
#include "sim/schema.h"
#include "sim/selectors.h"
#include "sim/table.h"
#include "sim/tls.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr std::string_view kAggregatedMedia =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

// ---- small JSON helpers ----

json::object& meta_of(json::object& o) {
  auto& m = o["metadata"];
  if (!m.is_object()) m = json::object{};
  return m.as_object();
}

const json::object* meta_of(const json::object& o) {
  auto* m = o.if_contains("metadata");
  return m && m->is_object() ? &m->as_object() : nullptr;
}

bool has_finalizers(const json::object& o) {
  const json::object* m = meta_of(o);
  auto* f = m ? m->if_contains("finalizers") : nullptr;
  return f && f->is_array() && !f->as_array().empty();
}

std::string object_id(const json::object& o) {
  return string_at(o, "apiVersion") + "|" + string_at(o, "kind") + "|" +
         meta_string(o, "namespace") + "|" + meta_string(o, "name");
}

// The object as JSON, with apiVersion as the client asked for it (every version of a resource
// shares one stored object; CRD versions convert with strategy None).
std::string serialize_as(const json::object& obj, std::string_view api_version) {
  if (string_at(obj, "apiVersion") == api_version) return json::serialize(obj);
  json::object copy = obj;
  copy["apiVersion"] = api_version;
  return json::serialize(copy);
}

// The first document of a YAML (or JSON) body, which must be a mapping; copied out of the
// parser's arena.
Result<json::object> yaml_object(std::string_view body) {
  auto docs = parse_yaml_stream(body, "body");
  if (!docs) return Error{docs.error().message};
  if (docs->empty() || !docs->front().value.is_object())
    return Error{"the body is not a YAML object"};
  json::value copy(docs->front().value, json::storage_ptr());
  return std::move(copy.as_object());
}

// ---- Status objects ----

}  // namespace

Response api_status(int code, std::string_view reason, std::string message, json::object details) {
  json::object s{{"kind", "Status"},
                 {"apiVersion", "v1"},
                 {"metadata", json::object{}},
                 {"status", code < 400 ? "Success" : "Failure"},
                 {"message", std::move(message)},
                 {"reason", reason},
                 {"details", std::move(details)},
                 {"code", code}};
  if (code < 400) {
    s.erase("message");
    s.erase("reason");
  }
  return Response{code, "application/json", json::serialize(s), {}};
}

namespace {

json::object details_for(const ResourceType& t, std::string_view name) {
  json::object d{{"name", name}, {"kind", t.resource}};
  if (!t.group.empty()) d["group"] = t.group;
  return d;
}

Response not_found(const ResourceType& t, std::string_view name) {
  return api_status(404, "NotFound", t.qualified() + " \"" + std::string(name) + "\" not found",
                    details_for(t, name));
}

Response namespace_not_found(std::string_view ns) {
  return api_status(404, "NotFound", "namespaces \"" + std::string(ns) + "\" not found",
                    {{"name", ns}, {"kind", "namespaces"}});
}

Response bad_request(std::string message) {
  return api_status(400, "BadRequest", std::move(message));
}

Response page_not_found() {
  return api_status(404, "NotFound", "the server could not find the requested resource");
}

struct Cause {
  std::string type, message, field;
};

Response invalid(const ResourceType& t, std::string_view name, std::vector<Cause> causes) {
  std::string message = t.kind + (t.group.empty() ? "" : "." + t.group) + " \"" +
                        std::string(name) + "\" is invalid: ";
  json::array arr;
  for (size_t i = 0; i < causes.size(); ++i) {
    if (i) message += ", ";
    message += causes[i].field + ": " + causes[i].message;
    arr.push_back(
        {{"reason", causes[i].type}, {"message", causes[i].message}, {"field", causes[i].field}});
  }
  json::object d = details_for(t, name);
  d["kind"] = t.kind;
  d["causes"] = std::move(arr);
  return api_status(422, "Invalid", std::move(message), std::move(d));
}

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
    if (!is_dns_label(name))
      return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
             "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
             "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    return std::nullopt;
  }
  if (!is_dns_subdomain(name))
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

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The default field manager: the user agent up to its first '/', as the apiserver derives it.
std::string default_manager(const Request& req) {
  std::string ua = req.user_agent.substr(0, req.user_agent.find('/'));
  return ua.empty() ? "unknown" : ua;
}

std::string query(const Request& req, const std::string& key) {
  auto it = req.query.find(key);
  return it == req.query.end() ? std::string() : it->second;
}

// Go's strconv.ParseBool, which the apiserver uses for boolean query parameters.
bool truthy(const std::string& v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
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

// Handles one request against one cluster. A value made per request: it keeps the parsed
// target and the request, and reaches the cluster's state through `c`.
struct Handler {
  Cluster& c;
  const Request& req;

  std::chrono::system_clock::time_point now() const { return c.env_.now(); }

  Response object_response(int code, const json::object& obj, const ResourceType& t) const {
    return Response{code, "application/json", serialize_as(obj, t.api_version()), {}};
  }

  // ---- routing ----

  // Parses "/api/v1/..." and "/apis/<g>/<v>/...". Returns nullopt when the path is not a
  // resource path (discovery and friends are handled before).
  std::optional<Response> parse_target(Cluster::Target& t) {
    std::vector<std::string_view> segs;
    for (std::string_view s : split(std::string_view(req.path).substr(1), '/'))
      if (!s.empty()) segs.push_back(s);
    std::string_view group, version;
    size_t i;
    if (segs.size() >= 3 && segs[0] == "api") {
      version = segs[1];
      i = 2;
    } else if (segs.size() >= 4 && segs[0] == "apis") {
      group = segs[1];
      version = segs[2];
      i = 3;
    } else {
      return page_not_found();
    }
    if (segs[i] == "watch") {
      t.watch = true;
      ++i;
      if (i >= segs.size()) return page_not_found();
    }
    std::vector<std::string_view> rest(segs.begin() + static_cast<std::ptrdiff_t>(i), segs.end());
    if (rest.size() >= 3 && rest[0] == "namespaces" &&
        !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
      t.ns = std::string(rest[1]);
      rest.erase(rest.begin(), rest.begin() + 2);
    }
    if (rest.empty() || rest.size() > 3) return page_not_found();
    t.type = c.catalog_.find(group, version, rest[0]);
    if (!t.type) return page_not_found();
    if (!t.type->namespaced && !t.ns.empty()) return page_not_found();
    if (rest.size() >= 2) t.name = std::string(rest[1]);
    if (rest.size() == 3) {
      t.subresource = std::string(rest[2]);
      bool known = (t.subresource == "status" && t.type->has_status) ||
                   (t.subresource == "scale" && t.type->has_scale) ||
                   (t.subresource == "finalize" && t.type->kind == "Namespace");
      if (!known) return page_not_found();
    }
    return std::nullopt;
  }

  Response handle() {
    const std::string& p = req.path;
    if (p.empty() || p.front() != '/')
      return page_not_found();  // `*`, or nothing (found by fuzzing)
    if (p == "/version" || p == "/version/") {
      return Response{200,
                      "application/json",
                      json::serialize(json::object{{"major", "1"},
                                                   {"minor", "32"},
                                                   {"gitVersion", "v1.32.0-planter-sim"},
                                                   {"gitCommit", "planter-sim"},
                                                   {"gitTreeState", "clean"},
                                                   {"buildDate", "2026-01-01T00:00:00Z"},
                                                   {"goVersion", "none"},
                                                   {"compiler", "planter"},
                                                   {"platform", "linux/amd64"}}),
                      {}};
    }
    if (p == "/healthz" || p == "/readyz" || p == "/livez" || p.starts_with("/healthz/") ||
        p.starts_with("/readyz/") || p.starts_with("/livez/"))
      return Response{200, "text/plain; charset=utf-8", "ok", {}};
    bool aggregated = req.accept.find("as=APIGroupDiscoveryList") != std::string::npos &&
                      req.accept.find("v=v2") != std::string::npos;
    if (p == "/api" || p == "/api/") {
      if (aggregated)
        return Response{200, std::string(kAggregatedMedia), c.catalog_.aggregated(true), {}};
      return Response{200, "application/json", c.catalog_.api_versions(), {}};
    }
    if (p == "/apis" || p == "/apis/") {
      if (aggregated)
        return Response{200, std::string(kAggregatedMedia), c.catalog_.aggregated(false), {}};
      return Response{200, "application/json", c.catalog_.group_list(), {}};
    }
    if (p == "/openapi/v2" || p == "/openapi/v2/") {
      if (req.accept.find("protobuf") != std::string::npos)
        return Response{200,
                        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
                        empty_openapi_v2_protobuf(),
                        {}};
      return Response{
          200,
          "application/json",
          R"({"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.32.0"},"paths":{},"definitions":{}})",
          {}};
    }
    if (p == "/openapi/v3" || p == "/openapi/v3/")
      return Response{200, "application/json", c.catalog_.openapi_index(), {}};
    if (p.starts_with("/openapi/v3/")) {
      std::string doc = c.catalog_.openapi_document(std::string_view(p).substr(12));
      if (doc.empty()) return page_not_found();
      return Response{200, "application/json", std::move(doc), {}};
    }
    // Discovery of one group or group-version.
    {
      std::vector<std::string_view> segs;
      for (std::string_view s : split(std::string_view(p).substr(1), '/'))
        if (!s.empty()) segs.push_back(s);
      if (segs.size() == 2 && segs[0] == "api") {
        std::string list = c.catalog_.resource_list("", segs[1]);
        if (list.empty()) return page_not_found();
        return Response{200, "application/json", std::move(list), {}};
      }
      if (segs.size() == 2 && segs[0] == "apis") {
        std::string doc = c.catalog_.group_document(segs[1]);
        if (doc.empty()) return page_not_found();
        return Response{200, "application/json", std::move(doc), {}};
      }
      if (segs.size() == 3 && segs[0] == "apis") {
        std::string list = c.catalog_.resource_list(segs[1], segs[2]);
        if (list.empty()) return page_not_found();
        return Response{200, "application/json", std::move(list), {}};
      }
    }
    Cluster::Target t;
    if (auto err = parse_target(t)) return *err;
    if (t.watch || truthy(query(req, "watch")))
      return bad_request("watch requests need a streaming connection");
    if (auto denied = authorize(t, verb_of(t))) return *denied;
    const ResourceType& type = *t.type;
    auto method_not_allowed = [&] {
      return api_status(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource");
    };
    if (t.name.empty()) {
      if (req.method == "GET") return type.allows("list") ? list(t) : method_not_allowed();
      if (req.method == "POST") {
        if (type.namespaced && t.ns.empty()) return method_not_allowed();
        return type.allows("create") ? create(t) : method_not_allowed();
      }
      if (req.method == "DELETE")
        return type.allows("deletecollection") ? delete_collection(t) : method_not_allowed();
      return method_not_allowed();
    }
    if (type.namespaced && t.ns.empty()) return page_not_found();
    if (req.method == "GET") return type.allows("get") ? get(t) : method_not_allowed();
    if (req.method == "PUT") return type.allows("update") ? update(t) : method_not_allowed();
    if (req.method == "PATCH") return type.allows("patch") ? patch(t) : method_not_allowed();
    if (req.method == "DELETE" && t.subresource.empty())
      return type.allows("delete") ? remove(t) : method_not_allowed();
    return method_not_allowed();
  }

  // ---- authorization (--authorization rbac) ----

  std::string verb_of(const Cluster::Target& t) const {
    const std::string& m = req.method;
    if (m == "GET") return t.name.empty() ? "list" : "get";
    if (m == "POST") return "create";
    if (m == "PUT") return "update";
    if (m == "PATCH") return "patch";
    if (m == "DELETE") return t.name.empty() ? "deletecollection" : "delete";
    return lower(m);
  }

  AccessRequest access(const Cluster::Target& t, std::string verb) const {
    return AccessRequest{
        req.user,      req.groups, std::move(verb), t.type->group, t.type->resource,
        t.subresource, t.ns,       t.name};
  }

  std::optional<Response> authorize(const Cluster::Target& t, std::string verb) const {
    if (!c.options_.rbac) return std::nullopt;
    AccessRequest a = access(t, std::move(verb));
    if (rbac_allows(c.store_, a)) return std::nullopt;
    return forbidden(a, forbidden_message(a));
  }

  // Writing a role or a binding cannot grant more than the writer holds (RBAC's escalation
  // check), unless the writer may `escalate` (roles) or `bind` (bindings).
  std::optional<Response> check_escalation(const ResourceType& t, const json::object& obj) const {
    if (!c.options_.rbac || t.group != "rbac.authorization.k8s.io") return std::nullopt;
    bool role = t.kind == "Role" || t.kind == "ClusterRole";
    bool binding = t.kind == "RoleBinding" || t.kind == "ClusterRoleBinding";
    if (!role && !binding) return std::nullopt;
    std::string ns = meta_string(obj, "namespace");
    std::string name = meta_string(obj, "name");
    AccessRequest self{req.user, req.groups, role ? "escalate" : "bind", t.group, t.resource, "",
                       ns,       name};
    const json::array* rules = nullptr;
    StoredObject referenced;
    if (role) {
      if (auto* r = obj.if_contains("rules"); r && r->is_array()) rules = &r->as_array();
    } else if (auto* ref = obj.if_contains("roleRef"); ref && ref->is_object()) {
      std::string kind = string_at(ref->as_object(), "kind");
      std::string ref_name = string_at(ref->as_object(), "name");
      self.resource = kind == "Role" ? "roles" : "clusterroles";
      self.name = ref_name;
      referenced = c.store_.get(kind == "Role" ? "rbac.authorization.k8s.io/roles"
                                               : "rbac.authorization.k8s.io/clusterroles",
                                kind == "Role" ? ns : "", ref_name);
      if (referenced)
        if (auto* r = referenced->if_contains("rules"); r && r->is_array()) rules = &r->as_array();
    }
    if (!rules || rbac_allows(c.store_, self)) return std::nullopt;
    std::string missing = missing_rule(c.store_, self, ns, *rules);
    if (missing.empty()) return std::nullopt;
    AccessRequest a = self;
    a.verb = "create";
    a.resource = t.resource;
    a.name = name;
    std::string what = t.resource + "." + t.group + " \"" + name + "\"";
    return forbidden(a, what + " is forbidden: user \"" + req.user +
                            "\" is attempting to grant RBAC permissions not currently held:\n" +
                            missing);
  }

  // ---- reads ----

  Response get(const Cluster::Target& t) {
    StoredObject obj = c.store_.get(t.type->storage_key(), t.ns, t.name);
    if (!obj) return not_found(*t.type, t.name);
    if (t.subresource == "scale") return scale_of(t, *obj);
    if (t.type->custom && wants_table(req.accept))
      return Response{200,
                      "application/json",
                      render_table(t.type->printer_columns, {obj.get()},
                                   query(req, "includeObject"), {}, now()),
                      {}};
    return object_response(200, *obj, *t.type);
  }

  Response scale_of(const Cluster::Target& t, const json::object& obj) {
    auto* spec = obj.if_contains("spec");
    auto* replicas =
        spec && spec->is_object() ? spec->as_object().if_contains("replicas") : nullptr;
    auto* st = obj.if_contains("status");
    auto* cur = st && st->is_object() ? st->as_object().if_contains("replicas") : nullptr;
    json::object scale{{"kind", "Scale"},
                       {"apiVersion", "autoscaling/v1"},
                       {"metadata",
                        {{"name", t.name},
                         {"namespace", t.ns},
                         {"uid", meta_string(obj, "uid")},
                         {"resourceVersion", meta_string(obj, "resourceVersion")},
                         {"creationTimestamp", meta_string(obj, "creationTimestamp")}}},
                       {"spec", {{"replicas", replicas ? *replicas : json::value(1)}}},
                       {"status", {{"replicas", cur ? *cur : json::value(0)}}}};
    return Response{200, "application/json", json::serialize(scale), {}};
  }

  Response list(const Cluster::Target& t) {
    auto labels = LabelSelector::parse(query(req, "labelSelector"));
    if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
    auto fields = FieldSelector::parse(query(req, "fieldSelector"), t.type->kind, t.type->custom);
    if (!fields) return bad_request(fields.error().message);
    size_t limit = 0;
    if (std::string l = query(req, "limit"); !l.empty())
      limit = std::strtoull(l.c_str(), nullptr, 10);
    std::string start;
    uint64_t list_rv = c.store_.resource_version();
    if (std::string cont = query(req, "continue"); !cont.empty()) {
      auto parsed = decode_continue(cont);
      if (!parsed) return bad_request("continue key is not valid: " + parsed.error().message);
      start = parsed->first;
      list_rv = parsed->second;
    }
    const auto& bucket = c.store_.bucket(t.type->storage_key());
    std::string out;
    out.reserve(256);
    out += "{\"kind\":\"" + t.type->kind + "List\",\"apiVersion\":\"" + t.type->api_version() +
           "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(list_rv) + "\"";
    std::string items;
    size_t count = 0;
    std::string next;
    size_t remaining = 0;
    bool table = t.type->custom && wants_table(req.accept);
    std::vector<const json::object*> rows;
    auto it = t.ns.empty() ? bucket.begin() : bucket.lower_bound(t.ns + "/");
    if (!start.empty()) it = bucket.upper_bound(start);
    for (; it != bucket.end(); ++it) {
      if (!t.ns.empty() && !std::string_view(it->first).starts_with(t.ns + "/")) break;
      const json::object& obj = *it->second;
      if (!labels->matches(obj) || !fields->matches(obj)) continue;
      if (limit && count == limit) {
        ++remaining;
        continue;
      }
      if (table)
        rows.push_back(&obj);
      else
        items += (count ? "," : "") + serialize_as(obj, t.type->api_version());
      ++count;
      if (limit && count == limit) next = it->first;
    }
    if (remaining) {
      out += ",\"continue\":\"" + encode_continue(next, list_rv) +
             "\",\"remainingItemCount\":" + std::to_string(remaining);
    }
    if (table) {
      json::object meta{{"resourceVersion", std::to_string(list_rv)}};
      if (remaining) meta["continue"] = encode_continue(next, list_rv);
      return Response{200,
                      "application/json",
                      render_table(t.type->printer_columns, rows, query(req, "includeObject"),
                                   std::move(meta), now()),
                      {}};
    }
    out += "},\"items\":[" + items + "]}";
    return Response{200, "application/json", std::move(out), {}};
  }

  // Continue tokens are opaque base64 of {"v","rv","start"}, like the apiserver's.
  static std::string encode_continue(const std::string& key, uint64_t rv) {
    return base64_encode(
        json::serialize(json::object{{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", key}}));
  }

  static Result<std::pair<std::string, uint64_t>> decode_continue(const std::string& token) {
    auto raw = base64_decode(token);
    if (!raw) return Error{"illegal base64 data"};
    boost::system::error_code ec;
    json::value v = json::parse(*raw, ec, {}, kParseLimits);
    if (ec || !v.is_object()) return Error{"malformed continue token"};
    auto* start = v.as_object().if_contains("start");
    auto* rv = v.as_object().if_contains("rv");
    if (!start || !start->is_string() || !rv || !rv->is_number())
      return Error{"malformed continue token"};
    return std::make_pair(std::string(start->as_string()), rv->to_number<uint64_t>());
  }

  // ---- writes: shared pieces ----

  Result<json::object> parse_body() const {
    if (req.body.empty()) return Error{"request body is empty"};
    if (req.content_type.starts_with(kProtobufMedia)) return decode_kubernetes_protobuf(req.body);
    if (req.content_type.find("yaml") != std::string::npos) {
      return yaml_object(req.body);
    }
    boost::system::error_code ec;
    json::value v = json::parse(req.body, ec, {}, kParseLimits);
    if (ec) return Error{"couldn't get version/kind; json parse error: " + ec.message()};
    if (!v.is_object()) return Error{"the body is not a JSON object"};
    return std::move(v.as_object());
  }

  Response body_error(const Error& e) const {
    if (req.content_type.starts_with(kProtobufMedia))
      return api_status(415, "UnsupportedMediaType", e.message);
    return bad_request(e.message);
  }

  WriteContext write_context(const ResourceType& t, std::string_view subresource) const {
    WriteContext ctx;
    ctx.manager = query(req, "fieldManager");
    if (ctx.manager.empty()) ctx.manager = default_manager(req);
    ctx.api_version = t.api_version();
    ctx.time = rfc3339(now());
    ctx.subresource = std::string(subresource);
    ctx.scope = subresource == "status" ? FieldScope::kStatusOnly
                : t.has_status          ? FieldScope::kWithoutStatus
                                        : FieldScope::kAll;
    return ctx;
  }

  bool dry_run() const { return query(req, "dryRun") == "All"; }

  // `fieldValidation`: unknown fields of custom resources are pruned; Strict refuses them,
  // Warn (the default) reports them in Warning headers.
  std::optional<Response> validate_fields(
      const ResourceType& t, json::object& obj,
      std::vector<std::pair<std::string, std::string>>& headers) {
    std::string mode = query(req, "fieldValidation");
    if (mode.empty()) mode = "Warn";
    if (mode != "Strict" && mode != "Warn" && mode != "Ignore")
      return bad_request("fieldValidation parameter unsupported: " + mode);
    if (!t.custom) return std::nullopt;
    auto unknown = prune_unknown(t, obj);
    // Then what kube-apiserver does with a structural schema: nulls dropped, defaults applied,
    // every value checked.
    apply_schema_defaults(t.schema, obj);
    if (auto violations = validate_against_schema(t.schema, obj); !violations.empty()) {
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
  std::optional<Response> check_identity(const Cluster::Target& t, json::object& obj,
                                         bool creating) {
    const ResourceType& type = *t.type;
    std::string av = string_at(obj, "apiVersion"), kind = string_at(obj, "kind");
    if (kind.empty()) obj["kind"] = kind = type.kind;
    if (av.empty()) obj["apiVersion"] = av = type.api_version();
    if (av != type.api_version() || kind != type.kind) {
      if (kind != type.kind)
        return bad_request("the kind in the data (" + kind +
                           ") does not match the expected kind (" + type.kind + ")");
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

  std::optional<Response> check_namespace(const Cluster::Target& t) {
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
  void prepare_create(const ResourceType& t, json::object& obj) {
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
    if (t.group == "apiextensions.k8s.io" && t.kind == "CustomResourceDefinition")
      obj["status"] = {{"conditions", json::array{}},
                       {"acceptedNames", {{"kind", ""}, {"plural", ""}}},
                       {"storedVersions", json::array{}}};
  }

  // The Service defaults a kube-apiserver sets: type, a cluster IP from 10.96.0.0/12 (unless
  // headless or ExternalName), IP families, session affinity.
  void allocate_cluster_ip(json::object& svc) {
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
    if (!svc.contains("status")) svc["status"] = {{"loadBalancer", json::object{}}};
  }

  // Carries what a write may not change over from the stored object.
  void carry_over(const ResourceType& t, const json::object& old, json::object& obj,
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

  void audit(std::string_view verb, const json::object& obj, int code) {
    if (c.audit_)
      c.audit_->request(now(), c.name_, verb, object_id(obj), req.user, code, req.impersonator);
  }

  // Stores a new object and starts what its creation sets off.
  StoredObject commit(const ResourceType& t, json::object obj) {
    return c.store_.put(t.storage_key(), std::move(obj));
  }

  // ---- create ----

  Response create(const Cluster::Target& t0) {
    auto body = parse_body();
    if (!body) return body_error(body.error());
    Cluster::Target t = t0;
    json::object obj = std::move(body.value());
    return create_object(t, std::move(obj), "create", nullptr);
  }

  // `applied_ctx` non-null: a server-side apply that creates the object.
  Response create_object(Cluster::Target& t, json::object obj, std::string_view verb,
                         const WriteContext* applied_ctx) {
    const ResourceType& type = *t.type;
    if (auto err = check_identity(t, obj, true)) return *err;
    t.name = meta_string(obj, "name");
    if (auto err = check_namespace(t)) return *err;
    std::vector<std::pair<std::string, std::string>> warnings;
    if (auto err = validate_fields(type, obj, warnings)) return *err;
    if (auto err = validate_kind(type, obj)) return *err;
    // An apply that creates the object needs the right to create it too.
    if (verb == "apply")
      if (auto denied = authorize(t, "create")) return *denied;
    if (c.store_.get(type.storage_key(), t.ns, t.name))
      return api_status(409, "AlreadyExists",
                        type.qualified() + " \"" + t.name + "\" already exists",
                        details_for(type, t.name));
    // Ownership covers what the client sent, not what the server defaults afterwards.
    if (applied_ctx) {
      json::object result;
      server_side_apply(nullptr, obj, true, *applied_ctx, result);
      obj = std::move(result);
    } else {
      meta_of(obj).erase("managedFields");
      record_update(nullptr, obj, write_context(type, ""));
    }
    json::value managed =
        meta_of(obj).contains("managedFields") ? meta_of(obj).at("managedFields") : json::value();
    prepare_create(type, obj);
    if (!managed.is_null()) meta_of(obj)["managedFields"] = std::move(managed);
    if (dry_run()) {
      Response r = object_response(201, obj, type);
      r.headers = warnings;
      return r;
    }
    StoredObject stored = commit(type, std::move(obj));
    audit(verb, *stored, 201);
    after_write(type, nullptr, stored);
    Response r = object_response(201, *stored, type);
    r.headers = warnings;
    return r;
  }

  // Validation a user notices for specific kinds.
  std::optional<Response> validate_kind(const ResourceType& t, const json::object& obj) {
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
          causes.push_back({"FieldValueNotSupported",
                            "Unsupported value: \"" + scope +
                                "\": supported values: \"Cluster\", \"Namespaced\"",
                            "spec.scope"});
        auto* versions = s.if_contains("versions");
        if (!versions || !versions->is_array() || versions->as_array().empty())
          causes.push_back(
              {"FieldValueInvalid",
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

  // ---- update ----

  Response update(const Cluster::Target& t) {
    auto body = parse_body();
    if (!body) return body_error(body.error());
    json::object obj = std::move(body.value());
    StoredObject old = c.store_.get(t.type->storage_key(), t.ns, t.name);
    if (!old) return not_found(*t.type, t.name);
    if (t.subresource == "scale") return update_scale(t, *old, obj);
    std::string rv = meta_string(obj, "resourceVersion");
    if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(*t.type, t.name);
    return write_existing(t, *old, std::move(obj), "update", false);
  }

  Response update_scale(const Cluster::Target& t, const json::object& old,
                        const json::object& scale) {
    auto* spec = scale.if_contains("spec");
    auto* replicas =
        spec && spec->is_object() ? spec->as_object().if_contains("replicas") : nullptr;
    json::object obj = old;
    auto& s = obj["spec"];
    if (!s.is_object()) s = json::object{};
    s.as_object()["replicas"] = replicas ? *replicas : json::value(0);
    Cluster::Target main = t;
    main.subresource.clear();
    Response r = write_existing(main, old, std::move(obj), "update", false);
    if (r.status != 200) return r;
    return scale_of(t, *c.store_.get(t.type->storage_key(), t.ns, t.name));
  }

  Response conflict(const ResourceType& t, std::string_view name) {
    return api_status(
        409, "Conflict",
        "Operation cannot be fulfilled on " + t.qualified() + " \"" + std::string(name) +
            "\": the object has been modified; please apply your changes to the latest "
            "version and try again",
        details_for(t, name));
  }

  // The common tail of update, patch and apply on an existing object.
  Response write_existing(const Cluster::Target& t, const json::object& old, json::object obj,
                          std::string_view verb, bool managed_fields_done) {
    const ResourceType& type = *t.type;
    if (auto err = check_identity(t, obj, false)) return *err;
    std::vector<std::pair<std::string, std::string>> warnings;
    if (auto err = validate_fields(type, obj, warnings)) return *err;
    json::value managed =
        meta_of(obj).contains("managedFields") ? meta_of(obj).at("managedFields") : json::value();
    carry_over(type, old, obj, t.subresource);
    if (managed_fields_done) {
      if (managed.is_null())
        meta_of(obj).erase("managedFields");
      else
        meta_of(obj)["managedFields"] = std::move(managed);
    }
    if (!managed_fields_done) record_update(&old, obj, write_context(type, t.subresource));
    if (auto err = validate_kind(type, obj)) return *err;
    // An unchanged object is not written (no new resourceVersion, no watch event), unless an
    // apply changed who owns what. Like kube-apiserver, a write that would only move the
    // timestamps of managedFields entries keeps the old ones, so it is no change at all.
    json::object a = old, b = obj;
    for (auto* o : {&a, &b}) {
      meta_of(*o).erase("resourceVersion");
      meta_of(*o).erase("managedFields");
    }
    if (a == b && (verb != "apply" || same_owners(old, obj)))
      return object_response(200, old, type);
    if (dry_run()) return object_response(200, obj, type);
    // Removing the last finalizer of an object being deleted deletes it.
    if (!meta_string(obj, "deletionTimestamp").empty() && !has_finalizers(obj)) {
      StoredObject stored = commit(type, std::move(obj));
      audit(verb, *stored, 200);
      finalize_delete(type, stored);
      return object_response(200, *stored, type);
    }
    StoredObject stored = commit(type, std::move(obj));
    audit(verb, *stored, 200);
    after_write(type, std::make_shared<const json::object>(old), stored);
    Response r = object_response(200, *stored, type);
    r.headers = warnings;
    return r;
  }

  // ---- patch and apply ----

  Response patch(const Cluster::Target& t0) {
    Cluster::Target t = t0;
    const ResourceType& type = *t.type;
    std::string ct = req.content_type.substr(0, req.content_type.find(';'));
    if (ct == "application/apply-patch+yaml" || ct == "application/apply-patch+json")
      return apply(t);
    bool strategic = ct == "application/strategic-merge-patch+json";
    bool merge = ct == "application/merge-patch+json";
    bool jsonpatch = ct == "application/json-patch+json";
    if ((!strategic && !merge && !jsonpatch) || (strategic && type.custom))
      return api_status(
          415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types "
          "include: application/json-patch+json, application/merge-patch+json, "
          "application/apply-patch+yaml" +
              std::string(type.custom ? "" : ", application/strategic-merge-patch+json"));
    StoredObject old = c.store_.get(type.storage_key(), t.ns, t.name);
    if (!old) return not_found(type, t.name);
    boost::system::error_code ec;
    json::value p = json::parse(req.body, ec, {}, kParseLimits);
    if (ec) return bad_request("error decoding patch: " + ec.message());
    json::value current = *old;
    if (t.subresource == "scale") {
      json::value scale = boost::json::parse(scale_of(t, *old).body);
      auto patched = merge       ? apply_merge_patch(scale, p)
                     : jsonpatch ? apply_json_patch(scale, p)
                                 : apply_strategic_merge_patch(scale, p);
      if (!patched) return api_status(422, "Invalid", patched.error().message);
      return update_scale(t, *old, patched->as_object());
    }
    auto patched = merge       ? apply_merge_patch(current, p)
                   : jsonpatch ? apply_json_patch(current, p)
                               : apply_strategic_merge_patch(current, p);
    if (!patched) return api_status(422, "Invalid", patched.error().message);
    if (!patched->is_object()) return bad_request("the patch did not produce an object");
    json::object obj = std::move(patched->as_object());
    std::string rv = meta_string(obj, "resourceVersion");
    if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(type, t.name);
    return write_existing(t, *old, std::move(obj), "patch", false);
  }

  Response apply(Cluster::Target& t) {
    const ResourceType& type = *t.type;
    std::string manager = query(req, "fieldManager");
    if (manager.empty())
      return bad_request("PATCH, application/apply-patch+yaml requests require fieldManager");
    // The apply body is YAML (JSON is YAML too).
    auto parsed = yaml_object(req.body);
    if (!parsed) return bad_request("error decoding YAML: " + parsed.error().message);
    json::object applied = std::move(parsed.value());
    bool force = truthy(query(req, "force"));
    WriteContext ctx = write_context(type, t.subresource);
    StoredObject old = c.store_.get(type.storage_key(), t.ns, t.name);
    if (!old) {
      if (!t.subresource.empty()) return not_found(type, t.name);
      return create_object(t, std::move(applied), "apply", &ctx);
    }
    if (auto err = check_identity(t, applied, false)) return *err;
    std::vector<std::pair<std::string, std::string>> warnings;
    if (auto err = validate_fields(type, applied, warnings)) return *err;
    std::string rv = meta_string(applied, "resourceVersion");
    if (!rv.empty() && rv != meta_string(*old, "resourceVersion")) return conflict(type, t.name);
    json::object result;
    auto conflicts = server_side_apply(old.get(), applied, force, ctx, result);
    if (!conflicts.empty()) return apply_conflict(type, t.name, conflicts);
    Response r = write_existing(t, *old, std::move(result), "apply", true);
    r.headers.insert(r.headers.end(), warnings.begin(), warnings.end());
    return r;
  }

  Response apply_conflict(const ResourceType& t, std::string_view name,
                          const std::vector<ApplyConflict>& conflicts) {
    std::string msg = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" +
                      (conflicts.size() == 1 ? "" : "s") + ": ";
    json::array causes;
    std::map<std::string, std::vector<std::string>> by_manager;
    for (const auto& c : conflicts) {
      std::string who = "conflict with \"" + c.manager + "\" using " + c.api_version;
      by_manager[who].push_back(c.field);
      causes.push_back({{"reason", "FieldManagerConflict"}, {"message", who}, {"field", c.field}});
    }
    bool first = true;
    for (const auto& [who, fields] : by_manager) {
      if (!first) msg += "\n";
      first = false;
      if (fields.size() == 1) {
        msg += who + ": " + fields.front();
      } else {
        msg += "conflicts with" + who.substr(std::string("conflict with").size()) + ":";
        for (const auto& f : fields) msg += "\n- " + f;
      }
    }
    json::object d = details_for(t, name);
    d["causes"] = std::move(causes);
    return api_status(409, "Conflict", msg, std::move(d));
  }

  // ---- delete ----

  struct DeleteOptions {
    std::string propagation;
    std::string uid, resource_version;  // preconditions
  };

  Result<DeleteOptions> delete_options() const {
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

  Response remove(const Cluster::Target& t) {
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
  Response delete_object(const ResourceType& type, StoredObject old, std::string propagation,
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
    StoredObject gone = c.store_.erase(type.storage_key(), meta_string(*old, "namespace"),
                                       meta_string(*old, "name"));
    audit("delete", *gone, 200);
    collect_dependents(*gone, propagation);
    if (!respond) return Response{};
    json::object details = details_for(type, meta_string(*gone, "name"));
    details["uid"] = meta_string(*gone, "uid");
    return api_status(200, "", "", std::move(details));
  }

  // After an object with pending finalizers loses its last one.
  void finalize_delete(const ResourceType& type, StoredObject stored) {
    StoredObject gone = c.store_.erase(type.storage_key(), meta_string(*stored, "namespace"),
                                       meta_string(*stored, "name"));
    if (gone) collect_dependents(*gone, "Background");
  }

  // Garbage collection: dependents (ownerReferences to the owner's uid) are deleted, or orphaned.
  void collect_dependents(const json::object& owner, const std::string& propagation) {
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
                                      return r.is_object() &&
                                             string_at(r.as_object(), "uid") == uid;
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

  std::vector<const ResourceType*> all_types() const { return c.catalog_.all(); }

  std::function<void()> foreground_collector(std::string storage_key, StoredObject owner) {
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

  Response delete_collection(const Cluster::Target& t) {
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

  // ---- built-in controllers ----

  static void set_condition(json::object& obj, std::string_view type, std::string_view status_value,
                            std::string_view reason, std::string_view message,
                            std::string time = "") {
    auto& st = obj["status"];
    if (!st.is_object()) st = json::object{};
    auto& conds = st.as_object()["conditions"];
    if (!conds.is_array()) conds = json::array{};
    json::object cond{
        {"type", type},
        {"status", status_value},
        {"lastTransitionTime", time.empty() ? json::value(nullptr) : json::value(time)},
        {"reason", reason},
        {"message", message}};
    for (auto& c : conds.as_array())
      if (c.is_object() && string_at(c.as_object(), "type") == type) {
        c = std::move(cond);
        return;
      }
    conds.as_array().push_back(std::move(cond));
  }

  // What follows a write: CRDs are (re)published, watchers already heard through the store.
  void after_write(const ResourceType& type, StoredObject old, StoredObject now_obj) {
    if (type.group == "apiextensions.k8s.io" && type.kind == "CustomResourceDefinition") {
      bool spec_changed = !old || old->if_contains("spec") == nullptr ||
                          now_obj->if_contains("spec") == nullptr ||
                          old->at("spec") != now_obj->at("spec");
      if (spec_changed) schedule_crd(meta_string(*now_obj, "name"), !old);
    }
  }

  // NamesAccepted, and unless `names_only` Established: the CRD's kinds are served.
  static void establish_crd(Cluster* cluster, const std::string& name, bool names_only) {
    const ResourceType* crd_type =
        cluster->catalog_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    StoredObject cur = cluster->store_.get(crd_type->storage_key(), "", name);
    if (!cur || !meta_string(*cur, "deletionTimestamp").empty()) return;
    json::object obj = *cur;
    std::string t = rfc3339(cluster->env_.now());
    const json::object spec = obj.at("spec").as_object();  // a copy: obj grows below
    json::object& st = obj["status"].is_object() ? obj["status"].as_object()
                                                 : (obj["status"] = json::object{}).as_object();
    st["acceptedNames"] = spec.at("names");
    json::array stored;
    for (const auto& v : spec.at("versions").as_array())
      if (auto* s = v.as_object().if_contains("storage"); s && s->is_bool() && s->as_bool())
        stored.push_back(v.as_object().at("name"));
    st["storedVersions"] = stored;
    bool was_established = condition_true(*cur, "Established");
    if (!condition_true(*cur, "NamesAccepted"))
      set_condition(obj, "NamesAccepted", "True", "NoConflicts", "no conflicts found", t);
    if (!names_only) {
      if (!was_established)
        set_condition(obj, "Established", "True", "InitialNamesAccepted",
                      "the initial names have been accepted", t);
      cluster->catalog_.set_crd(name, crd_resource_types(obj));
    }
    if (obj != *cur) cluster->store_.put(crd_type->storage_key(), std::move(obj));
    if (!names_only && !was_established && cluster->audit_)
      cluster->audit_->ready(cluster->env_.now(), cluster->name_,
                             "apiextensions.k8s.io/v1|CustomResourceDefinition||" + name,
                             "established");
  }

  // After a restart from saved state: serve the established CRDs' kinds again and pick up the
  // work the built-in controllers had not finished (their timers did not survive).
  void resume_after_restore() {
    const ResourceType* crd_type =
        c.catalog_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    std::vector<StoredObject> crds;
    for (const auto& [_, crd] : c.store_.bucket(crd_type->storage_key())) crds.push_back(crd);
    for (const auto& crd : crds) {
      std::string name = meta_string(*crd, "name");
      if (!meta_string(*crd, "deletionTimestamp").empty())
        c.env_.after(std::chrono::milliseconds(0), crd_finalizer(crd));
      else if (condition_true(*crd, "Established"))
        c.catalog_.set_crd(name, crd_resource_types(*crd));
      else
        schedule_crd(name, true);
    }
    // New Services get cluster IPs after those already given out.
    for (const auto& [_, svc] : c.store_.bucket("/services")) {
      auto* spec = svc->if_contains("spec");
      std::string ip = spec && spec->is_object() ? string_at(spec->as_object(), "clusterIP") : "";
      unsigned a = 0, b = 0;
      if (std::sscanf(ip.c_str(), "10.96.%u.%u", &a, &b) == 2)
        c.next_cluster_ip_ = std::max<uint64_t>(c.next_cluster_ip_, a * 256 + b + 1);
    }
    std::vector<StoredObject> terminating;
    for (const auto& [_, ns] : c.store_.bucket("/namespaces"))
      if (!meta_string(*ns, "deletionTimestamp").empty()) terminating.push_back(ns);
    for (const auto& ns : terminating)
      c.env_.after(std::chrono::milliseconds(0), namespace_finalizer(ns));
  }

  // NamesAccepted at once, Established after --crd-delay (immediately for an update of an
  // already established CRD).
  void schedule_crd(const std::string& name, bool created) {
    auto alive = c.alive_;
    Cluster* cluster = &c;
    auto establish = [alive, cluster, name](bool names_only) {
      if (*alive) establish_crd(cluster, name, names_only);
    };
    if (created) {
      c.env_.after(std::chrono::milliseconds(0), [establish] { establish(true); });
      c.env_.after(c.options_.crd_delay, [establish] { establish(false); });
    } else {
      c.env_.after(std::chrono::milliseconds(0), [establish] { establish(false); });
    }
  }

  static std::vector<ResourceType> crd_resource_types(const json::object& crd) {
    std::vector<ResourceType> out;
    const auto& spec = crd.at("spec").as_object();
    const auto& names = spec.at("names").as_object();
    for (const auto& vv : spec.at("versions").as_array()) {
      const auto& v = vv.as_object();
      if (auto* served = v.if_contains("served"); served && served->is_bool() && !served->as_bool())
        continue;
      ResourceType t;
      t.group = string_at(spec, "group");
      t.version = string_at(v, "name");
      t.resource = string_at(names, "plural");
      t.kind = string_at(names, "kind");
      t.singular = string_at(names, "singular");
      if (t.singular.empty()) t.singular = lower(t.kind);
      t.namespaced = string_at(spec, "scope") == "Namespaced";
      t.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
      auto strings = [](const json::value* a) {
        std::vector<std::string> o;
        if (a && a->is_array())
          for (const auto& s : a->as_array())
            if (s.is_string()) o.emplace_back(s.as_string());
        return o;
      };
      t.short_names = strings(names.if_contains("shortNames"));
      t.categories = strings(names.if_contains("categories"));
      if (auto* sub = v.if_contains("subresources"); sub && sub->is_object()) {
        t.has_status = sub->as_object().contains("status");
        t.has_scale = sub->as_object().contains("scale");
      }
      t.custom = true;
      t.crd_name = meta_string(crd, "name");
      if (auto* schema = v.if_contains("schema"); schema && schema->is_object())
        if (auto* s = schema->as_object().if_contains("openAPIV3Schema")) t.schema = *s;
      if (auto* pc = v.if_contains("additionalPrinterColumns"); pc && pc->is_array())
        t.printer_columns = pc->as_array();
      out.push_back(std::move(t));
    }
    return out;
  }

  std::function<void()> crd_finalizer(StoredObject crd) {
    auto alive = c.alive_;
    Cluster* cluster = &c;
    return [alive, cluster, crd] {
      if (!*alive) return;
      std::string name = meta_string(*crd, "name");
      const auto& spec = crd->at("spec").as_object();
      std::string key =
          string_at(spec, "group") + "/" + string_at(spec.at("names").as_object(), "plural");
      cluster->store_.erase_all(key);
      cluster->catalog_.remove_crd(name);
      cluster->store_.erase("apiextensions.k8s.io/customresourcedefinitions", "", name);
    };
  }

  // The namespace controller: deletes everything in a terminating namespace, then the
  // namespace once it is empty (objects with finalizers keep it Terminating until they go).
  std::function<void()> namespace_finalizer(StoredObject ns_obj) {
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

  void drain_namespace(const std::string& ns) {
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

  bool namespace_empty(const std::string& ns) {
    for (const auto* t : all_types()) {
      if (!t->namespaced) continue;
      const auto& b = c.store_.bucket(t->storage_key());
      auto it = b.lower_bound(ns + "/");
      if (it != b.end() && std::string_view(it->first).starts_with(ns + "/")) return false;
    }
    return true;
  }

  // ---- watch ----

  std::optional<Response> watch(std::shared_ptr<WatchSink> sink, uint64_t* id_out) {
    Cluster::Target t;
    if (auto err = parse_target(t)) return *err;
    if (!t.type->allows("watch"))
      return api_status(405, "MethodNotAllowed",
                        "the server does not allow this method on the requested resource");
    if (auto denied = authorize(t, "watch")) return *denied;
    auto labels = LabelSelector::parse(query(req, "labelSelector"));
    if (!labels) return bad_request("unable to parse requirement: " + labels.error().message);
    auto fields = FieldSelector::parse(query(req, "fieldSelector"), t.type->kind, t.type->custom);
    if (!fields) return bad_request(fields.error().message);
    // A watch on one name is a list watch with a name field selector.
    if (!t.name.empty()) {
      auto by_name = FieldSelector::parse(
          "metadata.name=" + t.name +
              (query(req, "fieldSelector").empty() ? "" : "," + query(req, "fieldSelector")),
          t.type->kind, t.type->custom);
      fields = std::move(by_name);
    }
    auto state = std::make_shared<Cluster::WatchState>();
    state->sink = sink;
    state->version = t.type->api_version();
    state->ns = t.ns;
    state->labels = std::move(labels.value());
    state->fields = std::move(fields.value());
    state->bookmarks = truthy(query(req, "allowWatchBookmarks"));
    std::string rv_text = query(req, "resourceVersion");
    auto matches = [state](const json::object& o) {
      if (!state->ns.empty() && meta_string(o, "namespace") != state->ns) return false;
      return state->labels.matches(o) && state->fields.matches(o);
    };
    auto frame = [state](std::string_view type, const json::object& o) {
      std::string out = "{\"type\":\"";
      out += type;
      out += "\",\"object\":";
      out += serialize_as(o, state->version);
      out += "}\n";
      return out;
    };
    auto deliver = [state, matches, frame](const Change& ch) {
      if (state->done) return;
      bool now_in = matches(*ch.object);
      bool was_in = ch.previous && matches(*ch.previous);
      if (ch.type == EventType::kDeleted) {
        if (was_in || now_in) state->sink->send(frame("DELETED", *ch.object));
      } else if (ch.type == EventType::kAdded) {
        if (now_in) state->sink->send(frame("ADDED", *ch.object));
      } else if (now_in && was_in) {
        state->sink->send(frame("MODIFIED", *ch.object));
      } else if (now_in) {
        state->sink->send(frame("ADDED", *ch.object));
      } else if (was_in) {
        state->sink->send(frame("DELETED", *ch.object));
      }
    };
    if (rv_text.empty() || rv_text == "0") {
      // Synthetic ADDED events for the current state, then changes.
      for (const auto& [key, obj] : c.store_.bucket(t.type->storage_key()))
        if (matches(*obj)) sink->send(frame("ADDED", *obj));
    } else {
      char* end = nullptr;
      uint64_t rv = std::strtoull(rv_text.c_str(), &end, 10);
      if (!end || *end) return bad_request("invalid resource version \"" + rv_text + "\"");
      std::string key = t.type->storage_key();
      bool ok = c.store_.changes_since(rv, [&](const Change& ch) {
        if (ch.storage_key == key) deliver(ch);
      });
      if (!ok) {
        Response gone = api_status(410, "Expired",
                                   "too old resource version: " + rv_text + " (" +
                                       std::to_string(c.store_.oldest_resource_version()) + ")");
        sink->send("{\"type\":\"ERROR\",\"object\":" + gone.body + "}\n");
        sink->finish();
        return std::nullopt;
      }
    }
    state->store_id = c.store_.add_watch(t.type->storage_key(), deliver);
    uint64_t id = state->store_id;
    c.watches_[id] = state;
    if (id_out) *id_out = id;
    auto alive = c.alive_;
    Cluster* cluster = &c;
    // The stream ends at timeoutSeconds, or sooner when the sim drops watches (--watch-drop).
    std::optional<std::chrono::milliseconds> end_after;
    if (std::string ts = query(req, "timeoutSeconds"); !ts.empty())
      end_after = std::chrono::seconds(std::strtol(ts.c_str(), nullptr, 10));
    if (auto drop = c.options_.faults.watch_drop;
        drop.count() > 0 && (!end_after || drop < *end_after))
      end_after = drop;
    if (end_after) {
      c.env_.after(*end_after, [alive, cluster, id] {
        if (!*alive) return;
        auto it = cluster->watches_.find(id);
        if (it == cluster->watches_.end()) return;
        auto st = it->second;
        cluster->store_.remove_watch(id);
        cluster->watches_.erase(it);
        st->done = true;
        st->sink->finish();
      });
    }
    if (state->bookmarks) schedule_bookmark(id, state);
    return std::nullopt;
  }

  void schedule_bookmark(uint64_t id, std::shared_ptr<Cluster::WatchState> state) {
    auto alive = c.alive_;
    Cluster* cluster = &c;
    std::weak_ptr<Cluster::WatchState> weak = state;
    c.env_.after(c.options_.bookmark_interval, [alive, cluster, id, weak] {
      if (!*alive) return;
      auto st = weak.lock();
      if (!st || st->done || !cluster->watches_.contains(id)) return;
      std::string rv = std::to_string(cluster->store_.resource_version());
      st->sink->send("{\"type\":\"BOOKMARK\",\"object\":{\"apiVersion\":\"" + st->version +
                     "\",\"metadata\":{\"resourceVersion\":\"" + rv + "\"}}}\n");
      Request r;
      Handler h{*cluster, r};
      h.schedule_bookmark(id, st);
    });
  }
};

Cluster::Cluster(std::string name, ClusterOptions options, Environment env, AuditLog* audit,
                 const Snapshot* restored)
    : options_(std::move(options)),
      env_(std::move(env)),
      audit_(audit),
      name_(std::move(name)),
      catalog_(Catalog::builtin()),
      store_(options.history_limit),
      alive_(std::make_shared<bool>(true)) {
  Request boot;
  boot.user = "system:apiserver";
  Handler h{*this, boot};
  if (restored) {
    store_.restore(restored->objects, restored->resource_version);
    h.resume_after_restore();
  } else {
    // Every cluster starts with the namespaces a kube-apiserver creates.
    const ResourceType* ns_type = catalog_.find("", "v1", "namespaces");
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      json::object obj{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
      h.prepare_create(*ns_type, obj);
      store_.put(ns_type->storage_key(), std::move(obj));
    }
  }
  controllers_ = std::make_unique<Controllers>(*this);
}

void Cluster::install_crd(json::object crd) {
  call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", crd,
       "system:apiserver", "kube-apiserver/v1.32.0");
  Handler::establish_crd(this, meta_string(crd, "name"), false);
}

Response Cluster::call(std::string method, std::string path, std::string content_type,
                       const json::object& body, std::string user, std::string agent,
                       std::map<std::string, std::string> query) {
  Request req;
  req.method = std::move(method);
  req.path = std::move(path);
  req.content_type = std::move(content_type);
  req.user = std::move(user);
  req.groups = {std::string(kSystemMasters)};
  req.user_agent = std::move(agent);
  req.query = std::move(query);
  req.body = json::serialize(body);
  return handle(req);
}

void Cluster::shutdown() {
  auto watches = std::move(watches_);
  watches_.clear();
  for (auto& [id, w] : watches) {
    w->done = true;
    store_.remove_watch(id);
    w->sink->finish();
  }
}

Cluster::~Cluster() {
  *alive_ = false;
  controllers_.reset();
  for (auto& [id, w] : watches_) {
    w->done = true;
    store_.remove_watch(id);
  }
}

bool Cluster::is_watch(const Request& req) {
  if (req.method != "GET") return false;
  auto it = req.query.find("watch");
  if (it != req.query.end() && truthy(it->second)) return true;
  return req.path.find("/watch/") != std::string::npos;
}

bool Cluster::is_write(const Request& req) {
  return req.method == "POST" || req.method == "PUT" || req.method == "PATCH" ||
         req.method == "DELETE";
}

std::optional<Response> Cluster::impersonate(Request& req, const std::string& user,
                                             const std::vector<std::string>& groups) const {
  if (options_.rbac) {
    auto may = [&](std::string resource, std::string ns, std::string name) {
      AccessRequest a{req.user, req.groups,    "impersonate",  "", std::move(resource),
                      "",       std::move(ns), std::move(name)};
      if (rbac_allows(store_, a)) return std::optional<Response>();
      return std::optional<Response>(forbidden(a, forbidden_message(a)));
    };
    auto sa = service_account_of(user);
    std::optional<Response> denied =
        sa ? may("serviceaccounts", sa->first, sa->second) : may("users", "", user);
    for (const std::string& g : groups)
      if (!denied) denied = may("groups", "", g);
    if (denied) return denied;
  }
  req.impersonator = req.user;
  req.user = user;
  req.groups = groups;
  // As kube-apiserver does: a service account's groups, and every user is authenticated.
  if (groups.empty())
    for (std::string& g : service_account_groups(user)) req.groups.push_back(std::move(g));
  req.groups.emplace_back("system:authenticated");
  return std::nullopt;
}

Response Cluster::handle(const Request& req) {
  Handler h{*this, req};
  return h.handle();
}

std::optional<Response> Cluster::watch(const Request& req, std::shared_ptr<WatchSink> sink,
                                       uint64_t* id) {
  if (id) *id = 0;
  Handler h{*this, req};
  return h.watch(std::move(sink), id);
}

void Cluster::cancel_watch(uint64_t id) {
  auto it = watches_.find(id);
  if (it == watches_.end()) return;
  it->second->done = true;
  store_.remove_watch(id);
  watches_.erase(it);
}

}  // namespace planter::sim
