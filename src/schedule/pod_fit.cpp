#include "schedule/pod_fit.h"

#include <boost/json.hpp>

#include "model/object.h"

namespace planter::schedule {

namespace json = boost::json;

namespace {

const json::array* array_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v ? v->if_array() : nullptr;
}

bool holds(const Usage& free, const Usage& need) {
  return need.cpu <= free.cpu + 1e-9 && need.memory <= free.memory * (1 + 1e-9) + 1e-9 &&
         need.pods <= free.pods;
}

}  // namespace

PendingPod PendingPod::from(const json::object& pod) {
  PendingPod p;
  p.ns = string_field(pod, {"metadata", "namespace"});
  p.name = string_field(pod, {"metadata", "name"});
  p.uid = string_field(pod, {"metadata", "uid"});
  p.created = string_field(pod, {"metadata", "creationTimestamp"});
  const json::value* labels = find_path(pod, {"metadata", "labels"});
  p.labels = labels_of(labels ? labels->if_object() : nullptr);
  if (auto it = p.labels.find(kPodGroupLabel); it != p.labels.end()) p.group = it->second;
  p.requests = pod_requests(pod);
  if (const json::array* a = array_at(pod, {"spec", "tolerations"})) p.tolerations = *a;
  if (const json::value* s = find_path(pod, {"spec", "nodeSelector"}); s && s->is_object())
    p.node_selector = s->as_object();
  if (const json::array* a =
          array_at(pod, {"spec", "affinity", "nodeAffinity",
                         "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"}))
    p.node_terms = *a;
  if (const json::array* a = array_at(pod, {"spec", "affinity", "podAffinity",
                                            "requiredDuringSchedulingIgnoredDuringExecution"}))
    p.affinity_terms = *a;
  if (const json::array* a = array_at(pod, {"spec", "affinity", "podAntiAffinity",
                                            "requiredDuringSchedulingIgnoredDuringExecution"}))
    p.anti_terms = *a;
  return p;
}

bool term_matches(const json::object& term, const std::string& term_ns, const std::string& ns,
                  const Labels& labels) {
  // Namespaces: those listed; else every namespace when a namespaceSelector is given (planter's
  // scheduler does not read Namespaces: a non-empty selector is taken as all of them); else the
  // term's pod's own.
  bool ns_ok = false;
  if (const json::value* list = term.if_contains("namespaces");
      list && list->is_array() && !list->as_array().empty()) {
    for (const json::value& n : list->as_array())
      ns_ok = ns_ok || (n.is_string() && n.as_string() == ns);
  } else if (term.contains("namespaceSelector")) {
    ns_ok = true;
  } else {
    ns_ok = ns == term_ns;
  }
  if (!ns_ok) return false;
  const json::value* selector = term.if_contains("labelSelector");
  if (!selector || !selector->is_object()) return false;  // no selector: no pod
  auto parsed = LabelSelector::from_json(*selector);
  return parsed && parsed->matches(labels);
}

PodFit::PodFit(const ClusterView& view, const std::vector<Tentative>& placed, const PendingPod& pod)
    : view_(view), pod_(pod) {
  const auto& nodes = view.nodes();
  // Every pod to look at: bound ones and this decision's, with their node.
  auto each_pod = [&](auto&& fn) {
    for (size_t n = 0; n < nodes.size(); ++n)
      for (const BoundPod& b : nodes[n].pods) fn(n, b.ns, b.labels, b.anti_terms);
    for (const Tentative& t : placed) fn(t.node, t.pod->ns, t.pod->labels, t.pod->anti_terms);
  };
  auto domain = [&](size_t n, const std::string& key) -> const std::string* {
    auto it = nodes[n].labels.find(key);
    return it == nodes[n].labels.end() ? nullptr : &it->second;
  };
  auto prepare = [&](const json::array& terms, std::vector<Term>& out, bool& any_match) {
    any_match = true;
    for (const json::value& t : terms) {
      if (!t.is_object()) continue;
      Term term{string_field(t.as_object(), {"topologyKey"}), {}};
      bool matched = false;
      each_pod([&](size_t n, const std::string& ns, const Labels& labels, const json::array&) {
        if (!term_matches(t.as_object(), pod_.ns, ns, labels)) return;
        matched = true;
        if (const std::string* d = domain(n, term.key)) term.domains.insert(*d);
      });
      any_match = any_match && matched;
      out.push_back(std::move(term));
    }
  };
  bool all_affinity_matched = true, unused = true;
  prepare(pod.affinity_terms, affinity_, all_affinity_matched);
  prepare(pod.anti_terms, anti_, unused);
  // The first pod of a group that follows itself: no pod matches any of its terms anywhere, and
  // it matches all of them itself (kube-scheduler's rule, so the group can start).
  bool none_anywhere = true;
  for (const Term& t : affinity_) none_anywhere = none_anywhere && t.domains.empty();
  if (!affinity_.empty() && none_anywhere) {
    bool self = true;
    for (const json::value& t : pod.affinity_terms)
      self = self && t.is_object() && term_matches(t.as_object(), pod.ns, pod.ns, pod.labels);
    affinity_alone_ = self;
  }
  // Pods already placed whose anti-affinity this pod would break (only those that have any).
  auto existing = [&](size_t n, const std::string& ns, const json::array& anti) {
    for (const json::value& t : anti) {
      if (!t.is_object() || !term_matches(t.as_object(), ns, pod_.ns, pod_.labels)) continue;
      Term term{string_field(t.as_object(), {"topologyKey"}), {}};
      if (const std::string* d = domain(n, term.key)) term.domains.insert(*d);
      existing_anti_.push_back(std::move(term));
    }
  };
  for (const auto& [n, i] : view.anti_pods()) {
    const BoundPod& b = nodes[n].pods[i];
    existing(n, b.ns, b.anti_terms);
  }
  for (const Tentative& t : placed)
    if (!t.pod->anti_terms.empty()) existing(t.node, t.pod->ns, t.pod->anti_terms);
}

std::string PodFit::refuses(size_t n, const Usage& taken) const {
  const NodeView& node = view_.nodes()[n];
  if (std::string why = node_refuses(node, pod_.constraints()); !why.empty()) return why;
  Usage free = node.free();
  free.cpu -= taken.cpu;
  free.memory -= taken.memory;
  free.pods -= taken.pods;
  if (!holds(free, pod_.requests)) {
    if (pod_.requests.pods > free.pods) return "Too many pods";
    if (pod_.requests.cpu > free.cpu + 1e-9) return "Insufficient cpu";
    return "Insufficient memory";
  }
  auto in = [&](const Term& t) {
    auto it = node.labels.find(t.key);
    return it != node.labels.end() && t.domains.contains(it->second);
  };
  if (!affinity_alone_)
    for (const Term& t : affinity_)
      if (!in(t)) return "node(s) didn't match pod affinity rules";
  for (const Term& t : anti_)
    if (in(t)) return "node(s) didn't match pod anti-affinity rules";
  for (const Term& t : existing_anti_)
    if (in(t)) return "node(s) didn't satisfy existing pods anti-affinity rules";
  return "";
}

}  // namespace planter::schedule
