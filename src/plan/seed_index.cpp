#include "plan/seed_index.h"

namespace planter {

const std::vector<size_t> SeedIndex::kNone;

std::string SeedIndex::group_kind(std::string_view group, std::string_view kind) {
  std::string k(group);
  k.push_back('|');
  k.append(kind);
  return k;
}

SeedIndex::SeedIndex(const std::vector<Object>& objects) {
  by_key_.reserve(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    const Object& o = objects[i];
    by_key_[o.ref.key()].push_back(i);
    if (!o.ref.ns.empty()) in_namespace_[o.ref.ns].push_back(i);
    of_kind_[group_kind(o.ref.group(), o.ref.kind)].push_back(i);
    of_kind_name_[o.ref.kind].push_back(i);
    std::string_view group = o.ref.group();
    if (o.ref.kind == "CustomResourceDefinition" && group == "apiextensions.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* k = find_string(o.body, {"spec", "names", "kind"});
      if (g && k) crds_[group_kind(*g, *k)].push_back(i);
    } else if (o.ref.kind == "APIService" && group == "apiregistration.k8s.io") {
      const auto* g = find_string(o.body, {"spec", "group"});
      const auto* v = find_string(o.body, {"spec", "version"});
      // An APIService without spec.service is served by kube-apiserver itself.
      if (g && v && find_path(o.body, {"spec", "service"}))
        apiservices_[std::string(*g) + "/" + std::string(*v)].push_back(i);
    }
  }
}

const std::vector<size_t>& SeedIndex::get(const Map& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? kNone : it->second;
}

const std::vector<size_t>& SeedIndex::by_key(const std::string& k) const {
  return get(by_key_, k);
}
const std::vector<size_t>& SeedIndex::in_namespace(const std::string& ns) const {
  return get(in_namespace_, ns);
}
const std::vector<size_t>& SeedIndex::of_kind(const std::string& gk) const {
  return get(of_kind_, gk);
}
const std::vector<size_t>& SeedIndex::of_kind_name(const std::string& kind) const {
  return get(of_kind_name_, kind);
}
const std::vector<size_t>& SeedIndex::crds_for(const std::string& gk) const {
  return get(crds_, gk);
}
const std::vector<size_t>& SeedIndex::apiservices_for(const std::string& gv) const {
  return get(apiservices_, gv);
}

}  // namespace planter
