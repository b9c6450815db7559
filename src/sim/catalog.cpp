#include "sim/catalog.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <charconv>
#include <functional>

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr std::string_view kBuiltinDiscovery =
#include "sim/builtin_discovery.inc"
    ;

const std::vector<std::string> kAllVerbs = {"create", "delete", "deletecollection", "get",
                                            "list",   "patch",  "update",           "watch"};

json::array strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

std::vector<std::string> strings(const json::value* v) {
  std::vector<std::string> out;
  if (v && v->is_array())
    for (const auto& s : v->as_array())
      if (s.is_string()) out.emplace_back(s.as_string());
  return out;
}

std::string str(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Parses "v<major>[(alpha|beta)<minor>]"; false when the version is not Kubernetes-shaped.
bool parse_kube_version(std::string_view v, int& major, int& stage, int& minor) {
  if (v.size() < 2 || v[0] != 'v' || !std::isdigit(static_cast<unsigned char>(v[1]))) return false;
  const char* p = v.data() + 1;
  const char* end = v.data() + v.size();
  auto r = std::from_chars(p, end, major);
  p = r.ptr;
  if (p == end) {
    stage = 2, minor = 0;
    return true;
  }
  std::string_view rest(p, end - p);
  if (rest.starts_with("alpha")) {
    stage = 0, rest.remove_prefix(5);
  } else if (rest.starts_with("beta")) {
    stage = 1, rest.remove_prefix(4);
  } else {
    return false;
  }
  if (rest.empty()) return false;
  auto r2 = std::from_chars(rest.data(), rest.data() + rest.size(), minor);
  return r2.ptr == rest.data() + rest.size();
}

std::string schema_name(const ResourceType& t) {
  if (t.custom) {
    // Reverse-domain group, as the apiextensions server names CRD schemas.
    std::string out;
    std::string_view g = t.group;
    while (!g.empty()) {
      size_t dot = g.rfind('.');
      std::string_view part = dot == std::string_view::npos ? g : g.substr(dot + 1);
      if (!out.empty()) out += '.';
      out += part;
      g = dot == std::string_view::npos ? std::string_view() : g.substr(0, dot);
    }
    return out + "." + t.version + "." + t.kind;
  }
  if (t.group == "apiextensions.k8s.io")
    return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + t.version + "." + t.kind;
  if (t.group == "apiregistration.k8s.io")
    return "io.k8s.kube-aggregator.pkg.apis.apiregistration." + t.version + "." + t.kind;
  std::string g = t.group.empty() ? "core" : t.group.substr(0, t.group.find('.'));
  return "io.k8s.api." + g + "." + t.version + "." + t.kind;
}

json::object gvk_json(const ResourceType& t) {
  return {{"group", t.group}, {"version", t.version}, {"kind", t.kind}};
}

std::string hash_hex(const std::string& s) {
  size_t h = std::hash<std::string>{}(s);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016zX", h);
  return buf;
}

// A query parameter as kube-openapi writes it inline (kubectl looks for the name on the
// operation itself, not behind a $ref).
json::object query_param(std::string_view name, std::string_view description) {
  return {{"name", name},
          {"in", "query"},
          {"description", description},
          {"schema", {{"type", "string"}, {"uniqueItems", true}}}};
}

json::object operation(const ResourceType& t, std::string_view action, std::string_view verb_id,
                       bool with_body, bool writes, const std::vector<std::string>& media) {
  std::string ref = "#/components/schemas/" + schema_name(t);
  json::object content_schema{{"schema", {{"$ref", ref}}}};
  json::object op;
  std::string gid;
  for (char c : t.group)
    if (c != '.' && c != '-') gid += c;
  if (!gid.empty()) gid[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(gid[0])));
  std::string vid = t.version;
  vid[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(vid[0])));
  op["operationId"] = std::string(verb_id) + (gid.empty() ? "Core" : gid) + vid +
                      (t.namespaced ? "Namespaced" : "") + t.kind;
  json::array params;
  if (writes) {
    params.push_back(query_param("dryRun",
                                 "When present, indicates that modifications should not "
                                 "be persisted."));
    params.push_back(query_param("fieldManager", "The name of the actor making these changes."));
    params.push_back(query_param("fieldValidation",
                                 "How the server handles unknown or duplicate fields: Ignore, "
                                 "Warn or Strict."));
    if (action == "patch")
      params.push_back({{"name", "force"},
                        {"in", "query"},
                        {"description", "Force an apply request, taking over conflicting fields."},
                        {"schema", {{"type", "boolean"}, {"uniqueItems", true}}}});
  }
  op["parameters"] = std::move(params);
  if (with_body) {
    json::object body_content;
    for (const auto& m : media) body_content[m] = content_schema;
    op["requestBody"] = {{"content", std::move(body_content)}, {"required", true}};
  }
  op["responses"] = {
      {"200",
       {{"description", "OK"},
        {"content",
         {{"application/json", content_schema}, {"application/yaml", content_schema}}}}}};
  op["x-kubernetes-action"] = action;
  op["x-kubernetes-group-version-kind"] = gvk_json(t);
  return op;
}

// The schema of one kind: a CRD's own, or a permissive one that accepts any fields (the sim does
// not carry the built-in types' schemas).
json::object kind_schema(const ResourceType& t) {
  json::object s;
  if (t.schema.is_object()) s = t.schema.as_object();
  s["type"] = "object";
  json::object props;
  if (auto* p = s.if_contains("properties"); p && p->is_object()) props = p->as_object();
  props["apiVersion"] = {{"type", "string"}};
  props["kind"] = {{"type", "string"}};
  props["metadata"] = {
      {"allOf",
       {{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}},
      {"default", json::object{}}};
  s["properties"] = std::move(props);
  if (!t.schema.is_object()) s["x-kubernetes-preserve-unknown-fields"] = true;
  s["x-kubernetes-group-version-kind"] = json::array{gvk_json(t)};
  return s;
}

}  // namespace

bool version_before(std::string_view a, std::string_view b) {
  int am, as, an, bm, bs, bn;
  bool ak = parse_kube_version(a, am, as, an), bk = parse_kube_version(b, bm, bs, bn);
  if (ak != bk) return ak;
  if (!ak) return a < b;
  if (as != bs) return as > bs;
  if (am != bm) return am > bm;
  return an > bn;
}

bool ResourceType::allows(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

struct Catalog::Cache {
  std::string api_versions, group_list, aggregated_core, aggregated_apis, openapi_index;
  bool valid = false;
};

namespace {

// What a kube-apiserver 1.<minor> serves of the 1.37 API: later group-versions and kinds left out,
// the gang API under its 1.36 version.
void to_api_level(json::object& doc, int minor) {
  json::array& groups = doc["groups"].as_array();
  for (auto g = groups.begin(); g != groups.end();) {
    json::object& group = g->as_object();
    if (minor < 34 && str(group, "name") == "resource.k8s.io") {
      g = groups.erase(g);
      continue;
    }
    json::array& versions = group["versions"].as_array();
    for (auto v = versions.begin(); v != versions.end();) {
      json::object& list = v->as_object();
      std::string gv = str(list, "groupVersion");
      if (gv == "scheduling.k8s.io/v1beta1" && minor < 36) {
        v = versions.erase(v);
        continue;
      }
      if (gv == "scheduling.k8s.io/v1beta1" && minor == 36)
        list["groupVersion"] = "scheduling.k8s.io/v1alpha2";
      if (gv == "resource.k8s.io/v1" && minor < 37) {
        json::array& resources = list["resources"].as_array();
        for (auto r = resources.begin(); r != resources.end();)
          r = str(r->as_object(), "name").starts_with("devicetaintrules") ? resources.erase(r)
                                                                          : r + 1;
      }
      ++v;
    }
    ++g;
  }
}

}  // namespace

Catalog Catalog::builtin(int api_minor) {
  Catalog c;
  json::value doc = json::parse(kBuiltinDiscovery);
  to_api_level(doc.as_object(), api_minor);
  auto load_version = [](std::string group, json::object list) {
    GroupVersion gv;
    std::string gvs = str(list, "groupVersion");
    gv.version = gvs.substr(gvs.find('/') + 1);
    std::map<std::string, ResourceType*> by_name;
    for (const auto& rv : list["resources"].as_array()) {
      const auto& r = rv.as_object();
      std::string name = str(r, "name");
      if (name.find('/') != std::string::npos) continue;
      ResourceType t;
      t.group = group;
      t.version = gv.version;
      t.resource = name;
      t.kind = str(r, "kind");
      t.singular = str(r, "singularName");
      t.namespaced = r.at("namespaced").as_bool();
      t.verbs = strings(r.if_contains("verbs"));
      t.short_names = strings(r.if_contains("shortNames"));
      t.categories = strings(r.if_contains("categories"));
      gv.resources.push_back(std::move(t));
    }
    for (const auto& rv : list["resources"].as_array()) {
      std::string name = str(rv.as_object(), "name");
      size_t slash = name.find('/');
      if (slash == std::string::npos) continue;
      for (auto& t : gv.resources) {
        if (t.resource != name.substr(0, slash)) continue;
        if (name.substr(slash + 1) == "status") t.has_status = true;
        if (name.substr(slash + 1) == "scale") t.has_scale = true;
      }
    }
    gv.raw_list = std::move(list);
    return gv;
  };
  c.core_.name = "";
  c.core_.preferred = "v1";
  c.core_.builtin = true;
  c.core_.versions.push_back(load_version("", doc.at("core").as_object()));
  for (const auto& gv : doc.at("groups").as_array()) {
    const auto& g = gv.as_object();
    Group group;
    group.name = str(g, "name");
    group.preferred = str(g, "preferred");
    group.builtin = true;
    for (const auto& v : g.at("versions").as_array())
      group.versions.push_back(load_version(group.name, v.as_object()));
    c.groups_.push_back(std::move(group));
  }
  c.changed();
  return c;
}

void Catalog::changed() {
  cache_ = std::make_shared<Cache>();
}

Catalog::Group* Catalog::group(std::string_view name) {
  if (name.empty()) return &core_;
  for (auto& g : groups_)
    if (g.name == name) return &g;
  return nullptr;
}

const Catalog::Group* Catalog::group(std::string_view name) const {
  return const_cast<Catalog*>(this)->group(name);
}

const Catalog::GroupVersion* Catalog::group_version(std::string_view g,
                                                    std::string_view version) const {
  const Group* grp = group(g);
  if (!grp) return nullptr;
  for (const auto& v : grp->versions)
    if (v.version == version) return &v;
  return nullptr;
}

bool Catalog::is_builtin_group(std::string_view g) const {
  const Group* grp = group(g);
  return grp && grp->builtin;
}

const ResourceType* Catalog::find(std::string_view g, std::string_view version,
                                  std::string_view resource) const {
  const GroupVersion* gv = group_version(g, version);
  if (!gv) return nullptr;
  for (const auto& t : gv->resources)
    if (t.resource == resource) return &t;
  return nullptr;
}

const ResourceType* Catalog::find_kind(std::string_view g, std::string_view kind) const {
  const Group* grp = group(g);
  if (!grp) return nullptr;
  const ResourceType* any = nullptr;
  for (const auto& v : grp->versions)
    for (const auto& t : v.resources)
      if (t.kind == kind) {
        if (v.version == grp->preferred) return &t;
        if (!any) any = &t;
      }
  return any;
}

const ResourceType* Catalog::find_kind(std::string_view g, std::string_view version,
                                       std::string_view kind) const {
  const GroupVersion* gv = group_version(g, version);
  if (!gv) return nullptr;
  for (const auto& t : gv->resources)
    if (t.kind == kind) return &t;
  return nullptr;
}

std::vector<const ResourceType*> Catalog::all() const {
  std::vector<const ResourceType*> out;
  for (const auto& v : core_.versions)
    for (const auto& t : v.resources) out.push_back(&t);
  for (const auto& g : groups_)
    for (const auto& v : g.versions)
      for (const auto& t : v.resources) out.push_back(&t);
  return out;
}

std::vector<const ResourceType*> Catalog::versions_of(std::string_view storage_key) const {
  std::vector<const ResourceType*> out;
  auto visit = [&](const Group& g) {
    for (const auto& v : g.versions)
      for (const auto& t : v.resources)
        if (t.storage_key() == storage_key) out.push_back(&t);
  };
  visit(core_);
  for (const auto& g : groups_) visit(g);
  return out;
}

void Catalog::set_crd(const std::string& crd_name, std::vector<ResourceType> versions) {
  remove_crd(crd_name);
  if (versions.empty()) return;
  const std::string group_name = versions.front().group;
  Group* g = group(group_name);
  if (!g) {
    groups_.push_back(Group{group_name, "", {}, false});
    g = &groups_.back();
  }
  for (const auto& t : versions) {
    auto it = std::find_if(g->versions.begin(), g->versions.end(),
                           [&](const GroupVersion& v) { return v.version == t.version; });
    if (it == g->versions.end()) {
      g->versions.push_back(GroupVersion{t.version, {}, {}});
      it = std::prev(g->versions.end());
    }
    it->resources.push_back(t);
  }
  std::sort(g->versions.begin(), g->versions.end(),
            [](const GroupVersion& a, const GroupVersion& b) {
              return version_before(a.version, b.version);
            });
  g->preferred = g->versions.front().version;
  crds_[crd_name] = std::move(versions);
  changed();
}

void Catalog::remove_crd(const std::string& crd_name) {
  auto it = crds_.find(crd_name);
  if (it == crds_.end()) return;
  crds_.erase(it);
  for (auto& g : groups_) {
    if (g.builtin) continue;
    for (auto& v : g.versions)
      std::erase_if(v.resources, [&](const ResourceType& t) { return t.crd_name == crd_name; });
    std::erase_if(g.versions, [](const GroupVersion& v) { return v.resources.empty(); });
    g.preferred = g.versions.empty() ? "" : g.versions.front().version;
  }
  std::erase_if(groups_, [](const Group& g) { return !g.builtin && g.versions.empty(); });
  changed();
}

json::object Catalog::resource_list_json(const Group& g, const GroupVersion& v) const {
  if (v.raw_list.is_object()) return v.raw_list.as_object();
  json::array resources;
  for (const auto& t : v.resources) {
    json::object r{{"name", t.resource},
                   {"singularName", t.singular},
                   {"namespaced", t.namespaced},
                   {"kind", t.kind},
                   {"verbs", strings(t.verbs)}};
    if (!t.short_names.empty()) r["shortNames"] = strings(t.short_names);
    if (!t.categories.empty()) r["categories"] = strings(t.categories);
    resources.push_back(std::move(r));
    if (t.has_status)
      resources.push_back({{"name", t.resource + "/status"},
                           {"singularName", ""},
                           {"namespaced", t.namespaced},
                           {"kind", t.kind},
                           {"verbs", {"get", "patch", "update"}}});
    if (t.has_scale)
      resources.push_back({{"name", t.resource + "/scale"},
                           {"singularName", ""},
                           {"namespaced", t.namespaced},
                           {"group", "autoscaling"},
                           {"version", "v1"},
                           {"kind", "Scale"},
                           {"verbs", {"get", "patch", "update"}}});
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", g.name + "/" + v.version},
          {"resources", std::move(resources)}};
}

const std::string& Catalog::api_versions() const {
  if (cache_->api_versions.empty())
    cache_->api_versions = json::serialize(
        json::object{{"kind", "APIVersions"},
                     {"versions", {"v1"}},
                     {"serverAddressByClientCIDRs",
                      {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", "127.0.0.1"}}}}});
  return cache_->api_versions;
}

std::string Catalog::resource_list(std::string_view g, std::string_view version) const {
  const GroupVersion* gv = group_version(g, version);
  if (!gv || (g.empty() && version != "v1")) return {};
  return json::serialize(resource_list_json(*group(g), *gv));
}

namespace {
json::object group_json(std::string_view name, const std::string& preferred,
                        const std::vector<std::string>& versions) {
  json::array vs;
  for (const auto& v : versions)
    vs.push_back({{"groupVersion", std::string(name) + "/" + v}, {"version", v}});
  return {{"name", name},
          {"versions", std::move(vs)},
          {"preferredVersion",
           {{"groupVersion", std::string(name) + "/" + preferred}, {"version", preferred}}}};
}
}  // namespace

const std::string& Catalog::group_list() const {
  if (cache_->group_list.empty()) {
    json::array groups;
    for (const auto& g : groups_) {
      std::vector<std::string> versions;
      for (const auto& v : g.versions) versions.push_back(v.version);
      groups.push_back(group_json(g.name, g.preferred, versions));
    }
    cache_->group_list = json::serialize(json::object{
        {"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}});
  }
  return cache_->group_list;
}

std::string Catalog::group_document(std::string_view name) const {
  const Group* g = name.empty() ? nullptr : group(name);
  if (!g) return {};
  std::vector<std::string> versions;
  for (const auto& v : g->versions) versions.push_back(v.version);
  json::object o = group_json(g->name, g->preferred, versions);
  o["kind"] = "APIGroup";
  o["apiVersion"] = "v1";
  return json::serialize(o);
}

const std::string& Catalog::aggregated(bool core) const {
  std::string& out = core ? cache_->aggregated_core : cache_->aggregated_apis;
  if (!out.empty()) return out;
  auto group_item = [&](const Group& g) {
    json::array versions;
    for (const auto& v : g.versions) {
      // Converted from the per-version list, so both forms always agree.
      json::object list = resource_list_json(g, v);
      json::array resources;
      std::map<std::string, json::object*> by_name;
      for (const auto& rv : list["resources"].as_array()) {
        const auto& r = rv.as_object();
        std::string name = str(r, "name");
        size_t slash = name.find('/');
        if (slash != std::string::npos) continue;
        json::object a{{"resource", name},
                       {"responseKind", {{"group", ""}, {"version", ""}, {"kind", str(r, "kind")}}},
                       {"scope", r.at("namespaced").as_bool() ? "Namespaced" : "Cluster"},
                       {"singularResource", str(r, "singularName")},
                       {"verbs", r.contains("verbs") ? r.at("verbs") : json::array{}}};
        if (r.contains("shortNames")) a["shortNames"] = r.at("shortNames");
        if (r.contains("categories")) a["categories"] = r.at("categories");
        resources.push_back(std::move(a));
      }
      for (auto& a : resources)
        by_name[std::string(a.as_object().at("resource").as_string())] = &a.as_object();
      for (const auto& rv : list["resources"].as_array()) {
        const auto& r = rv.as_object();
        std::string name = str(r, "name");
        size_t slash = name.find('/');
        if (slash == std::string::npos) continue;
        auto it = by_name.find(name.substr(0, slash));
        if (it == by_name.end()) continue;
        json::object sub{{"subresource", name.substr(slash + 1)},
                         {"responseKind",
                          {{"group", str(r, "group")},
                           {"version", str(r, "version")},
                           {"kind", str(r, "kind")}}},
                         {"verbs", r.contains("verbs") ? r.at("verbs") : json::array{}}};
        auto& subs = (*it->second)["subresources"];
        if (!subs.is_array()) subs = json::array{};
        subs.as_array().push_back(std::move(sub));
      }
      versions.push_back(
          {{"version", v.version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
    }
    json::object meta;
    if (!g.name.empty())
      meta["name"] = g.name;
    else
      meta["creationTimestamp"] = nullptr;
    return json::object{{"metadata", std::move(meta)}, {"versions", std::move(versions)}};
  };
  json::array items;
  if (core) {
    items.push_back(group_item(core_));
  } else {
    for (const auto& g : groups_) items.push_back(group_item(g));
  }
  out = json::serialize(json::object{{"kind", "APIGroupDiscoveryList"},
                                     {"apiVersion", "apidiscovery.k8s.io/v2"},
                                     {"metadata", json::object{}},
                                     {"items", std::move(items)}});
  return out;
}

const std::string& Catalog::openapi_index() const {
  if (!cache_->openapi_index.empty()) return cache_->openapi_index;
  json::object paths;
  auto add = [&](std::string path) {
    std::string doc = openapi_document(path);
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash_hex(doc)}};
  };
  add("api/v1");
  for (const auto& g : groups_)
    for (const auto& v : g.versions) add("apis/" + g.name + "/" + v.version);
  cache_->openapi_index = json::serialize(json::object{{"paths", std::move(paths)}});
  return cache_->openapi_index;
}

std::string Catalog::openapi_document(std::string_view gv_path) const {
  std::string_view g, version;
  if (gv_path == "api/v1") {
    version = "v1";
  } else if (gv_path.starts_with("apis/")) {
    std::string_view rest = gv_path.substr(5);
    size_t slash = rest.find('/');
    if (slash == std::string_view::npos) return {};
    g = rest.substr(0, slash);
    version = rest.substr(slash + 1);
    if (g.empty()) return {};
  } else {
    return {};
  }
  const GroupVersion* gv = group_version(g, version);
  if (!gv) return {};
  std::string prefix =
      g.empty() ? "/api/v1" : "/apis/" + std::string(g) + "/" + std::string(version);
  // Patch media types: kubectl computes a strategic merge patch from compiled-in types for
  // built-in kinds when the OpenAPI does not offer one, which is more exact than a patch from
  // the permissive schemas served here (docs/decisions.md).
  const std::vector<std::string> patch_media = {"application/json-patch+json",
                                                "application/merge-patch+json",
                                                "application/apply-patch+yaml"};
  const std::vector<std::string> body_media = {"application/json", "application/yaml"};
  json::object paths;
  json::object schemas;
  for (const auto& t : gv->resources) {
    std::string base = prefix + (t.namespaced ? "/namespaces/{namespace}/" : "/") + t.resource;
    json::object collection;
    if (t.allows("list")) collection["get"] = operation(t, "list", "list", false, false, {});
    if (t.allows("create"))
      collection["post"] = operation(t, "post", "create", true, true, body_media);
    if (t.allows("deletecollection"))
      collection["delete"] = operation(t, "deletecollection", "deleteCollection", false, false, {});
    if (!collection.empty()) paths[base] = std::move(collection);
    json::object item;
    if (t.allows("get")) item["get"] = operation(t, "get", "read", false, false, {});
    if (t.allows("update")) item["put"] = operation(t, "put", "replace", true, true, body_media);
    if (t.allows("patch")) item["patch"] = operation(t, "patch", "patch", true, true, patch_media);
    if (t.allows("delete")) item["delete"] = operation(t, "delete", "delete", false, false, {});
    if (!item.empty()) paths[base + "/{name}"] = std::move(item);
    if (t.has_status) {
      json::object status{{"get", operation(t, "get", "read", false, false, {})},
                          {"put", operation(t, "put", "replace", true, true, body_media)},
                          {"patch", operation(t, "patch", "patch", true, true, patch_media)}};
      for (auto& [_, op] : status)
        op.as_object()["operationId"] =
            std::string(op.as_object()["operationId"].as_string()) + "Status";
      paths[base + "/{name}/status"] = std::move(status);
    }
    schemas[schema_name(t)] = kind_schema(t);
  }
  schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"] = {
      {"type", "object"},
      {"description", "Standard object metadata."},
      {"properties",
       {{"name", {{"type", "string"}}},
        {"namespace", {{"type", "string"}}},
        {"labels", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
        {"annotations", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}}}},
      {"x-kubernetes-preserve-unknown-fields", true}};
  return json::serialize(json::object{{"openapi", "3.0.0"},
                                      {"info", {{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
                                      {"paths", std::move(paths)},
                                      {"components", {{"schemas", std::move(schemas)}}}});
}

}  // namespace planter::sim
