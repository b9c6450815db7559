#include "sim/kube_scheduler/inter_pod_affinity.h"

#include <algorithm>

#include "sim/json_access.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

// The placed pods in `value`'s domain of `key`: the groups' counts there, each by its weight.
int64_t count_at(const InterPodAffinityCheck::Counts& c, const std::string& key,
                 const std::string& value) {
  auto k = c.find(key);
  if (k == c.end()) return 0;
  int64_t sum = 0;
  for (const auto& [values, weight] : k->second)
    if (auto v = values->find(value); v != values->end()) sum += v->second * weight;
  return sum;
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
  bool own_terms = !affinity_.empty() || !anti_affinity_.empty() || !preferred.empty() ||
                   !preferred_anti.empty();

  // Every placed pod of a group counts `weight` in its topology domain of `key` (a pod on a
  // node without the key counts nowhere). The group's own counts are read, not copied: the
  // check lives within one attempt, while the cache does not change.
  auto add = [](Counts& counts, const std::string& key, const AffinityGroup& group,
                int64_t weight) {
    const auto& values = group.by_value(key);
    if (!values.empty()) counts[key].emplace_back(&values, weight);
  };
  for (const auto& entry : cache.affinity_groups().all()) {
    // Not a structured binding: lambdas below capture it (clang 14 cannot capture those).
    const AffinityGroup& group = *entry.second;
    if (group.placed() == 0) continue;
    const json::object* placed_labels = group.labels();
    const std::string& placed_ns = group.ns();
    // The pod's own terms against the placed pods.
    if (own_terms) {
      if (!affinity_.empty() &&
          std::all_of(affinity_.begin(), affinity_.end(), [&](const AffinityTerm& t) {
            return t.matches(placed_ns, placed_labels, namespace_labels);
          }))
        for (const auto& t : affinity_) add(affinity_counts_, t.topology_key, group, 1);
      for (const auto& t : anti_affinity_)
        if (t.matches(placed_ns, placed_labels, namespace_labels))
          add(anti_affinity_counts_, t.topology_key, group, 1);
      for (const auto& t : preferred)
        if (t.matches(placed_ns, placed_labels, namespace_labels))
          add(topology_score_, t.topology_key, group, t.weight);
      for (const auto& t : preferred_anti)
        if (t.matches(placed_ns, placed_labels, namespace_labels))
          add(topology_score_, t.topology_key, group, -t.weight);
    }
    // The placed pods' terms against the pod.
    const PodAffinityTerms& terms = group.terms();
    for (const auto& t : terms.required_anti_affinity)
      if (t.matches(ns, labels, namespace_labels)) add(existing_anti_, t.topology_key, group, 1);
    for (const auto& t : terms.required_affinity)
      if (t.matches(ns, labels, namespace_labels))
        add(topology_score_, t.topology_key, group, kHardPodAffinityWeight);
    for (const auto& t : terms.preferred_affinity)
      if (t.matches(ns, labels, namespace_labels))
        add(topology_score_, t.topology_key, group, t.weight);
    for (const auto& t : terms.preferred_anti_affinity)
      if (t.matches(ns, labels, namespace_labels))
        add(topology_score_, t.topology_key, group, -t.weight);
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
  for (const auto& [key, _] : topology_score_)
    if (const std::string* value = node.label(key)) sum += count_at(topology_score_, key, *value);
  return sum;
}

}  // namespace planter::sim::sched
