#include "sim/kube_scheduler/affinity_groups.h"

#include <boost/json/serialize.hpp>

#include "sim/json_access.h"
#include "sim/kube_scheduler/node_info.h"

namespace planter::sim::sched {

namespace json = boost::json;

AffinityGroup::AffinityGroup(std::string ns, const json::object* labels, PodAffinityTerms terms)
    : ns_(std::move(ns)),
      has_labels_(labels != nullptr),
      labels_(labels ? *labels : json::object{}),
      terms_(std::move(terms)) {}

const std::unordered_map<std::string, int64_t>& AffinityGroup::by_value(
    const std::string& key) const {
  auto [it, fresh] = by_key_.try_emplace(key);
  if (fresh)
    for (const auto& [node, n] : on_node_)
      if (const std::string* value = node->label(key)) it->second[*value] += n;
  return it->second;
}

void AffinityGroup::place(const NodeInfo* node, int64_t by) {
  placed_ += by;
  if ((on_node_[node] += by) == 0) on_node_.erase(node);
  for (auto& [key, values] : by_key_) {
    const std::string* value = node->label(key);
    if (!value) continue;
    auto it = values.try_emplace(*value).first;
    if ((it->second += by) == 0) values.erase(it);
  }
}

std::shared_ptr<AffinityGroup> AffinityGroups::join(const std::string& ns,
                                                    const json::object& pod) {
  const json::object* labels = object_at(object_at(pod, "metadata"), "labels");
  const json::object* spec = object_at(pod, "spec");
  const json::object* affinity = object_at(spec, "affinity");
  const json::value* terms = nullptr;
  const json::value* anti_terms = nullptr;
  if (affinity) {
    terms = affinity->if_contains("podAffinity");
    anti_terms = affinity->if_contains("podAntiAffinity");
  }
  // Pods with the same identity read the same to every term: the terms are read from their
  // own JSON and the namespace, and matched against the labels and the namespace.
  std::string key = ns;
  key += '\n';
  if (labels) key += json::serialize(*labels);
  key += '\n';
  if (terms) key += json::serialize(*terms);
  key += '\n';
  if (anti_terms) key += json::serialize(*anti_terms);
  auto [it, fresh] = groups_.try_emplace(key);
  if (fresh) {
    static const json::object kNone;
    it->second =
        std::make_shared<AffinityGroup>(ns, labels, pod_affinity_terms(spec ? *spec : kNone, ns));
    it->second->key_ = &it->first;
  }
  ++it->second->members_;
  return it->second;
}

void AffinityGroups::leave(const std::shared_ptr<AffinityGroup>& group) {
  if (--group->members_ == 0) groups_.erase(*group->key_);
}

void AffinityGroups::forget_domains() {
  for (auto& [_, group] : groups_) group->by_key_.clear();
}

}  // namespace planter::sim::sched
