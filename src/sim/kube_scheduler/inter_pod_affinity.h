// InterPodAffinity as kube-scheduler's plugin of that name: the incoming pod's required pod
// affinity and anti-affinity, the required anti-affinity of the pods already placed (checked
// both ways), and the preferred terms of both for scoring.
//
// A term selects pods by labelSelector in its namespaces (`namespaces` and `namespaceSelector`;
// neither: the pod's own namespace; an empty namespaceSelector: all namespaces) and spans the
// nodes sharing a value of its topologyKey. The first-pod rule: a pod whose required affinity
// no placed pod satisfies may still go anywhere the topology keys exist, when no pod at all
// matches its terms and the pod matches them itself.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/kube_scheduler/affinity_term.h"
#include "sim/kube_scheduler/cache.h"

namespace planter::sim::sched {

// What the filter needs, computed once per scheduling attempt from the placed pods (their
// groups: cache.h).
class InterPodAffinityCheck {
 public:
  InterPodAffinityCheck(const boost::json::object& pod, const std::string& ns, const Cache& cache,
                        const NamespaceLabels& namespace_labels);

  // Empty when the node passes; otherwise kube-scheduler's reason and whether preemption could
  // help (false for affinity, which removing pods cannot satisfy).
  struct Failure {
    std::string reason;
    bool resolvable = true;
  };
  std::optional<Failure> filter(const NodeInfo& node) const;

  // Raw preference scores per node (preferred terms of the pod and of the placed pods, and the
  // placed pods' required affinity with weight 1); normalised by the caller.
  bool scores_anything() const { return !topology_score_.empty(); }
  int64_t score(const NodeInfo& node) const;

  static constexpr const char* kAffinityReason = "node(s) didn't match pod affinity rules";
  static constexpr const char* kAntiAffinityReason = "node(s) didn't match pod anti-affinity rules";
  static constexpr const char* kExistingAntiAffinityReason =
      "node(s) didn't satisfy existing pods anti-affinity rules";

  // Topology key -> the placed pods' groups counted there (their pods per value of the key),
  // each with the weight its pods count by.
  using Counts = std::unordered_map<
      std::string,
      std::vector<std::pair<const std::unordered_map<std::string, int64_t>*, int64_t>>>;

 private:
  std::vector<AffinityTerm> affinity_;
  std::vector<AffinityTerm> anti_affinity_;
  Counts affinity_counts_;       // placed pods matching every term
  Counts anti_affinity_counts_;  // placed pods the pod repels
  Counts existing_anti_;         // placed pods repelling the pod
  bool pod_matches_own_terms_ = false;
  Counts topology_score_;
};

}  // namespace planter::sim::sched
