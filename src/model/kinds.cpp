#include "model/kinds.h"

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
  auto it = by_kind_.find(key(group, kind));
  return it == by_kind_.end() ? nullptr : &it->second;
}

const KindInfo* KindTable::find_resource(std::string_view group, std::string_view resource) const {
  auto it = by_resource_.find(key(group, resource));
  if (it == by_resource_.end()) return nullptr;
  auto k = by_kind_.find(it->second);
  return k == by_kind_.end() ? nullptr : &k->second;
}

Scope KindTable::scope(std::string_view group, std::string_view kind) const {
  const KindInfo* info = find(group, kind);
  return info ? info->scope : Scope::kUnknown;
}

bool KindTable::is_builtin_group(std::string_view group) const {
  return builtin_groups_.contains(std::string(group));
}

void KindTable::add(KindInfo info) {
  auto k = key(info.group, info.kind);
  by_resource_[key(info.group, info.resource)] = k;
  by_kind_[k] = std::move(info);
}

}  // namespace planter
