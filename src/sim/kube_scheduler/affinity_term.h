// A pod affinity or anti-affinity term as the scheduler reads it from a pod spec: which pods it
// selects (labelSelector in its namespaces: `namespaces` and `namespaceSelector`; neither: the
// pod's own namespace; an empty namespaceSelector: all namespaces) and over which topology key.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/kube_scheduler/node_match.h"

namespace planter::sim::sched {

// The weight of a required (anti-)affinity term when InterPodAffinity scores.
constexpr int64_t kHardPodAffinityWeight = 1;

// The labels of a namespace (nullptr when it does not exist), for namespaceSelector.
using NamespaceLabels = std::function<const boost::json::object*(const std::string&)>;

struct AffinityTerm {
  CompiledSelector selector;  // labelSelector
  bool has_namespace_selector = false;
  CompiledSelector namespace_selector;
  std::vector<std::string> namespaces;
  std::string owner_namespace;  // the namespace of the pod the term belongs to
  std::string topology_key;
  int64_t weight = 1;

  // The term selects `pod` (in namespace `ns` with `labels`).
  bool matches(const std::string& ns, const boost::json::object* labels,
               const NamespaceLabels& namespace_labels) const;
};

enum class TermKind { kAffinity, kAntiAffinity };
// The required (or preferred, with their weights) terms of a pod spec.
std::vector<AffinityTerm> affinity_terms(const boost::json::object& spec, const std::string& ns,
                                         TermKind kind, bool required);

// A pod's terms of every kind, read once.
struct PodAffinityTerms {
  std::vector<AffinityTerm> required_affinity, required_anti_affinity;
  std::vector<AffinityTerm> preferred_affinity, preferred_anti_affinity;
  bool empty() const {
    return required_affinity.empty() && required_anti_affinity.empty() &&
           preferred_affinity.empty() && preferred_anti_affinity.empty();
  }
};
PodAffinityTerms pod_affinity_terms(const boost::json::object& spec, const std::string& ns);

}  // namespace planter::sim::sched
