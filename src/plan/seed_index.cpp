#include "plan/seed_index.h"

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <cstring>

#include "plan/grouping.h"

namespace planter {

namespace {

// Eight bytes at a time, one multiply each: names are short, and the table mixes the result again
// (this hash does not claim to avalanche).
uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 32);
}
uint64_t hash_text(uint64_t h, std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t v;
    std::memcpy(&v, s.data() + i, 8);
    h = mix(h, v);
  }
  uint64_t tail = s.size();
  for (; i < s.size(); ++i) tail = (tail << 8) | static_cast<unsigned char>(s[i]);
  return mix(h, tail);
}

// A name within an API group: a kind (group, kind) or an API version (group, version).
struct GroupKey {
  std::string_view group, name;
  bool operator==(const GroupKey&) const = default;
};
// An identity, with its kind and namespace already numbered.
struct ObjectKey {
  uint32_t kind, ns;
  std::string_view name;
  bool operator==(const ObjectKey&) const = default;
};

struct Hash {
  size_t operator()(std::string_view s) const noexcept { return hash_text(0, s); }
  size_t operator()(const GroupKey& k) const noexcept {
    return hash_text(hash_text(0, k.group), k.name);
  }
  size_t operator()(const ObjectKey& k) const noexcept {
    return hash_text(mix(mix(0, k.kind), k.ns), k.name);
  }
};

// Numbers distinct keys densely, in the order they are first seen. The keys are views of the
// objects' strings.
constexpr uint32_t kNone = UINT32_MAX;

template <class Key>
class Numbering {
 public:
  uint32_t add(const Key& key) {
    return ids_.try_emplace(key, static_cast<uint32_t>(ids_.size())).first->second;
  }
  uint32_t find(const Key& key) const {
    if (ids_.empty()) return kNone;
    auto it = ids_.find(key);
    return it == ids_.end() ? kNone : it->second;
  }
  uint32_t size() const { return static_cast<uint32_t>(ids_.size()); }
  void reserve(size_t keys) { ids_.reserve(keys); }
  template <class F>
  void each(F f) const {
    for (const auto& [key, id] : ids_) f(key, id);
  }

 private:
  boost::unordered_flat_map<Key, uint32_t, Hash> ids_;
};

}  // namespace

struct SeedIndex::Tables {
  Numbering<GroupKey> kinds;
  Numbering<std::string_view> namespaces;  // 0 is "", cluster scope
  Numbering<ObjectKey> keys;
  Numbering<std::string_view> kind_names;
  Numbering<GroupKey> api_versions;                     // (group, version) of APIServices
  std::vector<uint32_t> kind_of, namespace_of, key_of;  // per object
  std::vector<const boost::json::object*> annotations;  // per object

  Grouping by_key;            // by key
  Grouping of_kind;           // by kind
  Grouping in_namespace;      // by namespace
  Grouping namespaces_named;  // Namespace objects, by namespace
  Grouping crds;              // CRDs, by the kind they define
  Grouping apiservices;       // APIServices, by the API version they serve
  Grouping of_kind_name;      // by kind name
};

SeedIndex::SeedIndex(const std::vector<Object>& objects) : t_(std::make_unique<Tables>()) {
  Tables& t = *t_;
  t.namespaces.add("");
  t.kind_of.resize(objects.size());
  t.namespace_of.resize(objects.size());
  t.key_of.resize(objects.size());
  t.annotations.resize(objects.size());
  t.keys.reserve(objects.size());
  for (Grouping* g : {&t.by_key, &t.of_kind, &t.of_kind_name}) g->reserve(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    std::string_view group = o.ref.group();
    uint32_t kind = t.kinds.add({group, o.ref.kind});
    uint32_t ns = o.ref.ns.empty() ? 0 : t.namespaces.add(o.ref.ns);
    uint32_t key = t.keys.add({kind, ns, o.ref.name});
    t.kind_of[i] = kind;
    t.namespace_of[i] = ns;
    t.key_of[i] = key;
    t.annotations[i] = o.annotations();
    t.by_key.add(key, i);
    t.of_kind.add(kind, i);
    if (ns != 0) t.in_namespace.add(ns, i);
    if (group.empty() && o.ref.kind == "Namespace") {
      t.namespaces_named.add(t.namespaces.add(o.ref.name), i);
    } else if (o.ref.kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* k = find_string(o.body, {"spec", "names", "kind"});
      if (g && k) t.crds.add(t.kinds.add({*g, *k}), i);
    } else if (o.ref.kind == "APIService" && group == "apiregistration.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* v = find_string(o.body, {"spec", "version"});
      // An APIService without spec.service is served by kube-apiserver itself.
      if (g && v && find_path(o.body, {"spec", "service"}))
        t.apiservices.add(t.api_versions.add({*g, *v}), i);
    }
  }
  // Kinds by name alone: numbered per distinct kind, then every object by its kind's name.
  std::vector<uint32_t> kind_name(t.kinds.size());
  t.kinds.each([&](const GroupKey& k, uint32_t id) { kind_name[id] = t.kind_names.add(k.name); });
  for (size_t i = 0; i < objects.size(); ++i) t.of_kind_name.add(kind_name[t.kind_of[i]], i);

  t.by_key.finish(t.keys.size());
  t.of_kind.finish(t.kinds.size());
  t.in_namespace.finish(t.namespaces.size());
  t.namespaces_named.finish(t.namespaces.size());
  t.crds.finish(t.kinds.size());
  t.apiservices.finish(t.api_versions.size());
  t.of_kind_name.finish(t.kind_names.size());
}

SeedIndex::~SeedIndex() = default;

SeedIndex::Objects SeedIndex::by_key(std::string_view group, std::string_view kind,
                                     std::string_view ns, std::string_view name) const {
  uint32_t k = t_->kinds.find({group, kind});
  uint32_t n = ns.empty() ? 0 : t_->namespaces.find(ns);
  if (k == kNone || n == kNone) return {};
  return t_->by_key.members(t_->keys.find({k, n, name}));
}
SeedIndex::Objects SeedIndex::same_key(size_t object) const {
  return t_->by_key.members(t_->key_of[object]);
}
uint32_t SeedIndex::key_group(size_t object) const {
  return t_->key_of[object];
}
const boost::json::object* SeedIndex::annotations(size_t object) const {
  return t_->annotations[object];
}
SeedIndex::Objects SeedIndex::namespace_of(size_t object) const {
  uint32_t ns = t_->namespace_of[object];
  return ns == 0 ? Objects{} : t_->namespaces_named.members(ns);
}
SeedIndex::Objects SeedIndex::crds_of(size_t object) const {
  return t_->crds.members(t_->kind_of[object]);
}
SeedIndex::Objects SeedIndex::in_namespace(std::string_view ns) const {
  return ns.empty() ? Objects{} : t_->in_namespace.members(t_->namespaces.find(ns));
}
SeedIndex::Objects SeedIndex::namespaces_named(std::string_view name) const {
  return t_->namespaces_named.members(t_->namespaces.find(name));
}
SeedIndex::Objects SeedIndex::of_kind(std::string_view group, std::string_view kind) const {
  return t_->of_kind.members(t_->kinds.find({group, kind}));
}
SeedIndex::Objects SeedIndex::of_kind_name(std::string_view kind) const {
  return t_->of_kind_name.members(t_->kind_names.find(kind));
}
SeedIndex::Objects SeedIndex::apiservices_for(std::string_view api_version) const {
  auto [group, version] = split_api_version(api_version);
  return t_->apiservices.members(t_->api_versions.find({group, version}));
}

}  // namespace planter
