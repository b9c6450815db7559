#include "plan/seed_index.h"

#include <boost/unordered/unordered_flat_map.hpp>
#include <functional>

namespace planter {

namespace {

// Lets the tables be probed with a string_view, without building a std::string.
struct KeyHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct KeyEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

}  // namespace

// Key -> the objects that have it. Filled with add() in seed order, then finish() lays every key's
// objects out next to each other in one array.
class SeedIndex::Table {
 public:
  void add(std::string_view key, size_t object) {
    auto it = ids_.find(key);  // Boost 1.81 has no try_emplace by a view
    if (it == ids_.end())
      it = ids_.emplace(std::string(key), static_cast<uint32_t>(ids_.size())).first;
    pending_.emplace_back(it->second, object);
  }

  void finish() {
    start_.assign(ids_.size() + 1, 0);
    for (const auto& [id, object] : pending_) ++start_[id + 1];
    for (size_t i = 1; i < start_.size(); ++i) start_[i] += start_[i - 1];
    members_.resize(pending_.size());
    std::vector<size_t> next(start_.begin(), start_.end() - 1);
    for (const auto& [id, object] : pending_) members_[next[id]++] = object;
    pending_ = {};
  }

  Objects find(std::string_view key) const {
    auto it = ids_.find(key);
    if (it == ids_.end()) return {};
    return Objects(members_.data() + start_[it->second],
                   start_[it->second + 1] - start_[it->second]);
  }

 private:
  boost::unordered_flat_map<std::string, uint32_t, KeyHash, KeyEqual> ids_;
  std::vector<std::pair<uint32_t, size_t>> pending_;
  std::vector<size_t> start_;    // per key id: where its objects start in members_
  std::vector<size_t> members_;  // object indices, grouped by key, in seed order within a key
};

std::string SeedIndex::group_kind(std::string_view group, std::string_view kind) {
  std::string k(group);
  k.push_back('|');
  k.append(kind);
  return k;
}

SeedIndex::SeedIndex(const std::vector<Object>& objects)
    : by_key_(std::make_unique<Table>()),
      in_namespace_(std::make_unique<Table>()),
      of_kind_(std::make_unique<Table>()),
      of_kind_name_(std::make_unique<Table>()),
      crds_(std::make_unique<Table>()),
      apiservices_(std::make_unique<Table>()) {
  std::string key;
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    std::string_view group = o.ref.group();
    key = object_key(group, o.ref.kind, o.ref.ns, o.ref.name);
    by_key_->add(key, i);
    if (!o.ref.ns.empty()) in_namespace_->add(o.ref.ns, i);
    key.assign(group).append("|").append(o.ref.kind);
    of_kind_->add(key, i);
    of_kind_name_->add(o.ref.kind, i);
    if (o.ref.kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* k = find_string(o.body, {"spec", "names", "kind"});
      if (g && k) crds_->add(group_kind(*g, *k), i);
    } else if (o.ref.kind == "APIService" && group == "apiregistration.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* v = find_string(o.body, {"spec", "version"});
      // An APIService without spec.service is served by kube-apiserver itself.
      if (g && v && find_path(o.body, {"spec", "service"}))
        apiservices_->add(std::string(*g) + "/" + std::string(*v), i);
    }
  }
  for (Table* t : {by_key_.get(), in_namespace_.get(), of_kind_.get(), of_kind_name_.get(),
                   crds_.get(), apiservices_.get()})
    t->finish();
}

SeedIndex::~SeedIndex() = default;

SeedIndex::Objects SeedIndex::by_key(std::string_view k) const {
  return by_key_->find(k);
}
SeedIndex::Objects SeedIndex::in_namespace(std::string_view ns) const {
  return in_namespace_->find(ns);
}
SeedIndex::Objects SeedIndex::of_kind(std::string_view gk) const {
  return of_kind_->find(gk);
}
SeedIndex::Objects SeedIndex::of_kind_name(std::string_view kind) const {
  return of_kind_name_->find(kind);
}
SeedIndex::Objects SeedIndex::crds_for(std::string_view gk) const {
  return crds_->find(gk);
}
SeedIndex::Objects SeedIndex::apiservices_for(std::string_view gv) const {
  return apiservices_->find(gv);
}

}  // namespace planter
