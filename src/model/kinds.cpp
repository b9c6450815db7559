#include "model/kinds.h"

#include <algorithm>
#include <array>

namespace planter {

namespace {

struct BuiltinRow {
  const char* group;
  const char* version;
  const char* kind;
  const char* resource;
  bool namespaced;
};

constexpr BuiltinRow kBuiltinKinds[] = {
#include "model/builtin_kinds.inc"
};

}  // namespace

size_t KindTable::Hash::operator()(std::string_view s) const noexcept {
  return std::hash<std::string_view>{}(s);
}

// "group|name" composed on the stack when it fits, so a lookup allocates nothing.
template <class V>
const V* KindTable::lookup(const Map<V>& map, std::string_view group, std::string_view name) {
  std::array<char, 256> buf;
  size_t n = group.size() + 1 + name.size();
  typename Map<V>::const_iterator it;
  if (n <= buf.size()) {
    std::copy(group.begin(), group.end(), buf.begin());
    buf[group.size()] = '|';
    std::copy(name.begin(), name.end(), buf.begin() + static_cast<long>(group.size()) + 1);
    it = map.find(std::string_view(buf.data(), n));
  } else {
    it = map.find(key(group, name));
  }
  return it == map.end() ? nullptr : &it->second;
}

std::string KindTable::key(std::string_view group, std::string_view kind) {
  std::string k(group);
  k.push_back('|');
  k.append(kind);
  return k;
}

KindTable KindTable::builtin() {
  KindTable t;
  for (const auto& row : kBuiltinKinds) {
    t.builtin_groups_[row.group] = true;
    auto k = key(row.group, row.kind);
    auto it = t.by_kind_.find(k);
    if (it != t.by_kind_.end()) {
      it->second.versions.emplace_back(row.version);
      continue;
    }
    KindInfo info{row.group,     row.kind,
                  row.resource,  row.namespaced ? Scope::kNamespaced : Scope::kCluster,
                  {row.version}, true};
    t.by_resource_[key(row.group, row.resource)] = k;
    t.by_kind_.emplace(std::move(k), std::move(info));
  }
  return t;
}

const KindInfo* KindTable::find(std::string_view group, std::string_view kind) const {
  return lookup(by_kind_, group, kind);
}

const KindInfo* KindTable::find_resource(std::string_view group, std::string_view resource) const {
  const std::string* kind_key = lookup(by_resource_, group, resource);
  if (!kind_key) return nullptr;
  auto k = by_kind_.find(*kind_key);
  return k == by_kind_.end() ? nullptr : &k->second;
}

Scope KindTable::scope(std::string_view group, std::string_view kind) const {
  const KindInfo* info = find(group, kind);
  return info ? info->scope : Scope::kUnknown;
}

bool KindTable::is_builtin_group(std::string_view group) const {
  return builtin_groups_.find(group) != builtin_groups_.end();
}

std::vector<std::string> KindTable::kinds_in_group(std::string_view group) const {
  std::vector<std::string> out;
  for (const auto& [k, info] : by_kind_)
    if (info.group == group) out.push_back(info.kind);
  std::sort(out.begin(), out.end());
  return out;
}

void KindTable::add(KindInfo info) {
  auto k = key(info.group, info.kind);
  by_resource_[key(info.group, info.resource)] = k;
  by_kind_[k] = std::move(info);
}

}  // namespace planter
