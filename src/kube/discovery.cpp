#include "kube/discovery.h"

#include <boost/json.hpp>
#include <deque>

#include "kube/json_limits.h"
#include "model/object.h"
#include "model/stable_hash.h"

namespace planter::kube {

namespace json = boost::json;

const char* const kAggregatedDiscoveryAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json";

namespace {

const json::array* array_at(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_array() ? &it->value().get_array() : nullptr;
}

std::vector<std::string> strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const json::array* a = array_at(o, key))
    for (const json::value& v : *a)
      if (v.is_string()) out.emplace_back(v.get_string());
  return out;
}

}  // namespace

std::string ApiResource::group_version_path() const {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

std::string ApiResource::path(std::string_view ns, std::string_view name) const {
  std::string p = group_version_path();
  if (namespaced && !ns.empty()) {
    p += "/namespaces/";
    p += ns;
  }
  p += "/" + resource;
  if (!name.empty()) {
    p += "/";
    p += name;
  }
  return p;
}

bool is_aggregated_discovery(std::string_view content_type) {
  return content_type.find("as=APIGroupDiscoveryList") != std::string_view::npos;
}

Result<std::vector<ApiResource>> parse_aggregated_discovery(const json::value& doc) {
  if (!doc.is_object() || string_field(doc.get_object(), {"kind"}) != "APIGroupDiscoveryList")
    return Error{"not an APIGroupDiscoveryList"};
  std::vector<ApiResource> out;
  const json::array* items = array_at(doc.get_object(), "items");
  if (!items) return out;
  for (const json::value& g : *items) {
    if (!g.is_object()) continue;
    const json::object& go = g.get_object();
    std::string group;
    if (auto m = go.find("metadata"); m != go.end() && m->value().is_object())
      group = string_field(m->value().get_object(), {"name"});
    const json::array* versions = array_at(go, "versions");
    if (!versions) continue;
    for (const json::value& v : *versions) {
      if (!v.is_object()) continue;
      const json::object& vo = v.get_object();
      std::string version = string_field(vo, {"version"});
      const json::array* resources = array_at(vo, "resources");
      if (!resources) continue;
      for (const json::value& r : *resources) {
        if (!r.is_object()) continue;
        const json::object& ro = r.get_object();
        ApiResource a;
        a.group = group;
        a.version = version;
        a.resource = string_field(ro, {"resource"});
        if (auto rk = ro.find("responseKind"); rk != ro.end() && rk->value().is_object())
          a.kind = string_field(rk->value().get_object(), {"kind"});
        a.namespaced = string_field(ro, {"scope"}) == "Namespaced";
        if (const json::array* subs = array_at(ro, "subresources"))
          for (const json::value& s : *subs)
            if (s.is_object() && string_field(s.get_object(), {"subresource"}) == "status")
              a.has_status = true;
        if (!a.kind.empty() && !a.resource.empty()) out.push_back(std::move(a));
      }
    }
  }
  return out;
}

Result<std::vector<ApiResource>> parse_resource_list(const json::value& doc) {
  if (!doc.is_object() || string_field(doc.get_object(), {"kind"}) != "APIResourceList")
    return Error{"not an APIResourceList"};
  const json::object& o = doc.get_object();
  std::string gv = string_field(o, {"groupVersion"});
  size_t slash = gv.find('/');
  std::string group = slash == std::string::npos ? "" : gv.substr(0, slash);
  std::string version = slash == std::string::npos ? gv : gv.substr(slash + 1);
  std::vector<ApiResource> out;
  std::vector<std::string> with_status;
  if (const json::array* resources = array_at(o, "resources")) {
    for (const json::value& r : *resources) {
      if (!r.is_object()) continue;
      const json::object& ro = r.get_object();
      std::string name = string_field(ro, {"name"});
      if (size_t s = name.find('/'); s != std::string::npos) {
        if (name.substr(s + 1) == "status") with_status.push_back(name.substr(0, s));
        continue;
      }
      ApiResource a;
      a.group = group;
      a.version = version;
      a.resource = name;
      a.kind = string_field(ro, {"kind"});
      auto ns = ro.find("namespaced");
      a.namespaced = ns != ro.end() && ns->value().is_bool() && ns->value().get_bool();
      out.push_back(std::move(a));
    }
  }
  for (ApiResource& a : out)
    for (const std::string& s : with_status) a.has_status = a.has_status || s == a.resource;
  return out;
}

std::vector<std::string> parse_group_versions(const json::value& doc) {
  std::vector<std::string> out;
  if (!doc.is_object()) return out;
  const json::object& o = doc.get_object();
  if (string_field(o, {"kind"}) == "APIVersions") return strings(o, "versions");
  if (const json::array* groups = array_at(o, "groups")) {
    for (const json::value& g : *groups) {
      if (!g.is_object()) continue;
      if (const json::array* versions = array_at(g.get_object(), "versions"))
        for (const json::value& v : *versions)
          if (v.is_object()) out.push_back(string_field(v.get_object(), {"groupVersion"}));
    }
  }
  return out;
}

namespace {

// The tables in use, by a hash of their content: an equal table is shared, not made again.
std::shared_ptr<const RestMapper::Table> interned(RestMapper::Table table) {
  uint64_t hash = kStableHashSeed;
  for (const auto& [key, r] : table) {
    hash = stable_hash(key, hash);
    hash = stable_hash(r.resource, hash);
    hash = stable_hash(r.namespaced ? "n" : "c", hash);
    hash = stable_hash(r.has_status ? "s" : "-", hash);
  }
  // Never destroyed: a worker may finish a discovery while the process exits.
  static auto* mu = new std::mutex;
  static auto* tables_held = new std::multimap<uint64_t, std::weak_ptr<const RestMapper::Table>>;
  auto& tables = *tables_held;
  std::lock_guard lock(*mu);
  for (auto [it, end] = tables.equal_range(hash); it != end;) {
    std::shared_ptr<const RestMapper::Table> held = it->second.lock();
    if (!held) {
      it = tables.erase(it);
      continue;
    }
    if (*held == table) return held;
    ++it;
  }
  auto made = std::make_shared<const RestMapper::Table>(std::move(table));
  if (tables.size() >= 64)  // tables no mapper holds any more are forgotten
    std::erase_if(tables, [](const auto& t) { return t.second.expired(); });
  tables.emplace(hash, made);
  return made;
}

RestMapper::Table table_of(std::vector<ApiResource> resources) {
  RestMapper::Table table;
  for (ApiResource& r : resources) {
    std::string key = r.api_version() + "|" + r.kind;
    table.try_emplace(std::move(key), std::move(r));
  }
  return table;
}

}  // namespace

void RestMapper::replace(std::vector<ApiResource> resources) {
  replace(interned(table_of(std::move(resources))));
}

void RestMapper::replace(std::shared_ptr<const Table> table) {
  std::lock_guard lock(mu_);
  by_gvk_ = std::move(table);
}

std::shared_ptr<const RestMapper::Table> RestMapper::table() const {
  std::lock_guard lock(mu_);
  return by_gvk_;
}

Result<std::vector<ApiResource>> parse_aggregated_text(std::string_view root,
                                                       std::string_view text) {
  boost::json::error_code ec;
  boost::json::value doc = boost::json::parse(text, ec, {}, json_limits());
  if (ec) return Error{std::string(root) + " is not JSON"};
  auto parsed = parse_aggregated_discovery(doc);
  if (!parsed) return Error{std::string(root) + ": " + parsed.error().message};
  return parsed;
}

Result<std::shared_ptr<const RestMapper::Table>> aggregated_table(std::string_view api,
                                                                  std::string_view apis) {
  struct Seen {
    std::string api, apis;
    std::shared_ptr<const RestMapper::Table> table;
  };
  // Never destroyed, as the interned tables.
  static auto* mu = new std::mutex;
  static auto* seen = new std::deque<Seen>;
  {
    std::lock_guard lock(*mu);
    for (const Seen& s : *seen)
      if (s.api == api && s.apis == apis) return s.table;
  }
  std::vector<ApiResource> resources;
  for (auto [root, text] : {std::pair{"/api", api}, std::pair{"/apis", apis}}) {
    auto parsed = parse_aggregated_text(root, text);
    if (!parsed) return parsed.error();
    for (ApiResource& r : parsed.value()) resources.push_back(std::move(r));
  }
  std::shared_ptr<const RestMapper::Table> table = interned(table_of(std::move(resources)));
  std::lock_guard lock(*mu);
  if (seen->size() >= 16) seen->pop_front();
  seen->push_back({std::string(api), std::string(apis), table});
  return table;
}

std::optional<ApiResource> RestMapper::find(std::string_view api_version,
                                            std::string_view kind) const {
  std::string key;
  key.reserve(api_version.size() + kind.size() + 1);
  key.append(api_version).append("|").append(kind);
  std::shared_ptr<const Table> table;
  {
    std::lock_guard lock(mu_);
    table = by_gvk_;
  }
  if (!table) return std::nullopt;
  auto it = table->find(key);
  if (it == table->end()) return std::nullopt;
  return it->second;
}

}  // namespace planter::kube
