#include "sim/kube_scheduler/affinity_term.h"

#include <algorithm>

#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

AffinityTerm term_of(const json::object& t, const std::string& ns, int64_t weight) {
  AffinityTerm term;
  term.selector = CompiledSelector(t.if_contains("labelSelector"));
  const json::value* ns_selector = t.if_contains("namespaceSelector");
  term.has_namespace_selector = ns_selector && ns_selector->is_object();
  if (term.has_namespace_selector) term.namespace_selector = CompiledSelector(ns_selector);
  if (auto* nss = t.if_contains("namespaces"); nss && nss->is_array())
    for (const auto& n : nss->as_array())
      if (n.is_string()) term.namespaces.emplace_back(n.as_string());
  term.owner_namespace = ns;
  term.topology_key = string_at(t, "topologyKey");
  term.weight = weight;
  return term;
}

}  // namespace

bool AffinityTerm::matches(const std::string& ns, const json::object* labels,
                           const NamespaceLabels& namespace_labels) const {
  bool in_namespace = false;
  if (namespaces.empty() && !has_namespace_selector) {
    in_namespace = ns == owner_namespace;
  } else {
    in_namespace = std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
    if (!in_namespace && has_namespace_selector)
      in_namespace = namespace_selector.selects_everything() ||
                     namespace_selector.matches(namespace_labels(ns));
  }
  return in_namespace && selector.matches(labels);
}

std::vector<AffinityTerm> affinity_terms(const json::object& spec, const std::string& ns,
                                         TermKind kind, bool required) {
  std::vector<AffinityTerm> out;
  const json::object* affinity = object_at(
      object_at(spec, "affinity"), kind == TermKind::kAffinity ? "podAffinity" : "podAntiAffinity");
  if (!affinity) return out;
  auto* list = affinity->if_contains(required ? "requiredDuringSchedulingIgnoredDuringExecution"
                                              : "preferredDuringSchedulingIgnoredDuringExecution");
  if (!list || !list->is_array()) return out;
  for (const auto& v : list->as_array()) {
    if (!v.is_object()) continue;
    if (required) {
      out.push_back(term_of(v.as_object(), ns, kHardPodAffinityWeight));
    } else if (const json::object* t = object_at(v.as_object(), "podAffinityTerm")) {
      out.push_back(term_of(*t, ns, int_at(&v.as_object(), "weight")));
    }
  }
  return out;
}

PodAffinityTerms pod_affinity_terms(const json::object& spec, const std::string& ns) {
  return PodAffinityTerms{affinity_terms(spec, ns, TermKind::kAffinity, true),
                          affinity_terms(spec, ns, TermKind::kAntiAffinity, true),
                          affinity_terms(spec, ns, TermKind::kAffinity, false),
                          affinity_terms(spec, ns, TermKind::kAntiAffinity, false)};
}

}  // namespace planter::sim::sched
