#include "sim/field_manager.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <map>

namespace planter::sim {

namespace json = boost::json;

namespace {

bool skipped_metadata(std::string_view k) {
  return k == "name" || k == "namespace" || k == "uid" || k == "resourceVersion" ||
         k == "generation" || k == "creationTimestamp" || k == "managedFields" ||
         k == "deletionTimestamp" || k == "deletionGracePeriodSeconds" || k == "selfLink" ||
         k == "generateName";
}

// An item's value of a list-map key; a port's missing protocol is TCP.
json::value key_value(const json::object& item, std::string_view key) {
  if (auto* v = item.if_contains(key)) return *v;
  if (key == "protocol") return "TCP";
  return nullptr;
}

// The list-map keys of a list, or empty when the list is atomic.
std::vector<std::string> list_keys(std::string_view field, const json::array& items) {
  if (items.empty()) return {};
  auto all_have = [&](std::string_view key) {
    return std::all_of(items.begin(), items.end(), [&](const json::value& v) {
      return v.is_object() && v.as_object().contains(key);
    });
  };
  std::vector<std::string> keys;
  if (field == "ports" && all_have("containerPort"))
    keys = {"containerPort"};
  else if (field == "ports" && all_have("port"))
    keys = {"port"};
  else if (field == "volumeMounts" && all_have("mountPath"))
    keys = {"mountPath"};
  else if (field == "conditions" && all_have("type"))
    keys = {"type"};
  else if (field == "ownerReferences" && all_have("uid"))
    keys = {"uid"};
  else if (field == "hostAliases" && all_have("ip"))
    keys = {"ip"};
  else if (all_have("name"))
    keys = {"name"};
  else
    return {};
  // Ports are keyed by port and protocol, a missing protocol being its default, TCP (as
  // structured-merge-diff reads a key field's default from the schema).
  if (field == "ports") keys.push_back("protocol");
  // Keys must be unique, or the list cannot be a map.
  std::set<std::string> seen;
  for (const auto& item : items) {
    json::object k;
    for (const auto& key : keys) k[key] = key_value(item.as_object(), key);
    if (!seen.insert(json::serialize(k)).second) return {};
  }
  return keys;
}

std::string item_key(const json::object& item, const std::vector<std::string>& keys) {
  json::object k;
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& key : sorted) k[key] = key_value(item, key);
  return "k:" + json::serialize(k);
}

void collect(const json::value& v, FieldPath& path, FieldSet& out);

void collect_object(const json::object& o, FieldPath& path, FieldSet& out) {
  for (const auto& [k, v] : o) {
    if (path.size() == 1 && path[0] == "f:metadata" && skipped_metadata(k)) continue;
    path.push_back("f:" + std::string(k));
    collect(v, path, out);
    path.pop_back();
  }
}

void collect(const json::value& v, FieldPath& path, FieldSet& out) {
  if (v.is_object() && !v.as_object().empty()) {
    collect_object(v.as_object(), path, out);
    return;
  }
  if (v.is_array()) {
    std::string_view field = path.empty() ? "" : std::string_view(path.back()).substr(2);
    auto keys = list_keys(field, v.as_array());
    if (!keys.empty()) {
      for (const auto& item : v.as_array()) {
        path.push_back(item_key(item.as_object(), keys));
        out.insert(path);
        collect_object(item.as_object(), path, out);
        path.pop_back();
      }
      return;
    }
  }
  out.insert(path);
}

// A create owns every field it sent: its fieldsV1 tree is built straight from the object, the tree
// set_to_tree(fields_of(object)) would make, keys in the same (sorted) order, without the set of
// paths in between (a third of the sim's work on a create before).
enum class Level { kTop, kMetadata, kInner };

bool skipped_at(std::string_view k, Level level, FieldScope scope) {
  if (level == Level::kMetadata) return skipped_metadata(k);
  if (level == Level::kInner) return false;
  if (k == "apiVersion" || k == "kind") return true;
  if (scope == FieldScope::kWithoutStatus) return k == "status";
  if (scope == FieldScope::kStatusOnly) return k != "status";
  return false;
}

void add_owned_fields(const json::object& o, Level level, FieldScope scope, json::object& tree);

// Below a field: a list-map's items by their keys; anything else is a leaf ({}).
void add_owned_items(const json::value& v, std::string_view field, FieldScope scope,
                     json::object& tree) {
  if (!v.is_array()) return;
  auto keys = list_keys(field, v.as_array());
  if (keys.empty()) return;
  std::vector<std::pair<std::string, const json::object*>> items;
  items.reserve(v.as_array().size());
  for (const auto& item : v.as_array())
    items.emplace_back(item_key(item.as_object(), keys), &item.as_object());
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [key, item] : items) {
    json::object child{{".", json::object{}}};
    add_owned_fields(*item, Level::kInner, scope, child);
    tree.emplace(key, std::move(child));
  }
}

void add_owned_fields(const json::object& o, Level level, FieldScope scope, json::object& tree) {
  std::vector<const json::key_value_pair*> fields;
  fields.reserve(o.size());
  for (const auto& kv : o)
    if (!skipped_at(kv.key(), level, scope)) fields.push_back(&kv);
  std::sort(fields.begin(), fields.end(),
            [](const auto* a, const auto* b) { return a->key() < b->key(); });
  for (const auto* kv : fields) {
    const json::value& v = kv->value();
    json::object child;
    if (v.is_object() && !v.as_object().empty()) {
      Level below =
          level == Level::kTop && kv->key() == "metadata" ? Level::kMetadata : Level::kInner;
      add_owned_fields(v.as_object(), below, scope, child);
      if (child.empty()) continue;  // metadata with nothing but what no one owns
    } else {
      add_owned_items(v, kv->key(), scope, child);
    }
    tree.emplace("f:" + std::string(kv->key()), std::move(child));
  }
}

FieldSet fields_of(const json::object& obj, FieldScope scope) {
  FieldSet out;
  FieldPath path;
  for (const auto& [k, v] : obj) {
    if (k == "apiVersion" || k == "kind") continue;
    bool is_status = k == "status";
    if (scope == FieldScope::kWithoutStatus && is_status) continue;
    if (scope == FieldScope::kStatusOnly && !is_status) continue;
    path.push_back("f:" + std::string(k));
    collect(v, path, out);
    path.pop_back();
  }
  return out;
}

// Follows `path[from..depth)` below `at` through objects (f:) and list-map items (k:).
const json::value* descend(const json::value* at, const FieldPath& path, size_t from,
                           size_t depth) {
  for (size_t i = from; i < depth && at; ++i) {
    const std::string& step = path[i];
    if (step.starts_with("f:")) {
      at =
          at->is_object() ? at->as_object().if_contains(std::string_view(step).substr(2)) : nullptr;
    } else if (step.starts_with("k:") && at->is_array()) {
      json::value key = json::parse(std::string_view(step).substr(2));
      const json::value* found = nullptr;
      for (const auto& item : at->as_array()) {
        if (!item.is_object()) continue;
        bool match = true;
        for (const auto& [kk, kv] : key.as_object())
          if (key_value(item.as_object(), kk) != kv) match = false;
        if (match) {
          found = &item;
          break;
        }
      }
      at = found;
    } else {
      return nullptr;
    }
  }
  return at;
}

// The value a whole field path names in an object (null when it names the object itself or
// nothing): the object is read where it is, not copied into a value.
const json::value* value_in(const json::object* root, const FieldPath& path) {
  if (!root || path.empty() || !path[0].starts_with("f:")) return nullptr;
  const json::value* first = root->if_contains(std::string_view(path[0]).substr(2));
  return first ? descend(first, path, 1, path.size()) : nullptr;
}

void remove_path(json::value& root, const FieldPath& path) {
  if (path.empty()) return;
  auto* parent = const_cast<json::value*>(descend(&root, path, 0, path.size() - 1));
  if (!parent) return;
  const std::string& last = path.back();
  if (last.starts_with("f:") && parent->is_object()) {
    parent->as_object().erase(std::string_view(last).substr(2));
  } else if (last.starts_with("k:") && parent->is_array()) {
    json::value key = json::parse(std::string_view(last).substr(2));
    auto& arr = parent->as_array();
    for (auto it = arr.begin(); it != arr.end(); ++it) {
      bool match = it->is_object();
      for (const auto& [kk, kv] : key.as_object())
        if (!match || key_value(it->as_object(), kk) != kv) match = false;
      if (match) {
        arr.erase(it);
        break;
      }
    }
  }
}

// Applied configuration merged into the live object: maps merge, list-maps merge by key,
// everything else is replaced.
json::value merge_applied(const json::value& live, const json::value& applied,
                          std::string_view field) {
  if (applied.is_object() && live.is_object()) {
    json::object out = live.as_object();
    for (const auto& [k, v] : applied.as_object()) {
      auto* cur = out.if_contains(k);
      out[k] = cur ? merge_applied(*cur, v, k) : v;
    }
    return out;
  }
  if (applied.is_array() && live.is_array()) {
    auto keys = list_keys(field, applied.as_array());
    if (keys.empty() || list_keys(field, live.as_array()) != keys) return applied;
    json::array out = live.as_array();
    for (const auto& item : applied.as_array()) {
      std::string k = item_key(item.as_object(), keys);
      auto it = std::find_if(out.begin(), out.end(), [&](const json::value& c) {
        return item_key(c.as_object(), keys) == k;
      });
      if (it == out.end())
        out.push_back(item);
      else
        *it = merge_applied(*it, item, "");
    }
    return out;
  }
  return applied;
}

struct Entry {
  std::string manager, operation, api_version, time, subresource;
  FieldSet fields;
  bool operator==(const Entry&) const = default;
};

void tree_to_set(const json::object& tree, FieldPath& path, FieldSet& out) {
  for (const auto& [k, v] : tree) {
    if (k == ".") {
      out.insert(path);
      continue;
    }
    path.push_back(std::string(k));
    if (v.is_object() && !v.as_object().empty())
      tree_to_set(v.as_object(), path, out);
    else
      out.insert(path);
    path.pop_back();
  }
}

json::object set_to_tree(const FieldSet& set) {
  json::object root;
  for (const auto& path : set) {
    json::object* at = &root;
    for (const auto& step : path) {
      auto& child = (*at)[step];
      if (!child.is_object()) child = json::object{};
      at = &child.as_object();
    }
    if (!path.empty() && path.back().starts_with("k:")) (*at)["."] = json::object{};
  }
  // Intermediate maps that are also owned themselves get a "." marker.
  return root;
}

std::vector<Entry> read_entries(const json::object* obj) {
  std::vector<Entry> out;
  if (!obj) return out;
  auto* meta = obj->if_contains("metadata");
  auto* mf = meta && meta->is_object() ? meta->as_object().if_contains("managedFields") : nullptr;
  if (!mf || !mf->is_array()) return out;
  for (const auto& ev : mf->as_array()) {
    if (!ev.is_object()) continue;
    const auto& e = ev.as_object();
    auto s = [&](std::string_view k) {
      auto* v = e.if_contains(k);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    Entry entry{s("manager"), s("operation"), s("apiVersion"), s("time"), s("subresource"), {}};
    if (auto* f = e.if_contains("fieldsV1"); f && f->is_object()) {
      FieldPath p;
      tree_to_set(f->as_object(), p, entry.fields);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

json::object entry_json(const Entry& e, json::object fields) {
  json::object o{{"manager", e.manager},        {"operation", e.operation},
                 {"apiVersion", e.api_version}, {"time", e.time},
                 {"fieldsType", "FieldsV1"},    {"fieldsV1", std::move(fields)}};
  if (!e.subresource.empty()) o["subresource"] = e.subresource;
  return o;
}

void set_managed_fields(json::object& obj, json::array entries) {
  auto& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object{};
  if (entries.empty())
    meta.as_object().erase("managedFields");
  else
    meta.as_object()["managedFields"] = std::move(entries);
}

void write_entries(json::object& obj, std::vector<Entry>& entries) {
  std::erase_if(entries, [](const Entry& e) { return e.fields.empty(); });
  json::array arr;
  for (const auto& e : entries) arr.push_back(entry_json(e, set_to_tree(e.fields)));
  set_managed_fields(obj, std::move(arr));
}

Entry& entry_for(std::vector<Entry>& entries, const WriteContext& ctx, std::string_view op) {
  for (auto& e : entries)
    if (e.manager == ctx.manager && e.operation == op && e.subresource == ctx.subresource) {
      e.api_version = ctx.api_version;
      e.time = ctx.time;
      return e;
    }
  entries.push_back(
      Entry{ctx.manager, std::string(op), ctx.api_version, ctx.time, ctx.subresource, {}});
  return entries.back();
}

bool in_scope(const FieldPath& p, FieldScope scope) {
  bool status = !p.empty() && p[0] == "f:status";
  return scope == FieldScope::kAll || (scope == FieldScope::kStatusOnly) == status;
}

}  // namespace

bool same_owners(const json::object& a, const json::object& b) {
  auto entries = [](const json::object& obj) {
    std::vector<Entry> out = read_entries(&obj);
    for (auto& e : out) e.time.clear();
    return out;
  };
  return entries(a) == entries(b);
}

std::string display_path(const FieldPath& path) {
  std::string out;
  for (const auto& step : path) {
    if (step.starts_with("f:")) {
      out += "." + step.substr(2);
    } else if (step.starts_with("k:")) {
      json::value key = json::parse(std::string_view(step).substr(2));
      out += "[";
      bool first = true;
      for (const auto& [k, v] : key.as_object()) {
        if (!first) out += ",";
        first = false;
        out += std::string(k) + "=" + json::serialize(v);
      }
      out += "]";
    }
  }
  return out;
}

std::vector<ApplyConflict> server_side_apply(const json::object* live, const json::object& applied,
                                             bool force, const WriteContext& ctx,
                                             json::object& result) {
  FieldSet applied_fields = fields_of(applied, ctx.scope);
  std::vector<Entry> entries = read_entries(live);

  std::vector<ApplyConflict> conflicts;
  for (auto& e : entries) {
    if (e.manager == ctx.manager && e.subresource == ctx.subresource) continue;
    for (auto it = e.fields.begin(); it != e.fields.end();) {
      if (!applied_fields.contains(*it)) {
        ++it;
        continue;
      }
      const json::value* before = value_in(live, *it);
      const json::value* after = value_in(&applied, *it);
      bool item = it->back().starts_with("k:");
      bool differs = !item && (!before || !after || *before != *after);
      if (!differs) {
        ++it;
        continue;
      }
      if (force) {
        it = e.fields.erase(it);
      } else {
        conflicts.push_back({e.manager, e.api_version, display_path(*it)});
        ++it;
      }
    }
  }
  if (!conflicts.empty()) return conflicts;

  // Fields this manager applied before but no longer does are removed, unless another manager
  // still owns them.
  FieldSet previous;
  for (const auto& e : entries)
    if (e.manager == ctx.manager && e.operation == "Apply" && e.subresource == ctx.subresource)
      previous = e.fields;
  json::value merged = live ? json::value(*live) : json::value(json::object{});
  std::vector<FieldPath> dropped;
  for (const auto& p : previous) {
    if (applied_fields.contains(p)) continue;
    bool owned = std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
      return !(e.manager == ctx.manager && e.operation == "Apply" &&
               e.subresource == ctx.subresource) &&
             e.fields.contains(p);
    });
    if (!owned) dropped.push_back(p);
  }
  std::sort(dropped.begin(), dropped.end(),
            [](const FieldPath& a, const FieldPath& b) { return a.size() > b.size(); });
  for (const auto& p : dropped) remove_path(merged, p);

  json::object scoped;
  for (const auto& [k, v] : applied) {
    bool status = k == "status";
    if (ctx.scope == FieldScope::kWithoutStatus && status) continue;
    if (ctx.scope == FieldScope::kStatusOnly && !status && k != "metadata" && k != "apiVersion" &&
        k != "kind")
      continue;
    scoped[k] = v;
  }
  if (auto* meta = scoped.if_contains("metadata"); meta && meta->is_object())
    meta->as_object().erase("managedFields");
  merged = merge_applied(merged, scoped, "");
  entry_for(entries, ctx, "Apply").fields = std::move(applied_fields);
  result = std::move(merged.as_object());
  write_entries(result, entries);
  return {};
}

void record_update(const json::object* old, json::object& updated, const WriteContext& ctx) {
  if (!old) {  // a create: every field it sent is the writer's
    json::object tree;
    add_owned_fields(updated, Level::kTop, ctx.scope, tree);
    json::array entries;
    if (!tree.empty())
      entries.push_back(
          entry_json(Entry{ctx.manager, "Update", ctx.api_version, ctx.time, ctx.subresource, {}},
                     std::move(tree)));
    set_managed_fields(updated, std::move(entries));
    return;
  }
  std::vector<Entry> entries = read_entries(old);
  FieldSet now = fields_of(updated, ctx.scope);
  FieldSet before = fields_of(*old, ctx.scope);
  FieldSet changed;
  for (const auto& p : now) {
    if (p.back().starts_with("k:")) {
      if (!before.contains(p)) changed.insert(p);
      continue;
    }
    const json::value* a = value_in(old, p);
    const json::value* b = value_in(&updated, p);
    if (!a || !b || *a != *b) changed.insert(p);
  }
  for (auto& e : entries) {
    for (auto it = e.fields.begin(); it != e.fields.end();) {
      bool gone = in_scope(*it, ctx.scope) && !now.contains(*it);
      if (gone || (changed.contains(*it) && e.manager != ctx.manager))
        it = e.fields.erase(it);
      else
        ++it;
    }
  }
  if (!changed.empty()) {
    Entry& mine = entry_for(entries, ctx, "Update");
    mine.fields.insert(changed.begin(), changed.end());
  }
  write_entries(updated, entries);
}

}  // namespace planter::sim
