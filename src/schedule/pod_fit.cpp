#include "schedule/pod_fit.h"

#include <algorithm>
#include <boost/json.hpp>

#include "model/object.h"

namespace planter::schedule {

namespace json = boost::json;

namespace {

const json::array* array_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v ? v->if_array() : nullptr;
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
    p.affinity_terms = PodTerm::read(*a, p.ns);
  if (const json::array* a = array_at(pod, {"spec", "affinity", "podAntiAffinity",
                                            "requiredDuringSchedulingIgnoredDuringExecution"}))
    p.anti_terms = PodTerm::read(*a, p.ns);
  return p;
}

PodFit::PodFit(const ClusterView& view, const std::vector<Tentative>& placed, const PendingPod& pod)
    : view_(view), pod_(pod) {
  const auto& nodes = view.nodes();
  // Every pod to look at: bound ones and this decision's, with their node.
  auto each_pod = [&](auto&& fn) {
    for (size_t n = 0; n < nodes.size(); ++n)
      for (const BoundPod& b : nodes[n].pods) fn(n, b.ns, b.labels);
    for (const Tentative& t : placed) fn(t.node, t.pod->ns, t.pod->labels);
  };
  auto domain = [&](size_t n, const std::string& key) -> const std::string* {
    auto it = nodes[n].labels.find(key);
    return it == nodes[n].labels.end() ? nullptr : &it->second;
  };
  auto prepare = [&](const std::vector<PodTerm>& terms, std::vector<Term>& out) {
    for (const PodTerm& t : terms) {
      Term term{t.topology_key, {}};
      each_pod([&](size_t n, const std::string& ns, const Labels& labels) {
        if (!t.matches(ns, labels)) return;
        if (const std::string* d = domain(n, term.key)) term.domains.insert(*d);
      });
      out.push_back(std::move(term));
    }
  };
  prepare(pod.affinity_terms, affinity_);
  prepare(pod.anti_terms, anti_);
  // The first pod of a group that follows itself: no pod matches any of its terms anywhere, and
  // it matches all of them itself (kube-scheduler's rule, so the group can start).
  bool none_anywhere = true;
  for (const Term& t : affinity_) none_anywhere = none_anywhere && t.domains.empty();
  if (!affinity_.empty() && none_anywhere) {
    bool self = true;
    for (const PodTerm& t : pod.affinity_terms) self = self && t.matches(pod.ns, pod.labels);
    affinity_alone_ = self;
  }
  // Pods already placed whose anti-affinity this pod would break (only those that have any).
  // One Term per topology key, however many pods: a node is asked once per key.
  auto existing = [&](size_t n, const std::vector<PodTerm>& anti) {
    for (const PodTerm& t : anti) {
      if (!t.matches(pod_.ns, pod_.labels)) continue;
      auto it = std::find_if(existing_anti_.begin(), existing_anti_.end(),
                             [&](const Term& e) { return e.key == t.topology_key; });
      if (it == existing_anti_.end())
        it = existing_anti_.insert(existing_anti_.end(), Term{t.topology_key, {}});
      if (const std::string* d = domain(n, it->key)) it->domains.insert(*d);
    }
  };
  for (const auto& [n, i] : view.anti_pods()) existing(n, nodes[n].pods[i].anti_terms);
  for (const Tentative& t : placed)
    if (!t.pod->anti_terms.empty()) existing(t.node, t.pod->anti_terms);
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
