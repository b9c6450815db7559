#include "schedule/cluster_view.h"

#include <algorithm>
#include <boost/json.hpp>
#include <limits>

#include "model/object.h"
#include "model/quantity.h"

namespace planter::schedule {

namespace json = boost::json;

namespace {

// Kubernetes' default when a node does not say how many pods it takes.
constexpr int64_t kDefaultMaxPods = 110;

double amount(const json::object* list, const char* resource) {
  if (!list) return 0;
  auto v = parse_quantity(quantity_text(list->if_contains(resource)));
  return v && *v > 0 ? *v : 0;
}

const json::object* object_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = find_path(o, path);
  return v ? v->if_object() : nullptr;
}

// A container's requests: what it states, else its limits (the API server defaults requests to
// limits, so a served pod states them; a pod from a manifest may not).
Usage container_requests(const json::value& c) {
  const json::object* o = c.if_object();
  if (!o) return {};
  const json::object* requests = object_at(*o, {"resources", "requests"});
  const json::object* limits = object_at(*o, {"resources", "limits"});
  Usage u;
  for (const char* r : {"cpu", "memory"}) {
    double v = requests && requests->contains(r) ? amount(requests, r) : amount(limits, r);
    (std::string_view(r) == "cpu" ? u.cpu : u.memory) = v;
  }
  return u;
}

bool restartable(const json::value& c) {
  const json::object* o = c.if_object();
  const json::value* policy = o ? o->if_contains("restartPolicy") : nullptr;
  return policy && policy->is_string() && policy->as_string() == "Always";
}

}  // namespace

bool PodTerm::matches(const std::string& ns, const Labels& labels) const {
  if (!selector) return false;
  bool ns_ok = any_namespace ? true
               : namespaces.empty()
                   ? ns == owner_ns
                   : std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
  return ns_ok && selector->matches(labels);
}

std::vector<PodTerm> PodTerm::read(const json::array& terms, const std::string& owner_ns) {
  std::vector<PodTerm> out;
  for (const json::value& v : terms) {
    const json::object* t = v.if_object();
    if (!t) continue;
    PodTerm term;
    term.topology_key = string_field(*t, {"topologyKey"});
    term.owner_ns = owner_ns;
    if (const json::value* list = t->if_contains("namespaces"); list && list->is_array())
      for (const json::value& n : list->as_array())
        if (n.is_string()) term.namespaces.emplace_back(n.as_string());
    term.any_namespace = term.namespaces.empty() && t->contains("namespaceSelector");
    if (const json::value* sel = t->if_contains("labelSelector"); sel && sel->is_object())
      if (auto parsed = LabelSelector::from_json(*sel)) term.selector = std::move(parsed.value());
    out.push_back(std::move(term));
  }
  return out;
}

bool holds(const Usage& free, const Usage& need) {
  constexpr double kSlack = 1e-9;
  return need.cpu <= free.cpu + kSlack && need.memory <= free.memory * (1 + kSlack) + kSlack &&
         need.pods <= free.pods;
}

double room_left(const NodeView& n, const Usage& taken) {
  auto share = [](double free, double all) { return all > 0 ? free / all : 0.0; };
  Usage f = n.free();
  return (share(f.cpu - taken.cpu, n.allocatable.cpu) +
          share(f.memory - taken.memory, n.allocatable.memory)) /
         2;
}

BoundPod bound_pod(const json::object& pod) {
  BoundPod b;
  b.ns = string_field(pod, {"metadata", "namespace"});
  b.labels = labels_of(object_at(pod, {"metadata", "labels"}));
  if (auto it = b.labels.find(kPodGroupLabel); it != b.labels.end()) b.group = it->second;
  if (const json::value* anti = find_path(pod, {"spec", "affinity", "podAntiAffinity",
                                                "requiredDuringSchedulingIgnoredDuringExecution"});
      anti && anti->is_array())
    b.anti_terms = PodTerm::read(anti->as_array(), b.ns);
  return b;
}

Usage pod_requests(const json::object& pod) {
  Usage total;
  const json::value* spec_v = pod.if_contains("spec");
  const json::object* spec = spec_v ? spec_v->if_object() : nullptr;
  if (spec) {
    if (const json::value* cs = spec->if_contains("containers"); cs && cs->is_array())
      for (const json::value& c : cs->as_array()) total += container_requests(c);
    // Init containers run one after another; sidecars started before one keep running.
    Usage sidecars, init_peak;
    if (const json::value* cs = spec->if_contains("initContainers"); cs && cs->is_array())
      for (const json::value& c : cs->as_array()) {
        Usage u = container_requests(c);
        if (restartable(c)) {
          sidecars += u;
          continue;
        }
        init_peak.cpu = std::max(init_peak.cpu, sidecars.cpu + u.cpu);
        init_peak.memory = std::max(init_peak.memory, sidecars.memory + u.memory);
      }
    total += sidecars;
    total.cpu = std::max(total.cpu, init_peak.cpu);
    total.memory = std::max(total.memory, init_peak.memory);
    if (const json::value* o = spec->if_contains("overhead"); o && o->is_object()) {
      total.cpu += amount(&o->as_object(), "cpu");
      total.memory += amount(&o->as_object(), "memory");
    }
  }
  total.pods = 1;
  return total;
}

void ClusterView::add_node(const json::object& node) {
  NodeView n;
  n.name = string_field(node, {"metadata", "name"});
  if (n.name.empty() || by_name_.contains(n.name)) return;
  if (const json::object* labels = object_at(node, {"metadata", "labels"}))
    for (const auto& [k, v] : *labels)
      if (v.is_string()) n.labels.emplace(k, v.as_string());
  if (const json::value* spec = node.if_contains("spec"); spec && spec->is_object()) {
    const json::object& s = spec->as_object();
    if (const json::value* t = s.if_contains("taints"); t && t->is_array())
      n.taints = t->as_array();
    if (const json::value* u = s.if_contains("unschedulable"); u && u->is_bool())
      n.unschedulable = u->as_bool();
  }
  const json::object* alloc = object_at(node, {"status", "allocatable"});
  if (!alloc) alloc = object_at(node, {"status", "capacity"});
  n.allocatable.cpu = amount(alloc, "cpu");
  n.allocatable.memory = amount(alloc, "memory");
  double pods = amount(alloc, "pods");
  // Clamped before the conversion: a node may say anything ("1e30"), and counts stay int32.
  n.allocatable.pods =
      pods > 0 ? static_cast<int64_t>(std::min<double>(pods, std::numeric_limits<int32_t>::max()))
               : kDefaultMaxPods;
  by_name_[n.name] = nodes_.size();
  nodes_.push_back(std::move(n));
}

void ClusterView::add_pod(const json::object& pod, const std::set<std::string>& uncounted) {
  std::string node = string_field(pod, {"spec", "nodeName"});
  auto it = by_name_.find(node);
  if (it == by_name_.end()) return;
  std::string phase = string_field(pod, {"status", "phase"});
  if (phase == "Succeeded" || phase == "Failed") return;
  NodeView& n = nodes_[it->second];
  std::string stack = string_field(pod, {"metadata", "labels", kStackLabel});
  if (!stack.empty()) n.stacks.insert(stack);
  if (keep_pods_) keep(it->second, bound_pod(pod));
  if (!stack.empty() && uncounted.contains(stack)) return;
  n.used += pod_requests(pod);
}

void ClusterView::keep(size_t node, BoundPod pod) {
  NodeView& n = nodes_[node];
  if (!pod.group.empty()) n.groups.insert(pod.ns + "/" + pod.group);
  if (!pod.anti_terms.empty()) anti_pods_.emplace_back(node, n.pods.size());
  n.pods.push_back(std::move(pod));
}

void ClusterView::add_bound(const std::string& node, BoundPod pod, const Usage& requests) {
  auto it = by_name_.find(node);
  if (it == by_name_.end()) return;
  NodeView& n = nodes_[it->second];
  n.used += requests;
  if (auto stack = pod.labels.find(std::string(kStackLabel)); stack != pod.labels.end())
    n.stacks.insert(stack->second);
  if (keep_pods_) keep(it->second, std::move(pod));
}

void ClusterView::reserve(const std::string& stack, const std::map<std::string, Usage>& on_nodes) {
  for (const auto& [node, usage] : on_nodes) {
    auto it = by_name_.find(node);
    if (it == by_name_.end()) continue;
    nodes_[it->second].used += usage;
    nodes_[it->second].stacks.insert(stack);
  }
}

}  // namespace planter::schedule
