#include "plan/stacks/pod_targets.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <cstdint>
#include <limits>

#include "model/strings.h"
#include "plan/stacks/pod_path.h"

namespace planter {

namespace json = boost::json;

namespace {

// The role paths of one target, before anything is made.
struct Roles {
  PodPath labels, affinity, tolerations, node_selector, volumes, pod_spec;
  std::vector<std::pair<PodPath, std::string>> resources;  // path, container name
  int64_t replicas = 1;
};

// A replica count: an int32 in Kubernetes; anything out of its range is taken as its bound.
int64_t count_of(const json::value* v, int64_t fallback) {
  if (!v || !v->is_int64()) return fallback;
  return std::clamp<int64_t>(v->as_int64(), 0, std::numeric_limits<int32_t>::max());
}

int64_t integer_at(const json::value& root, const PodPath& p, int64_t fallback) {
  return count_of(pod_path::resolve(root, p), fallback);
}

// The value at dotted `path` below an object; nullptr when a step is missing.
const json::value* at_path(const json::object& o, std::string_view dotted) {
  PodPath path = pod_path::plain(dotted);
  return pod_path::walk(o.if_contains(path.front()), path.begin() + 1, path.end());
}

// A PodTemplateSpec at `t`: its containers' resources are those present now.
Roles template_plan(const json::value& root, const PodPath& t) {
  Roles p{pod_path::concat(t, {"metadata", "labels"}),
          pod_path::concat(t, {"spec", "affinity"}),
          pod_path::concat(t, {"spec", "tolerations"}),
          pod_path::concat(t, {"spec", "nodeSelector"}),
          pod_path::concat(t, {"spec", "volumes"}),
          pod_path::concat(t, {"spec"}),
          {}};
  if (!t.empty())
    p.replicas =
        integer_at(root, pod_path::concat(PodPath(t.begin(), t.end() - 1), {"replicas"}), 1);
  for (const char* field : {"initContainers", "containers"}) {
    PodPath list = pod_path::concat(t, {"spec", field});
    const json::value* cs = pod_path::resolve(root, list);
    if (!cs || !cs->is_array()) continue;
    for (size_t i = 0; i < cs->as_array().size(); ++i) {
      const json::value& c = cs->as_array()[i];
      if (!c.is_object()) continue;
      PodPath item = pod_path::concat(list, {"[" + std::to_string(i) + "]"});
      auto* name = c.as_object().if_contains("name");
      p.resources.emplace_back(
          pod_path::concat(item, {"resources"}),
          name && name->is_string() ? std::string(name->as_string()) : pod_path::text(item));
    }
  }
  return p;
}

std::vector<Roles> shape_plans(const json::value& root, const PodShape& s) {
  std::vector<Roles> out;
  switch (s.form) {
    case PodShape::Form::kTemplate: {
      std::vector<std::string_view> steps = split(s.path, '.');
      std::vector<PodPath> found;
      PodPath cur;
      bool wild = s.path.find('*') != std::string::npos;
      if (s.path.empty())
        found.push_back({});  // the object itself (a Pod)
      else if (wild)
        pod_path::expand(root, steps, 0, cur, found, false);
      else
        found.push_back(pod_path::plain(s.path));
      for (const PodPath& t : found) out.push_back(template_plan(root, t));
      break;
    }
    case PodShape::Form::kPodLike: {
      PodPath b = pod_path::plain(s.path);
      out.push_back(Roles{pod_path::concat(b, {"labels"}),
                          pod_path::concat(b, {"affinity"}),
                          pod_path::concat(b, {"tolerations"}),
                          pod_path::concat(b, {"nodeSelector"}),
                          pod_path::concat(b, {"volumes"}),
                          b,
                          {{pod_path::concat(b, {"resources"}), s.path}}});
      break;
    }
    case PodShape::Form::kFields: {
      Roles p;
      if (!s.labels.empty()) p.labels = pod_path::plain(s.labels);
      if (!s.affinity.empty()) p.affinity = pod_path::plain(s.affinity);
      if (!s.tolerations.empty()) p.tolerations = pod_path::plain(s.tolerations);
      if (!s.node_selector.empty()) p.node_selector = pod_path::plain(s.node_selector);
      for (const auto& r : s.resources) {
        std::vector<std::string_view> steps = split(r, '.');
        std::vector<PodPath> found;
        PodPath cur;
        if (r.find('*') != std::string::npos)
          pod_path::expand(root, steps, 0, cur, found, true);
        else
          found.push_back(pod_path::plain(r));
        for (const PodPath& f : found) p.resources.emplace_back(f, pod_path::text(f));
      }
      out.push_back(std::move(p));
      break;
    }
  }
  return out;
}

// Where each built-in workload keeps its pod template and its count of pods.
struct BuiltinWorkload {
  std::string_view group, kind;
  std::string_view template_path;  // dotted; "" for the object itself (a Pod)
  std::string_view replicas_path;  // dotted; "" for one pod
  bool per_node = false;           // a DaemonSet's: one on every node it may run on
  bool makes_pods = true;          // a PodTemplate makes none
};
constexpr BuiltinWorkload kBuiltinWorkloads[] = {
    {"", "Pod", "", ""},
    {"apps", "Deployment", "spec.template", "spec.replicas"},
    {"apps", "ReplicaSet", "spec.template", "spec.replicas"},
    {"apps", "StatefulSet", "spec.template", "spec.replicas"},
    {"apps", "DaemonSet", "spec.template", "", true},
    {"batch", "Job", "spec.template", "spec.parallelism"},
    {"batch", "CronJob", "spec.jobTemplate.spec.template", "spec.jobTemplate.spec.parallelism"},
    {"", "ReplicationController", "spec.template", "spec.replicas"},
    {"", "PodTemplate", "template", "", false, false},
};

const BuiltinWorkload* builtin_workload(std::string_view group, std::string_view kind) {
  for (const BuiltinWorkload& w : kBuiltinWorkloads)
    if (w.group == group && w.kind == kind) return &w;
  return nullptr;
}

// How many pods a built-in workload makes.
int64_t workload_replicas(const json::value& root, const BuiltinWorkload& w) {
  if (!w.makes_pods) return 0;
  return w.replicas_path.empty() ? 1 : integer_at(root, pod_path::plain(w.replicas_path), 1);
}

std::vector<PodShape> builtin_workload_shapes(std::string_view group, std::string_view kind) {
  const BuiltinWorkload* w = builtin_workload(group, kind);
  if (!w) return {};
  PodShape t;
  t.path = std::string(w->template_path);
  return {t};
}

bool is_prefix(const PodPath& a, const PodPath& b) {
  return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Why two places planter writes or reads overlap (one holds the other, or they are the same),
// or "" when none do. Writing into a place moves what it holds, so that a pointer taken into it
// before would dangle (a resources path inside the affinity path, found by pod_template_fuzz);
// and two roles in one place mean nothing an operator could read. The one overlap allowed is a
// target's own pod spec holding its other places (the pod spec's shape).
std::string overlap(const std::vector<Roles>& plans) {
  struct Place {
    const PodPath* path;
    size_t target;
    const char* role;
  };
  std::vector<Place> places;
  for (size_t i = 0; i < plans.size(); ++i) {
    const Roles& p = plans[i];
    auto add = [&](const PodPath& path, const char* role) {
      if (!path.empty()) places.push_back({&path, i, role});
    };
    add(p.labels, "labels");
    add(p.affinity, "affinity");
    add(p.tolerations, "tolerations");
    add(p.node_selector, "nodeSelector");
    add(p.pod_spec, "pod spec");
    for (const auto& [r, _] : p.resources) add(r, "resources");
  }
  std::sort(places.begin(), places.end(),
            [](const Place& a, const Place& b) { return *a.path < *b.path; });
  std::vector<const Place*> holders;  // the places that hold the current one, outermost first
  for (const Place& here : places) {
    while (!holders.empty() && !is_prefix(*holders.back()->path, *here.path)) holders.pop_back();
    for (const Place* holder : holders) {
      bool own_pod_spec = holder->target == here.target &&
                          std::string_view(holder->role) == "pod spec" &&
                          holder->path->size() < here.path->size();
      if (!own_pod_spec)
        return fmt::format("the {} path {} and the {} path {} overlap", holder->role,
                           pod_path::text(*holder->path), here.role, pod_path::text(*here.path));
    }
    holders.push_back(&here);
  }
  return {};
}

}  // namespace

PodTargets pod_targets(Object& o, const KindTable& kinds, const std::vector<PodShape>& shapes) {
  PodTargets out;
  std::string_view group = o.ref.group();
  std::vector<PodShape> workload = builtin_workload_shapes(group, o.ref.kind);
  const std::vector<PodShape>* use = &workload;
  if (workload.empty()) {
    if (kinds.is_builtin_group(group) || group == "planter.nephio.org" ||
        group == "cluster.x-k8s.io")
      return out;  // no pods
    if (shapes.empty()) {
      out.known = false;
      return out;
    }
    use = &shapes;
  }
  // The body is made a value so that paths can start at its root.
  json::value root = std::move(o.body);
  std::vector<Roles> plans;
  for (const PodShape& s : *use)
    for (Roles& p : shape_plans(root, s)) {
      if (!s.replicas.empty()) p.replicas = integer_at(root, pod_path::plain(s.replicas), 1);
      if (!s.enabled.empty())
        if (const json::value* on = pod_path::resolve(root, pod_path::plain(s.enabled));
            on && on->is_bool() && !on->as_bool())
          p.replicas = 0;
      plans.push_back(std::move(p));
    }
  // Everything is made first, then pointed at: making a key may move its siblings.
  for (Roles& p : plans) {
    if (!p.labels.empty() && !pod_path::ensure(root, p.labels, false)) p.labels.clear();
    if (!p.affinity.empty() && !pod_path::ensure(root, p.affinity, false)) p.affinity.clear();
    if (!p.tolerations.empty() && !pod_path::ensure(root, p.tolerations, true))
      p.tolerations.clear();
    if (!p.pod_spec.empty() && !pod_path::ensure(root, p.pod_spec, false)) p.pod_spec.clear();
    for (auto& [r, _] : p.resources)
      if (!pod_path::ensure(root, r, false)) r.clear();
  }
  const BuiltinWorkload* builtin = builtin_workload(group, o.ref.kind);
  if (builtin && !plans.empty()) plans.front().replicas = workload_replicas(root, *builtin);
  o.body = std::move(root.as_object());
  out.conflict = overlap(plans);
  if (!out.conflict.empty()) return out;
  // Pointers into the body where it now lives.
  auto at = [&o](const PodPath& path) -> json::value* {
    if (path.empty()) return nullptr;
    return pod_path::walk(o.body.if_contains(path.front()), path.begin() + 1, path.end());
  };
  // A pod spec holds the other places of its target (its affinity, tolerations, containers):
  // room for the key the writer adds there (schedulerName) first, so that adding it moves none
  // of them. Nothing else holds another place (overlap() saw to it).
  for (const Roles& p : plans)
    if (json::value* v = at(p.pod_spec); v && v->is_object())
      v->as_object().reserve(v->as_object().size() + 1);
  for (const Roles& p : plans) {
    PodTarget t;
    t.labels_path = pod_path::text(p.labels);
    t.affinity_at = p.affinity;
    t.tolerations_path = pod_path::text(p.tolerations);
    t.node_selector_path = pod_path::text(p.node_selector);
    t.replicas = p.replicas;
    t.per_node = builtin && builtin->per_node;
    if (json::value* v = at(p.labels)) t.labels = v->if_object();
    if (json::value* v = at(p.affinity)) t.affinity = v->if_object();
    if (json::value* v = at(p.tolerations)) t.tolerations = v->if_array();
    if (json::value* v = at(p.node_selector)) t.node_selector = v->if_object();
    if (json::value* v = at(p.volumes)) t.volumes = v->if_array();
    t.pod_spec_path = pod_path::text(p.pod_spec);
    if (json::value* v = at(p.pod_spec)) t.pod_spec = v->if_object();
    for (const auto& [r, name] : p.resources)
      if (json::value* v = at(r); v && v->is_object())
        t.resources.push_back(
            {pod_path::text(PodPath(r.begin(), r.end() - 1)), name, &v->as_object()});
    out.targets.push_back(std::move(t));
  }
  return out;
}

std::optional<WorkloadPods> builtin_workload_pods(const Object& o) {
  const BuiltinWorkload* w = builtin_workload(o.ref.group(), o.ref.kind);
  if (!w || !w->makes_pods) return std::nullopt;
  WorkloadPods out;
  out.per_node = w->per_node;
  if (w->template_path.empty()) {
    out.pod = &o.body;
  } else {
    const json::value* t = at_path(o.body, w->template_path);
    if (!t || !t->is_object()) return std::nullopt;
    out.pod = &t->as_object();
  }
  if (!w->replicas_path.empty()) out.replicas = count_of(at_path(o.body, w->replicas_path), 1);
  return out;
}

}  // namespace planter
