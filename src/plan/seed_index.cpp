#include "plan/seed_index.h"

#include <array>
#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <cstring>

namespace planter {

namespace {

// A key: up to four views (unused ones empty).
using Key = std::array<std::string_view, 4>;

// Eight bytes at a time, one multiply each: names are short, and the table mixes the result again
// (this hash does not claim to avalanche).
struct KeyHash {
  static uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
  }
  size_t operator()(const Key& k) const noexcept {
    uint64_t h = 0;
    for (std::string_view part : k) {
      size_t i = 0;
      for (; i + 8 <= part.size(); i += 8) {
        uint64_t v;
        std::memcpy(&v, part.data() + i, 8);
        h = mix(h, v);
      }
      uint64_t tail = part.size();
      for (; i < part.size(); ++i) tail = (tail << 8) | static_cast<unsigned char>(part[i]);
      h = mix(h, tail);
    }
    return h;
  }
};

}  // namespace

// Key -> the objects that have it. Filled with add() in seed order, then finish() lays every key's
// objects out next to each other in one array.
class SeedIndex::Table {
 public:
  void add(const Key& key, size_t object) {
    auto [it, fresh] = ids_.try_emplace(key, static_cast<uint32_t>(ids_.size()));
    added_.emplace_back(it->second, object);
  }

  // The objects with the same key as the n-th add().
  Objects same_key(size_t n) const { return members(added_[n].first); }

  void finish() {
    start_.assign(ids_.size() + 1, 0);
    for (const auto& [id, object] : added_) ++start_[id + 1];
    for (size_t i = 1; i < start_.size(); ++i) start_[i] += start_[i - 1];
    members_.resize(added_.size());
    std::vector<size_t> next(start_.begin(), start_.end() - 1);
    for (const auto& [id, object] : added_) members_[next[id]++] = object;
  }

  Objects find(const Key& key) const {
    auto it = ids_.find(key);
    if (it == ids_.end()) return {};
    return members(it->second);
  }

 private:
  boost::unordered_flat_map<Key, uint32_t, KeyHash> ids_;
  std::vector<std::pair<uint32_t, size_t>> added_;  // (key id, object), in the order of add()
  std::vector<size_t> start_;    // per key id: where its objects start in members_
  std::vector<size_t> members_;  // object indices, grouped by key, in seed order within a key

  Objects members(uint32_t id) const {
    return Objects(members_.data() + start_[id], start_[id + 1] - start_[id]);
  }
};

SeedIndex::SeedIndex(const std::vector<Object>& objects)
    : by_key_(std::make_unique<Table>()),
      in_namespace_(std::make_unique<Table>()),
      of_kind_(std::make_unique<Table>()),
      of_kind_name_(std::make_unique<Table>()),
      crds_(std::make_unique<Table>()),
      apiservices_(std::make_unique<Table>()) {
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    std::string_view group = o.ref.group();
    by_key_->add({group, o.ref.kind, o.ref.ns, o.ref.name}, i);
    if (!o.ref.ns.empty()) in_namespace_->add({o.ref.ns}, i);
    of_kind_->add({group, o.ref.kind}, i);
    of_kind_name_->add({o.ref.kind}, i);
    if (o.ref.kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* k = find_string(o.body, {"spec", "names", "kind"});
      if (g && k) crds_->add({*g, *k}, i);
    } else if (o.ref.kind == "APIService" && group == "apiregistration.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* v = find_string(o.body, {"spec", "version"});
      // An APIService without spec.service is served by kube-apiserver itself.
      if (g && v && find_path(o.body, {"spec", "service"})) apiservices_->add({*g, *v}, i);
    }
  }
  for (Table* t : {by_key_.get(), in_namespace_.get(), of_kind_.get(), of_kind_name_.get(),
                   crds_.get(), apiservices_.get()})
    t->finish();
}

SeedIndex::~SeedIndex() = default;

SeedIndex::Objects SeedIndex::by_key(std::string_view group, std::string_view kind,
                                     std::string_view ns, std::string_view name) const {
  return by_key_->find({group, kind, ns, name});
}
SeedIndex::Objects SeedIndex::same_key(size_t object) const {
  return by_key_->same_key(object);  // by_key_ had one add() per object, in order
}
SeedIndex::Objects SeedIndex::in_namespace(std::string_view ns) const {
  return in_namespace_->find({ns});
}
SeedIndex::Objects SeedIndex::of_kind(std::string_view group, std::string_view kind) const {
  return of_kind_->find({group, kind});
}
SeedIndex::Objects SeedIndex::of_kind_name(std::string_view kind) const {
  return of_kind_name_->find({kind});
}
SeedIndex::Objects SeedIndex::crds_for(std::string_view group, std::string_view kind) const {
  return crds_->find({group, kind});
}
SeedIndex::Objects SeedIndex::apiservices_for(std::string_view api_version) const {
  auto [group, version] = split_api_version(api_version);
  return apiservices_->find({group, version});
}

}  // namespace planter
