#include "sim/patch.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <charconv>
#include <string>

namespace planter::sim {

namespace json = boost::json;

namespace {

// ---- JSON merge patch ----

json::value merge(const json::value& target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  json::object out = target.is_object() ? target.as_object() : json::object{};
  for (const auto& [k, v] : patch.as_object()) {
    if (v.is_null()) {
      out.erase(k);
    } else {
      auto* cur = out.if_contains(k);
      out[k] = merge(cur ? *cur : json::value(), v);
    }
  }
  return out;
}

// ---- JSON patch ----

Result<std::vector<std::string>> parse_pointer(std::string_view p) {
  std::vector<std::string> out;
  if (p.empty()) return out;
  if (p.front() != '/') return Error{"invalid JSON pointer \"" + std::string(p) + "\""};
  p.remove_prefix(1);
  while (true) {
    size_t slash = p.find('/');
    std::string_view raw = p.substr(0, slash);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += raw[i];
      }
    }
    out.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    p.remove_prefix(slash + 1);
  }
  return out;
}

bool parse_index(const std::string& s, size_t size, bool allow_end, size_t& out) {
  if (s == "-" && allow_end) {
    out = size;
    return true;
  }
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() &&
         out <= (allow_end ? size : size - 1) && (allow_end || size > 0);
}

// The container of the last token, or nullptr.
json::value* parent_of(json::value& doc, const std::vector<std::string>& path) {
  json::value* at = &doc;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    if (at->is_object()) {
      at = at->as_object().if_contains(path[i]);
    } else if (at->is_array()) {
      size_t idx;
      if (!parse_index(path[i], at->as_array().size(), false, idx)) return nullptr;
      at = &at->as_array()[idx];
    } else {
      return nullptr;
    }
    if (!at) return nullptr;
  }
  return at;
}

json::value* resolve(json::value& doc, const std::vector<std::string>& path) {
  if (path.empty()) return &doc;
  json::value* parent = parent_of(doc, path);
  if (!parent) return nullptr;
  if (parent->is_object()) return parent->as_object().if_contains(path.back());
  if (parent->is_array()) {
    size_t idx;
    if (!parse_index(path.back(), parent->as_array().size(), false, idx)) return nullptr;
    return &parent->as_array()[idx];
  }
  return nullptr;
}

std::string describe(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) s += "/" + p;
  return s;
}

Result<bool> remove_at(json::value& doc, const std::vector<std::string>& path, json::value* out) {
  json::value* parent = path.empty() ? nullptr : parent_of(doc, path);
  if (!parent) return Error{"path \"" + describe(path) + "\" does not exist"};
  if (parent->is_object()) {
    auto it = parent->as_object().find(path.back());
    if (it == parent->as_object().end())
      return Error{"unable to remove nonexistent key: " + path.back() + ": missing value"};
    if (out) *out = it->value();
    parent->as_object().erase(it);
    return true;
  }
  if (parent->is_array()) {
    size_t idx;
    auto& arr = parent->as_array();
    if (!parse_index(path.back(), arr.size(), false, idx))
      return Error{"Unable to remove index \"" + path.back() + "\": out of bounds"};
    if (out) *out = arr[idx];
    arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(idx));
    return true;
  }
  return Error{"path \"" + describe(path) + "\" does not exist"};
}

Result<bool> add_at(json::value& doc, const std::vector<std::string>& path, json::value v) {
  if (path.empty()) {
    doc = std::move(v);
    return true;
  }
  json::value* parent = parent_of(doc, path);
  if (!parent) return Error{"doc is missing path: \"" + describe(path) + "\": missing value"};
  if (parent->is_object()) {
    parent->as_object()[path.back()] = std::move(v);
    return true;
  }
  if (parent->is_array()) {
    size_t idx;
    auto& arr = parent->as_array();
    if (!parse_index(path.back(), arr.size(), true, idx))
      return Error{"add operation does not apply: index \"" + path.back() + "\" out of bounds"};
    arr.insert(arr.begin() + static_cast<std::ptrdiff_t>(idx), std::move(v));
    return true;
  }
  return Error{"doc is missing path: \"" + describe(path) + "\": missing value"};
}

// ---- strategic merge patch ----

// The merge key of a list field, by the field's name, as the built-in types declare it
// (`patchMergeKey`). Empty: the list is replaced. "$primitive": a merged list of scalars.
std::string merge_key(std::string_view field, const json::array& items) {
  auto items_have = [&](std::string_view key) {
    return !items.empty() && std::all_of(items.begin(), items.end(), [&](const json::value& v) {
      return v.is_object() && (v.as_object().contains(key) || v.as_object().contains("$patch"));
    });
  };
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "env" || field == "volumes" || field == "imagePullSecrets" ||
      field == "resourceClaims")
    return "name";
  if (field == "ports") {
    if (items_have("containerPort")) return "containerPort";
    if (items_have("port")) return "port";
    return "";
  }
  if (field == "volumeMounts") return "mountPath";
  if (field == "volumeDevices") return "devicePath";
  if (field == "hostAliases") return "ip";
  if (field == "conditions") return "type";
  if (field == "ownerReferences") return "uid";
  if (field == "topologySpreadConstraints") return "topologyKey";
  if (field == "finalizers") return "$primitive";
  return "";
}

const json::value* key_of(const json::value& item, const std::string& key) {
  return item.is_object() ? item.as_object().if_contains(key) : nullptr;
}

Result<json::value> smp(const json::value& target, const json::value& patch);

Result<json::value> smp_list(std::string_view field, const json::value* target,
                             const json::array& patch) {
  std::string key = merge_key(field, patch);
  // `$patch: replace` inside a list replaces the list with the other items.
  for (const auto& item : patch)
    if (item.is_object()) {
      auto* d = item.as_object().if_contains("$patch");
      if (d && d->is_string() && d->as_string() == "replace") {
        json::array out;
        for (const auto& i : patch)
          if (!(i.is_object() && i.as_object().contains("$patch"))) out.push_back(i);
        return json::value(std::move(out));
      }
    }
  json::array cur = target && target->is_array() ? target->as_array() : json::array{};
  if (key.empty()) return json::value(patch);
  if (key == "$primitive") {
    for (const auto& v : patch)
      if (std::find(cur.begin(), cur.end(), v) == cur.end()) cur.push_back(v);
    return json::value(std::move(cur));
  }
  for (const auto& item : patch) {
    const json::value* k = key_of(item, key);
    if (!k)
      return Error{"map: " + json::serialize(item) +
                   " does not contain declared merge key: " + key};
    auto it = std::find_if(cur.begin(), cur.end(), [&](const json::value& c) {
      const json::value* ck = key_of(c, key);
      return ck && *ck == *k;
    });
    auto* directive = item.as_object().if_contains("$patch");
    if (directive && directive->is_string() && directive->as_string() == "delete") {
      if (it != cur.end()) cur.erase(it);
      continue;
    }
    if (it == cur.end()) {
      auto merged = smp(json::value(), item);
      if (!merged) return merged;
      cur.push_back(std::move(merged.value()));
    } else {
      auto merged = smp(*it, item);
      if (!merged) return merged;
      *it = std::move(merged.value());
    }
  }
  return json::value(std::move(cur));
}

Result<json::value> smp(const json::value& target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  const auto& p = patch.as_object();
  if (auto* d = p.if_contains("$patch"); d && d->is_string()) {
    if (d->as_string() == "delete") return json::value();  // caller drops nulls
    if (d->as_string() == "replace") {
      json::object out = p;
      out.erase("$patch");
      return json::value(std::move(out));
    }
  }
  json::object out = target.is_object() ? target.as_object() : json::object{};
  std::vector<std::pair<std::string, json::array>> orders;
  const json::value* retain = nullptr;
  for (const auto& [k, v] : p) {
    std::string_view key = k;
    if (key == "$patch") continue;
    if (key == "$retainKeys") {
      retain = &v;
      continue;
    }
    if (key.starts_with("$setElementOrder/")) {
      if (v.is_array()) orders.emplace_back(std::string(key.substr(17)), v.as_array());
      continue;
    }
    if (key.starts_with("$deleteFromPrimitiveList/")) {
      std::string field(key.substr(25));
      if (auto* cur = out.if_contains(field); cur && cur->is_array() && v.is_array()) {
        auto& arr = cur->as_array();
        for (const auto& d : v.as_array())
          arr.erase(std::remove(arr.begin(), arr.end(), d), arr.end());
      }
      continue;
    }
    if (v.is_null()) {
      out.erase(k);
      continue;
    }
    const json::value* cur = out.if_contains(k);
    Result<json::value> merged =
        v.is_array() ? smp_list(key, cur, v.as_array()) : smp(cur ? *cur : json::value(), v);
    if (!merged) return merged;
    if (merged->is_null() && v.is_object())
      out.erase(k);
    else
      out[k] = std::move(merged.value());
  }
  for (auto& entry : orders) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const auto& field = entry.first;
    const auto& order = entry.second;
    auto* cur = out.if_contains(field);
    if (!cur || !cur->is_array()) continue;
    auto& arr = cur->as_array();
    std::string key = merge_key(field, arr);
    if (key.empty() || key == "$primitive") continue;
    auto rank = [&](const json::value& item) {
      const json::value* k = key_of(item, key);
      for (size_t i = 0; i < order.size(); ++i) {
        const json::value* ok = key_of(order[i], key);
        if (k && ok && *k == *ok) return i;
      }
      return order.size();
    };
    std::stable_sort(arr.begin(), arr.end(),
                     [&](const json::value& a, const json::value& b) { return rank(a) < rank(b); });
  }
  if (retain && retain->is_array()) {
    json::object kept;
    for (const auto& [k, v] : out)
      if (std::find(retain->as_array().begin(), retain->as_array().end(), json::value(k)) !=
          retain->as_array().end())
        kept[k] = v;
    out = std::move(kept);
  }
  return json::value(std::move(out));
}

}  // namespace

Result<json::value> apply_merge_patch(const json::value& target, const json::value& patch) {
  return merge(target, patch);
}

Result<json::value> apply_json_patch(const json::value& target, const json::value& patch) {
  if (!patch.is_array())
    return Error{"json: cannot unmarshal object into Go value of type jsonpatch.Patch"};
  json::value doc = target;
  for (const auto& opv : patch.as_array()) {
    if (!opv.is_object()) return Error{"invalid JSON patch operation: " + json::serialize(opv)};
    const auto& op = opv.as_object();
    auto field = [&](std::string_view k) -> std::string {
      auto* v = op.if_contains(k);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    std::string name = field("op");
    auto path = parse_pointer(field("path"));
    if (!path) return path.error();
    if (name == "add" || name == "replace" || name == "test") {
      auto* value = op.if_contains("value");
      if (!value) return Error{"missing value for " + name + " operation"};
      if (name == "test") {
        json::value* at = resolve(doc, *path);
        if (!at || *at != *value)
          return Error{"testing value " + describe(*path) + " failed: test failed"};
        continue;
      }
      if (name == "replace") {
        json::value* at = resolve(doc, *path);
        if (!at)
          return Error{"replace operation does not apply: doc is missing key: " + describe(*path) +
                       ": missing value"};
        *at = *value;
        continue;
      }
      auto r = add_at(doc, *path, *value);
      if (!r) return r.error();
    } else if (name == "remove") {
      auto r = remove_at(doc, *path, nullptr);
      if (!r) return r.error();
    } else if (name == "move" || name == "copy") {
      auto from = parse_pointer(field("from"));
      if (!from) return from.error();
      json::value v;
      if (name == "move") {
        auto r = remove_at(doc, *from, &v);
        if (!r) return r.error();
      } else {
        json::value* at = resolve(doc, *from);
        if (!at)
          return Error{"copy operation does not apply: doc is missing from path: " +
                       describe(*from)};
        v = *at;
      }
      auto r = add_at(doc, *path, std::move(v));
      if (!r) return r.error();
    } else {
      return Error{"Unexpected kind: " + name};
    }
  }
  return doc;
}

Result<json::value> apply_strategic_merge_patch(const json::value& target,
                                                const json::value& patch) {
  if (!patch.is_object()) return Error{"strategic merge patch must be a JSON object"};
  return smp(target, patch);
}

}  // namespace planter::sim
