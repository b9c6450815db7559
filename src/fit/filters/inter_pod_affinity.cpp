// InterPodAffinity, required terms only (preferred ones score):
// - affinity: the node has every term's topology key, and in its domain there is a pod the term
//   matches; when no pod anywhere matches any term and the pod matches all its own terms, it may
//   start the group (the first-pod rule);
// - anti-affinity: no pod the term matches in the node's domain (a node without the key passes);
// - existing pods' anti-affinity: no pod in the node's domain has a term that matches this pod.
// Pods assumed onto the snapshot (a group's pods placed earlier in the same decision) count as
// bound, so a group's own anti-affinity spreads it.
#include <algorithm>

#include "fit/filters/filters.h"

namespace planter::fit::filters {

namespace {

bool in(const AffinityState::Term& t, const NodeInfo& node) {
  const std::string* v = node.label(t.key);
  return v && t.domains.contains(*v);
}

}  // namespace

void prefilter_inter_pod_affinity(CycleState& state, const PodInfo& pod, const Snapshot& snapshot) {
  AffinityState& s = state.affinity;
  const auto& nodes = snapshot.nodes();
  auto prepare = [&](const std::vector<PodTerm>& terms, std::vector<AffinityState::Term>& out) {
    for (const PodTerm& t : terms) {
      AffinityState::Term term{t.topology_key, {}};
      for (const NodeInfo& n : nodes) {
        if (n.pods.empty()) continue;
        const std::string* d = n.label(term.key);
        if (!d || term.domains.contains(*d)) continue;
        for (const auto& p : n.pods)
          if (t.matches(p->ns, p->labels)) {
            term.domains.insert(*d);
            break;
          }
      }
      out.push_back(std::move(term));
    }
  };
  if (!pod.affinity.empty()) {
    // Whether any pod anywhere matches any affinity term (domain or not).
    for (const NodeInfo& n : nodes)
      for (const auto& p : n.pods)
        for (const PodTerm& t : pod.affinity)
          if (!s.any_affinity_match && t.matches(p->ns, p->labels)) s.any_affinity_match = true;
    prepare(pod.affinity, s.affinity);
    s.matches_own_affinity = true;
    for (const PodTerm& t : pod.affinity)
      s.matches_own_affinity = s.matches_own_affinity && t.matches(pod.ns, pod.labels);
  }
  prepare(pod.anti_affinity, s.anti);
  // One term per topology key however many pods: a node is asked once per key.
  for (const auto& [n, i] : snapshot.anti_pods()) {
    const PodInfo& other = *nodes[n].pods[i];
    for (const PodTerm& t : other.anti_affinity) {
      if (!t.matches(pod.ns, pod.labels)) continue;
      const std::string* d = nodes[n].label(t.topology_key);
      if (!d) continue;
      auto it = std::find_if(s.existing_anti.begin(), s.existing_anti.end(),
                             [&](const AffinityState::Term& e) { return e.key == t.topology_key; });
      if (it == s.existing_anti.end())
        it = s.existing_anti.insert(s.existing_anti.end(), {t.topology_key, {}});
      it->domains.insert(*d);
    }
  }
}

Status inter_pod_affinity(const CycleState& state, const PodInfo&, const NodeInfo& node) {
  const AffinityState& s = state.affinity;
  if (!s.affinity.empty()) {
    bool exist = true;
    for (const AffinityState::Term& t : s.affinity) {
      if (!node.label(t.key)) return {{}, {kAffinity}, true};
      exist = exist && in(t, node);
    }
    if (!exist && !(!s.any_affinity_match && s.matches_own_affinity))
      return {{}, {kAffinity}, true};
  }
  for (const AffinityState::Term& t : s.anti)
    if (in(t, node)) return {{}, {kAntiAffinity}, false};
  for (const AffinityState::Term& t : s.existing_anti)
    if (in(t, node)) return {{}, {kExistingAntiAffinity}, false};
  return {};
}

}  // namespace planter::fit::filters
