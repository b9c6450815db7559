#include "sim/kube_scheduler/inter_pod_affinity.h"

#include <algorithm>

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

void bump(std::unordered_map<std::string, std::unordered_map<std::string, int64_t>>& counts,
          const std::string& key, const NodeInfo* node, int64_t by) {
  if (!node) return;
  const std::string* value = node->label(key);
  if (value) counts[key][*value] += by;
}

int64_t count_at(const std::unordered_map<std::string, std::unordered_map<std::string, int64_t>>& c,
                 const std::string& key, const std::string& value) {
  auto k = c.find(key);
  if (k == c.end()) return 0;
  auto v = k->second.find(value);
  return v == k->second.end() ? 0 : v->second;
}

}  // namespace

InterPodAffinityCheck::InterPodAffinityCheck(const json::object& pod, const std::string& ns,
                                             const Cache& cache,
                                             const NamespaceLabels& namespace_labels) {
  const json::object* spec_p = object_at(pod, "spec");
  static const json::object kNone;
  const json::object& spec = spec_p ? *spec_p : kNone;
  const json::object* labels = labels_of(pod);
  affinity_ = affinity_terms(spec, ns, TermKind::kAffinity, true);
  anti_affinity_ = affinity_terms(spec, ns, TermKind::kAntiAffinity, true);
  auto preferred = affinity_terms(spec, ns, TermKind::kAffinity, false);
  auto preferred_anti = affinity_terms(spec, ns, TermKind::kAntiAffinity, false);
  pod_matches_own_terms_ =
      std::all_of(affinity_.begin(), affinity_.end(),
                  [&](const AffinityTerm& t) { return t.matches(ns, labels, namespace_labels); });

  // The pod's own terms against every placed pod.
  if (!affinity_.empty() || !anti_affinity_.empty() || !preferred.empty() ||
      !preferred_anti.empty())
    for (const auto& entry : cache.pods()) {
      // Not a structured binding: lambdas below capture it (clang 14 cannot capture those).
      const PodInfo* placed = entry.second.get();
      const NodeInfo* node = placed->where;
      if (!node) continue;
      const json::object* placed_labels = placed->labels();
      if (!affinity_.empty() &&
          std::all_of(affinity_.begin(), affinity_.end(), [&](const AffinityTerm& t) {
            return t.matches(placed->ns, placed_labels, namespace_labels);
          }))
        for (const auto& t : affinity_) bump(affinity_counts_, t.topology_key, node, 1);
      for (const auto& t : anti_affinity_)
        if (t.matches(placed->ns, placed_labels, namespace_labels))
          bump(anti_affinity_counts_, t.topology_key, node, 1);
      for (const auto& t : preferred)
        if (t.matches(placed->ns, placed_labels, namespace_labels))
          bump(topology_score_, t.topology_key, node, t.weight);
      for (const auto& t : preferred_anti)
        if (t.matches(placed->ns, placed_labels, namespace_labels))
          bump(topology_score_, t.topology_key, node, -t.weight);
    }

  // The placed pods' terms against the pod.
  for (const auto& [_, placed] : cache.pods_with_affinity()) {
    const NodeInfo* node = placed->where;
    if (!node) continue;
    const PodAffinityTerms& terms = placed->affinity;
    for (const auto& t : terms.required_anti_affinity)
      if (t.matches(ns, labels, namespace_labels)) bump(existing_anti_, t.topology_key, node, 1);
    for (const auto& t : terms.required_affinity)
      if (t.matches(ns, labels, namespace_labels))
        bump(topology_score_, t.topology_key, node, kHardPodAffinityWeight);
    for (const auto& t : terms.preferred_affinity)
      if (t.matches(ns, labels, namespace_labels))
        bump(topology_score_, t.topology_key, node, t.weight);
    for (const auto& t : terms.preferred_anti_affinity)
      if (t.matches(ns, labels, namespace_labels))
        bump(topology_score_, t.topology_key, node, -t.weight);
  }
}

std::optional<InterPodAffinityCheck::Failure> InterPodAffinityCheck::filter(
    const NodeInfo& node) const {
  // Required affinity: every topology key on the node, and placed pods matching all terms in
  // each of its domains.
  if (!affinity_.empty()) {
    bool pods_exist = true;
    for (const auto& t : affinity_) {
      const std::string* value = node.label(t.topology_key);
      if (!value) return Failure{kAffinityReason, false};
      if (count_at(affinity_counts_, t.topology_key, *value) <= 0) pods_exist = false;
    }
    if (!pods_exist && !(affinity_counts_.empty() && pod_matches_own_terms_))
      return Failure{kAffinityReason, false};
  }
  for (const auto& t : anti_affinity_) {
    const std::string* value = node.label(t.topology_key);
    if (value && count_at(anti_affinity_counts_, t.topology_key, *value) > 0)
      return Failure{kAntiAffinityReason, true};
  }
  for (const auto& [key, values] : existing_anti_) {
    const std::string* value = node.label(key);
    if (value && count_at(existing_anti_, key, *value) > 0)
      return Failure{kExistingAntiAffinityReason, true};
  }
  return std::nullopt;
}

int64_t InterPodAffinityCheck::score(const NodeInfo& node) const {
  int64_t sum = 0;
  for (const auto& [key, values] : topology_score_) {
    const std::string* value = node.label(key);
    if (!value) continue;
    auto it = values.find(*value);
    if (it != values.end()) sum += it->second;
  }
  return sum;
}

}  // namespace planter::sim::sched
