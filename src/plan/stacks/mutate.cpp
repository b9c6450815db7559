#include "plan/stacks/mutate.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <set>

#include "model/json_compare.h"
#include "model/quantity.h"
#include "plan/placement.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/schema_paths.h"
#include "plan/stacks/stack_policy.h"
#include "seed/workload_rules.h"

namespace planter {

namespace json = boost::json;

namespace {

json::object& child(json::object& parent, std::string_view key) {
  json::value& v = parent[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

json::array& list(json::object& parent, std::string_view key) {
  json::value& v = parent[key];
  if (!v.is_array()) v = json::array{};
  return v.as_array();
}

// A required pod (anti-)affinity term on a stack's label, in every namespace.
json::object stack_term(std::string_view stack, std::string_view topology_key) {
  return json::object{{"labelSelector", {{"matchLabels", {{kStackLabel, stack}}}}},
                      {"namespaceSelector", json::object{}},
                      {"topologyKey", topology_key}};
}

// A required pod anti-affinity term on the pods of any of `stacks` (sorted), in every namespace.
json::object separation_term(const std::vector<std::string>& stacks) {
  json::array values;
  values.reserve(stacks.size());
  for (const std::string& s : stacks) values.emplace_back(s);
  return json::object{
      {"labelSelector",
       {{"matchExpressions",
         json::array{json::object{
             {"key", kStackLabel}, {"operator", "In"}, {"values", std::move(values)}}}}}},
      {"namespaceSelector", json::object{}},
      {"topologyKey", kHostnameKey}};
}

// "stack a", "stacks a, b and c", "stacks a, b, c, d, e and 995 more": for people, bounded.
std::string stacks_text(const std::vector<std::string>& names) {
  if (names.size() == 1) return "stack " + names.front();
  constexpr size_t kShown = 5;
  std::string out = "stacks ";
  size_t shown = std::min(names.size(), kShown);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  if (names.size() > kShown) out += fmt::format(" and {} more", names.size() - kShown);
  return out;
}

// Adds `term` to the list unless an equal one is there.
bool add_unique(json::array& terms, json::value term) {
  for (const json::value& t : terms)
    if (json_equal(t, term)) return false;
  terms.push_back(std::move(term));
  return true;
}

struct Writer {
  const StackPolicy& stack;
  Object& object;
  Diagnostics& diags;
  bool is_anchor = false;  // the stack's own anchor: it leads, it does not follow
  // A custom resource: its containers' amounts were checked by no rule of the seed's kinds.
  bool check_amounts = false;

  void error(std::string message, std::string hint = {}) {
    diags.add(object.where(), object.display(), std::move(message), std::move(hint));
  }
  void note(std::string change) { object.mutations.push_back(std::move(change)); }

  void write(PodTarget& t) {
    if (t.labels) {
      (*t.labels)[kStackLabel] = stack.name;
      note(fmt::format("{}: label {}={}", t.labels_path, kStackLabel, stack.name));
    }
    bool affinity_needed = stack.colocate || !stack.separate_from.empty() || stack.dedicated;
    if (affinity_needed && !t.affinity)
      return error(
          fmt::format("{} is not an object; planter cannot write the stack's affinity "
                      "there",
                      t.affinity_path));
    if (stack.colocate) {
      json::object& aff = child(*t.affinity, "podAffinity");
      if (add_unique(list(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
                     stack_term(stack.name, stack.topology_key)))
        note(fmt::format("{}.podAffinity: required, with the pods of stack {} on {}",
                         t.affinity_path, stack.name, stack.topology_key));
    }
    if (stack.coschedule == StackPolicy::Coschedule::kAnchor && !is_anchor) {
      json::object& aff = child(*t.affinity, "podAffinity");
      json::object term{{"labelSelector", {{"matchLabels", {{kAnchorLabel, stack.name}}}}},
                        {"namespaceSelector", json::object{}},
                        {"topologyKey", kHostnameKey}};
      if (add_unique(list(aff, "requiredDuringSchedulingIgnoredDuringExecution"), std::move(term)))
        note(fmt::format("{}.podAffinity: required, with the anchor of stack {} on {}",
                         t.affinity_path, stack.name, kHostnameKey));
    }
    if (stack.coschedule == StackPolicy::Coschedule::kScheduler) {
      if (!t.pod_spec || !t.labels)
        return error(fmt::format("planter cannot set the schedulerName of these pods: their "
                                 "operator takes no pod spec from {} {}",
                                 object.ref.api_version, object.ref.kind),
                     "use coschedule mode anchor for this stack");
      (*t.pod_spec)["schedulerName"] = kPlanterSchedulerName;
      (*t.labels)[kPodGroupLabelKey] = stack.name;
      note(fmt::format("{}.schedulerName: {}", t.pod_spec_path, kPlanterSchedulerName));
      note(fmt::format("{}: label {}={}", t.labels_path, kPodGroupLabelKey, stack.name));
    }
    if (is_anchor && stack.isolate) {
      json::object& anti = child(*t.affinity, "podAntiAffinity");
      json::object term{
          {"labelSelector",
           {{"matchExpressions",
             json::array{json::object{{"key", kAnchorLabel}, {"operator", "Exists"}},
                         json::object{{"key", kAnchorLabel},
                                      {"operator", "NotIn"},
                                      {"values", json::array{json::value(stack.name)}}}}}}},
          {"namespaceSelector", json::object{}},
          {"topologyKey", kHostnameKey}};
      add_unique(list(anti, "requiredDuringSchedulingIgnoredDuringExecution"), std::move(term));
    }
    if (!stack.separate_from.empty()) {
      // One term, however many stacks: a selector `In` their names refuses a node exactly when
      // one term per stack would (any pod there of any of them), and keeps what is written in
      // proportion to the seed (issue 29: a term per stack per member grew with their product).
      // One stack keeps the plain matchLabels form.
      std::vector<std::string> names = stack.separate_from;
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      json::value term = names.size() == 1 ? json::value(stack_term(names.front(), kHostnameKey))
                                           : separation_term(names);
      if (add_unique(list(child(*t.affinity, "podAntiAffinity"),
                          "requiredDuringSchedulingIgnoredDuringExecution"),
                     std::move(term)))
        note(fmt::format("{}.podAntiAffinity: required, never on a node with the pods of {}",
                         t.affinity_path, stacks_text(names)));
    }
    if (stack.dedicated) dedicate(t);
    // What kube-apiserver refuses of the pods this object's operator would make (the request
    // against its limit is the atomic sizing's to say).
    if (check_amounts)
      for (auto& sized : t.resources)
        check_resources(object, *sized.resources, sized.path, false, diags);
    if (stack.atomic)
      for (auto& sized : t.resources) size(*sized.resources, sized.path, sized.container);
  }

  void dedicate(PodTarget& t) {
    const auto& [key, value] = *stack.dedicated;
    if (t.node_selector)
      if (auto* v = t.node_selector->if_contains(key);
          v && (!v->is_string() || v->as_string() != value))
        return error(
            fmt::format("{} requires {}={}, but stack {} is dedicated to {}={}",
                        t.node_selector_path, key,
                        v->is_string() ? std::string(v->as_string()) : "", stack.name, key, value),
            "drop the nodeSelector entry, or the object from the stack");
    if (!t.tolerations)
      return error(
          fmt::format("{} is not a list; planter cannot write the stack's toleration "
                      "there",
                      t.tolerations_path));
    json::value toleration = json::object{
        {"key", key}, {"operator", "Equal"}, {"value", value}, {"effect", "NoSchedule"}};
    if (add_unique(*t.tolerations, toleration))
      note(fmt::format("{}: {}={}:NoSchedule", t.tolerations_path, key, value));
    json::object& na = child(*t.affinity, "nodeAffinity");
    json::object& required = child(na, "requiredDuringSchedulingIgnoredDuringExecution");
    json::array& terms = list(required, "nodeSelectorTerms");
    json::value expression =
        json::object{{"key", key}, {"operator", "In"}, {"values", json::array{json::value(value)}}};
    if (terms.empty()) terms.push_back(json::object{{"matchExpressions", json::array{}}});
    // Terms are ORed: each must also ask for the dedicated label.
    for (size_t i = 0; i < terms.size(); ++i) {
      if (!terms[i].is_object()) continue;
      json::array& exprs = list(terms[i].as_object(), "matchExpressions");
      for (const auto& e : exprs) {
        const json::object* eo = e.if_object();
        if (!eo) continue;
        auto* k = eo->if_contains("key");
        if (!k || !k->is_string() || k->as_string() != key) continue;
        std::string op = eo->contains("operator") && eo->at("operator").is_string()
                             ? std::string(eo->at("operator").as_string())
                             : "";
        bool lists = false;
        if (auto* vs = eo->if_contains("values"); vs && vs->is_array())
          lists = std::find(vs->as_array().begin(), vs->as_array().end(), json::value(value)) !=
                  vs->as_array().end();
        bool contradicts = (op == "In" && !lists) || (op == "NotIn" && lists) ||
                           op == "DoesNotExist" || op == "Gt" || op == "Lt";
        if (contradicts)
          return error(fmt::format("{}.nodeAffinity term {} asks {} {} of the nodes, but "
                                   "stack {} is dedicated to {}={}",
                                   t.affinity_path, i, key, op, stack.name, key, value),
                       "drop that expression, or the object from the stack");
      }
      add_unique(exprs, expression);
    }
    note(fmt::format("{}.nodeAffinity: required, {} In [{}]", t.affinity_path, key, value));
  }

  // requests = limits for cpu and memory.
  void size(json::object& res, const std::string& path, const std::string& name) {
    // Both made before either is held: adding a key to `res` may move its values.
    child(res, "limits");
    child(res, "requests");
    for (const char* r : {"cpu", "memory"}) {
      json::object& limits = res.at("limits").as_object();
      json::object& requests = res.at("requests").as_object();
      std::string limit = quantity_text(limits.if_contains(r));
      std::string request = quantity_text(requests.if_contains(r));
      const std::string& fallback =
          std::string_view(r) == "cpu" ? stack.default_cpu : stack.default_memory;
      if (limit.empty()) {
        limit = !request.empty() ? request : fallback;
        if (limit.empty())
          return error(fmt::format("container {} ({}) has no {} limit or request, and stack {} "
                                   "is atomic",
                                   name, path, r, stack.name),
                       fmt::format("give the container resources.limits.{}, or the Stack "
                                   "spec.atomic.defaults.{}",
                                   r, r));
        limits[r] = limit;
        note(fmt::format("{}.resources.limits.{}: {}", path, r, limit));
      }
      if (!request.empty() && request != limit) {
        auto want = parse_quantity(request), have = parse_quantity(limit);
        if (want && have && *want > *have * (1 + 1e-12))
          return error(fmt::format("container {} ({}) requests {} {} but is limited to {}", name,
                                   path, request, r, limit),
                       "a limit below the request cannot be met: raise the limit");
      }
      if (request != limit) {
        requests[r] = limit;
        note(fmt::format("{}.resources.requests.{}: {} (= limits, atomic)", path, r, limit));
      }
    }
  }
};

// A CRD spec's storage version (the one whose schema and subresources describe what is stored);
// null when none is marked.
const json::object* storage_version(const json::object& crd_spec) {
  const json::value* versions = crd_spec.if_contains("versions");
  if (!versions || !versions->is_array()) return nullptr;
  for (const json::value& v : versions->as_array())
    if (const json::object* vo = v.if_object())
      if (const json::value* storage = vo->if_contains("storage");
          storage && storage->is_bool() && storage->as_bool())
        return vo;
  return nullptr;
}

// The schema of `version` of a custom kind whose CRD is in the seed (the storage version's when
// that version is not listed); null when the seed has no such CRD or it has no schema.
const json::object* crd_schema(const std::vector<Object>& objects,
                               const std::map<std::pair<std::string, std::string>, size_t>& crd_of,
                               std::string_view group, const std::string& kind,
                               std::string_view version) {
  auto it = crd_of.find({std::string(group), kind});
  if (it == crd_of.end()) return nullptr;
  const json::value* spec = objects[it->second].body.if_contains("spec");
  if (!spec || !spec->is_object()) return nullptr;
  const json::object* chosen = storage_version(spec->as_object());
  if (const json::value* versions = spec->as_object().if_contains("versions");
      versions && versions->is_array())
    for (const json::value& v : versions->as_array())
      if (v.is_object() && string_field(v.as_object(), {"name"}) == version)
        chosen = &v.as_object();
  if (!chosen) return nullptr;
  const json::value* schema = find_path(*chosen, {"schema", "openAPIV3Schema"});
  return schema ? schema->if_object() : nullptr;
}

// Every place planter wrote a policy into must survive the API server's pruning: a field the
// CRD's schema does not keep would be dropped with a warning and the policy lost.
void check_kept(const json::object& schema, const PodTarget& t, const Object& o,
                Diagnostics& diags) {
  auto check = [&](bool written, const std::string& path, std::string_view what) {
    if (!written || path.empty() || schema_keeps(schema, path)) return;
    diags.add(o.where(), o.display(),
              fmt::format("the schema of {}'s CRD has no place for {}, where planter writes the "
                          "stack's {}: the API server would prune it",
                          o.ref.kind, path, what),
              "declare the field in the CRD's schema (a PodTemplateSpec's spec may say "
              "x-kubernetes-preserve-unknown-fields: true), or point the CRD's "
              "planter.nephio.org/pod-template annotation at a field it keeps");
  };
  check(t.labels != nullptr, t.labels_path, "label");
  check(t.affinity && !t.affinity->empty(), t.affinity_path, "affinity");
  check(t.tolerations && !t.tolerations->empty(), t.tolerations_path, "tolerations");
  if (t.pod_spec && t.pod_spec->contains("schedulerName"))
    check(true, t.pod_spec_path + ".schedulerName", "scheduler");
}

// The pod shapes of every custom kind a CRD of the seed defines: its annotation, else the
// built-in table, else its schema.
std::map<std::pair<std::string, std::string>, std::vector<PodShape>> crd_pod_shapes(
    const std::vector<Object>& objects, Diagnostics& diags) {
  std::map<std::pair<std::string, std::string>, std::vector<PodShape>> out;
  for (const Object& o : objects) {
    if (o.ref.kind != "CustomResourceDefinition" || o.ref.group() != "apiextensions.k8s.io")
      continue;
    const json::value* spec = o.body.if_contains("spec");
    if (!spec || !spec->is_object()) continue;
    const json::object& s = spec->as_object();
    const json::value* group = s.if_contains("group");
    const json::value* names = s.if_contains("names");
    const json::value* kind =
        names && names->is_object() ? names->as_object().if_contains("kind") : nullptr;
    if (!group || !group->is_string() || !kind || !kind->is_string()) continue;
    std::pair<std::string, std::string> key{std::string(group->as_string()),
                                            std::string(kind->as_string())};
    std::vector<PodShape> shapes;
    if (const json::string* a = o.annotation(kPodTemplateAnnotation)) {
      auto parsed = parse_pod_shapes(std::string_view(*a));
      if (!parsed) {
        diags.add(o.where(), o.display(),
                  fmt::format("{}: {}", kPodTemplateAnnotation, parsed.error().message),
                  "see docs/stacks.md for the forms it takes");
        continue;
      }
      shapes = std::move(*parsed);
    } else {
      shapes = builtin_pod_shapes(key.first, key.second);
      if (shapes.empty())
        if (const json::object* storage = storage_version(s))
          if (const json::value* schema = find_path(*storage, {"schema", "openAPIV3Schema"});
              schema && schema->is_object())
            shapes = schema_pod_shapes(schema->as_object());
    }
    // The scale subresource says where the replicas are, for shapes that do not say.
    if (const json::object* storage = storage_version(s))
      if (const json::value* path =
              find_path(*storage, {"subresources", "scale", "specReplicasPath"});
          path && path->is_string())
        for (PodShape& shape : shapes)
          if (shape.replicas.empty()) {
            std::string_view p = path->as_string();
            if (p.starts_with('.')) p.remove_prefix(1);
            shape.replicas = std::string(p);
          }
    if (!shapes.empty()) out[key] = std::move(shapes);
  }
  return out;
}

bool member_of(const StackPolicy& s, const Object& o) {
  if (const json::string* a = o.annotation(kStackAnnotation); a && *a == s.name) return true;
  return s.selector && s.selector->matches(labels_of(o.labels()));
}

// cpu (cores) and memory (bytes) a container asks: its requests, else its limits.
std::pair<double, double> asked(const json::object& resources) {
  auto one = [&](const char* r) {
    for (const char* which : {"requests", "limits"})
      if (auto* list = resources.if_contains(which); list && list->is_object())
        if (auto v = parse_quantity(quantity_text(list->as_object().if_contains(r)))) return *v;
    return 0.0;
  };
  return {one("cpu"), one("memory")};
}

// What one pod of a target asks: its containers' sum, or its biggest init container.
std::pair<double, double> pod_ask(const PodTarget& t) {
  double cpu = 0, memory = 0, init_cpu = 0, init_memory = 0;
  for (const auto& s : t.resources) {
    auto [c, m] = asked(*s.resources);
    if (s.path.find("initContainers") != std::string::npos) {
      init_cpu = std::max(init_cpu, c);
      init_memory = std::max(init_memory, m);
    } else {
      cpu += c;
      memory += m;
    }
  }
  return {std::max(cpu, init_cpu), std::max(memory, init_memory)};
}

// One kind of pod of a target as the fit model sees it, after the policies are written: the pod
// its object will make. A pod template is copied whole; for an operator's fields, a pod is made
// of what planter knows of them.
StackPods pod_kind(const Object& o, const PodTarget& t, double cpu, double memory) {
  StackPods p;
  p.count = t.replicas;
  p.per_node = t.per_node;
  p.cpu = cpu;
  p.memory = memory;
  json::object metadata{{"name", o.ref.name}, {"namespace", o.ref.ns}};
  if (t.labels) metadata["labels"] = *t.labels;
  json::object spec;
  const json::value* containers = t.pod_spec ? t.pod_spec->if_contains("containers") : nullptr;
  if (containers && containers->is_array()) {
    spec = *t.pod_spec;
  } else {
    json::array main, init;
    for (const auto& sized : t.resources) {
      json::object c{{"name", sized.container}, {"resources", *sized.resources}};
      (sized.path.find("initContainers") != std::string::npos ? init : main)
          .push_back(std::move(c));
    }
    spec["containers"] = std::move(main);
    if (!init.empty()) spec["initContainers"] = std::move(init);
    if (t.tolerations) spec["tolerations"] = *t.tolerations;
    if (t.node_selector) spec["nodeSelector"] = *t.node_selector;
    if (t.affinity) spec["affinity"] = *t.affinity;
    if (t.volumes) spec["volumes"] = *t.volumes;
  }
  p.pod = json::object{{"metadata", std::move(metadata)}, {"spec", std::move(spec)}};
  return p;
}

// What a co-scheduled stack's anchor is made from: its members' namespace, claims and placement.
struct AnchorInputs {
  std::set<std::string> namespaces;
  std::vector<std::string> claims;      // in the order members mount them
  const Object* placed_like = nullptr;  // the first member that makes pods
};

void collect(AnchorInputs& in, const Object& member, const PodTarget& t) {
  if (!in.placed_like) in.placed_like = &member;
  in.namespaces.insert(member.ref.ns);
  if (!t.volumes) return;
  for (const json::value& v : *t.volumes) {
    const json::value* claim =
        v.is_object() ? find_path(v.as_object(), {"persistentVolumeClaim", "claimName"}) : nullptr;
    if (!claim || !claim->is_string()) continue;
    std::string name(claim->as_string());
    if (std::find(in.claims.begin(), in.claims.end(), name) == in.claims.end())
      in.claims.push_back(name);
  }
}

// What planter adds for a stack goes where the stack's first pod-making member goes: its
// placement annotations are copied into `annotations`.
void place_like(const AnchorInputs& in, json::object& annotations) {
  if (!in.placed_like) return;
  for (std::string_view key : {kClusterAnnotation, kClustersAnnotation, kClusterSelectorAnnotation,
                               kClusterCountAnnotation})
    if (const json::string* v = in.placed_like->annotation(key)) annotations[key] = *v;
}

// spec.clusters: the member goes where the stack's choice of clusters goes. Its own placement
// would split the stack; the annotations planter wrote before (an annotated seed) are accepted.
void place_with_stack(const StackPolicy& stack, Object& o, Diagnostics& diags) {
  if (stack.cluster_count == 0) return;
  std::string count = std::to_string(stack.cluster_count);
  bool same = true, any = false;
  for (auto [key, wanted] :
       {std::pair{kClusterAnnotation, std::string_view()},
        std::pair{kClustersAnnotation, std::string_view()},
        std::pair{kClusterSelectorAnnotation, std::string_view(stack.cluster_selector)},
        std::pair{kClusterCountAnnotation, std::string_view(count)}})
    if (const json::string* v = o.annotation(key)) {
      any = true;
      same = same && std::string_view(*v) == wanted;
    }
  if (any && !same) {
    diags.add(o.where(), o.display(),
              fmt::format("the object is placed on its own, but its Stack {} chooses its clusters "
                          "(spec.clusters)",
                          stack.name),
              "remove the member's planter.nephio.org/cluster* annotations: the stack places "
              "every member");
    return;
  }
  if (any) return;
  o.set_annotation(kClusterSelectorAnnotation, stack.cluster_selector);
  o.set_annotation(kClusterCountAnnotation, count);
  o.mutations.push_back(fmt::format("placed as Stack {} chooses: {} of the clusters {} matches",
                                    stack.name, count, stack.cluster_selector));
}

// The index of `made` in `objects`: the seed's own copy when it holds one that `same` accepts (a
// seed planter annotated before), else `made` added at the end.
size_t adopt(std::vector<Object>& objects, Object made,
             const std::function<bool(const Object&)>& same) {
  for (size_t k = 0; k < objects.size(); ++k)
    if (objects[k].ref.same_object(made.ref) && same(objects[k])) return k;
  objects.push_back(std::move(made));
  return objects.size() - 1;
}

// The anchor of a co-scheduled stack: a one-replica StatefulSet of the pause image, with tiny
// guaranteed requests, mounting every claim its members mount (so that WaitForFirstConsumer
// volumes bind where the anchor runs), placed on the clusters of its first member.
Object make_anchor(const StackPolicy& stack, const AnchorInputs& in) {
  std::string name = stack.name + "-anchor";
  std::string ns = in.namespaces.empty() ? "" : *in.namespaces.begin();
  json::object labels{{kAnchorLabel, stack.name}};
  json::array volumes, mounts;
  for (size_t i = 0; i < in.claims.size(); ++i) {
    std::string volume = fmt::format("claim-{}", i);
    volumes.push_back(
        json::object{{"name", volume}, {"persistentVolumeClaim", {{"claimName", in.claims[i]}}}});
    mounts.push_back(
        json::object{{"name", volume}, {"mountPath", fmt::format("/anchor/{}", in.claims[i])}});
  }
  json::object size{{"cpu", "10m"}, {"memory", "16Mi"}};
  json::object container{{"name", "anchor"},
                         {"image", std::string(kAnchorImage)},
                         {"resources", {{"requests", size}, {"limits", size}}}};
  if (!mounts.empty()) container["volumeMounts"] = std::move(mounts);
  json::object pod_spec{{"containers", json::array{std::move(container)}},
                        {"terminationGracePeriodSeconds", 0}};
  if (!volumes.empty()) pod_spec["volumes"] = std::move(volumes);
  json::object metadata{{"name", name}, {"labels", labels}};
  if (!ns.empty()) metadata["namespace"] = ns;
  json::object annotations;
  place_like(in, annotations);
  if (!annotations.empty()) metadata["annotations"] = std::move(annotations);
  Object anchor;
  anchor.body = json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "StatefulSet"},
      {"metadata", std::move(metadata)},
      {"spec",
       {{"replicas", 1},
        {"serviceName", name},
        {"selector", {{"matchLabels", labels}}},
        {"template", {{"metadata", {{"labels", labels}}}, {"spec", std::move(pod_spec)}}}}}};
  anchor.ref = {"apps/v1", "StatefulSet", ns, name};
  anchor.source = stack.source;
  return anchor;
}

// The gang of a stack co-scheduled by planter's scheduler: a PodGroup (scheduler-plugins' API)
// of all its pods, on one node (and alone there when isolated).
Object make_pod_group(const StackPolicy& stack, const AnchorInputs& in, int64_t pods) {
  std::string ns = in.namespaces.empty() ? "" : *in.namespaces.begin();
  json::object annotations{{kSameNodeAnnotationKey, "true"}};
  if (stack.isolate) annotations[kIsolateAnnotationKey] = "true";
  place_like(in, annotations);
  json::object metadata{{"name", stack.name}, {"annotations", std::move(annotations)}};
  if (!ns.empty()) metadata["namespace"] = ns;
  Object group;
  group.body = json::object{{"apiVersion", kPodGroupApiVersionText},
                            {"kind", "PodGroup"},
                            {"metadata", std::move(metadata)},
                            {"spec", {{"minMember", pods}}}};
  group.ref = {std::string(kPodGroupApiVersionText), "PodGroup", ns, stack.name};
  group.source = stack.source;
  return group;
}

}  // namespace

std::map<std::pair<std::string, std::string>, std::vector<PodShape>> seed_pod_shapes(
    const std::vector<Object>& objects, Diagnostics& diags) {
  return crd_pod_shapes(objects, diags);
}

std::vector<StackPods> pod_kinds_of(const Object& o, const KindTable& kinds,
                                    const std::vector<PodShape>& shapes) {
  Object copy = o;  // pod_targets makes the places it points at
  PodTargets targets = pod_targets(copy, kinds, shapes);
  std::vector<StackPods> out;
  for (const PodTarget& t : targets.targets) {
    auto [cpu, memory] = pod_ask(t);
    out.push_back(pod_kind(o, t, cpu, memory));
  }
  return out;
}

std::vector<StackNeeds> apply_stacks(std::vector<Object>& objects, const KindTable& kinds,
                                     const StackOptions& options, Diagnostics& diags) {
  std::vector<StackPolicy> stacks = read_stacks(objects, diags);
  std::vector<StackNeeds> needs(stacks.size());
  // Separation goes both ways: who separates from whom, read once (linear in the seed).
  std::map<std::string_view, std::vector<std::string_view>> separated_by;
  for (const StackPolicy& other : stacks)
    for (const std::string& avoided : other.separate_from)
      separated_by[avoided].push_back(other.name);
  for (size_t i = 0; i < stacks.size(); ++i) {
    needs[i].name = stacks[i].name;
    needs[i].body = stacks[i].body;
    needs[i].atomic = stacks[i].atomic;
    if (stacks[i].colocate) needs[i].colocated_on = stacks[i].topology_key;
    needs[i].avoid = stacks[i].separate_from;
    if (auto it = separated_by.find(stacks[i].name); it != separated_by.end())
      needs[i].avoid.insert(needs[i].avoid.end(), it->second.begin(), it->second.end());
    std::sort(needs[i].avoid.begin(), needs[i].avoid.end());
    needs[i].avoid.erase(std::unique(needs[i].avoid.begin(), needs[i].avoid.end()),
                         needs[i].avoid.end());
  }
  std::map<std::string, const StackPolicy*> by_name;
  for (const auto& s : stacks) by_name[s.name] = &s;
  std::vector<size_t> used(stacks.size(), 0);
  auto shapes_by_kind = crd_pod_shapes(objects, diags);
  std::map<std::pair<std::string, std::string>, size_t> crd_of;  // (group, kind) -> its CRD
  for (size_t i = 0; i < objects.size(); ++i)
    if (objects[i].ref.kind == "CustomResourceDefinition" &&
        objects[i].ref.group() == "apiextensions.k8s.io")
      if (const json::value* spec = objects[i].body.if_contains("spec"); spec && spec->is_object())
        crd_of[{string_field(spec->as_object(), {"group"}),
                string_field(spec->as_object(), {"names", "kind"})}] = i;
  std::vector<AnchorInputs> anchors(stacks.size());
  for (size_t object = 0; object < objects.size(); ++object) {
    Object& o = objects[object];
    // An annotation naming a stack the seed does not hold.
    if (const json::string* a = o.annotation(kStackAnnotation);
        a && !by_name.contains(std::string(*a))) {
      diags.add(o.where(), o.display(),
                fmt::format("{} names the Stack \"{}\", which the seed does not hold",
                            kStackAnnotation, std::string_view(*a)),
                "add that Stack, or correct the name");
      continue;
    }
    const StackPolicy* stack = nullptr;
    size_t index = 0;
    for (size_t i = 0; i < stacks.size(); ++i) {
      if (!member_of(stacks[i], o)) continue;
      if (stack) {
        ++used[i];
        ++used[index];
        diags.add(
            o.where(), o.display(),
            fmt::format("the object is in two stacks, {} and {}", stack->name, stacks[i].name),
            "an object belongs to one stack: narrow the selectors");
        stack = nullptr;
        break;
      }
      stack = &stacks[i];
      index = i;
    }
    if (!stack) continue;
    ++used[index];
    place_with_stack(*stack, o, diags);
    std::vector<PodShape> shapes;
    if (auto it = shapes_by_kind.find({std::string(o.ref.group()), o.ref.kind});
        it != shapes_by_kind.end())
      shapes = it->second;
    else
      shapes = builtin_pod_shapes(o.ref.group(), o.ref.kind);
    PodTargets targets = pod_targets(o, kinds, shapes);
    if (!targets.conflict.empty()) {
      diags.add(o.where(), o.display(),
                fmt::format("planter cannot write the stack's policies into {} {}: {}",
                            o.ref.api_version, o.ref.kind, targets.conflict),
                "give each field its own path in the CRD's planter.nephio.org/pod-template "
                "annotation (docs/stacks.md)");
      continue;
    }
    if (!targets.known) {
      std::string message = fmt::format(
          "planter cannot reach the pods of {} {}: their operator makes them from fields planter "
          "does not know",
          o.ref.api_version, o.ref.kind);
      std::string hint =
          "annotate the kind's CRD with planter.nephio.org/pod-template (docs/stacks.md), or write "
          "the policies with a plugin";
      if (options.allow_unreachable_members)
        diags.warn(o.where(), o.display(), message + " (left as it is)");
      else
        diags.add(o.where(), o.display(), message, hint);
      continue;
    }
    Writer w{*stack, o, diags};
    w.check_amounts = !kinds.is_builtin_group(o.ref.group());
    StackNeeds& n = needs[index];
    StackMember& member = n.members.emplace_back(StackMember{object, {}});
    const json::object* schema =
        w.check_amounts ? crd_schema(objects, crd_of, o.ref.group(), o.ref.kind, o.ref.version())
                        : nullptr;
    for (PodTarget& t : targets.targets) {
      w.write(t);
      if (schema) check_kept(*schema, t, o, diags);
      if (t.replicas > 0 || t.per_node) collect(anchors[index], o, t);
      auto [cpu, memory] = pod_ask(t);
      n.pod_kinds.push_back(pod_kind(o, t, cpu, memory));
      if (t.affinity) member.affinity_paths.push_back(t.affinity_path);
      if (t.per_node) {
        n.per_node_pods = true;
        continue;
      }
      n.pods += t.replicas;
      n.cpu += cpu * static_cast<double>(t.replicas);
      n.memory += memory * static_cast<double>(t.replicas);
      if (t.replicas > 0) {
        n.share_cpu = std::max(n.share_cpu, cpu);
        n.share_memory = std::max(n.share_memory, memory);
      }
    }
  }
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (stacks[i].coschedule == StackPolicy::Coschedule::kNone) continue;
    const AnchorInputs& in = anchors[i];
    if (!in.placed_like) {
      diags.warn(stacks[i].source.str(), stacks[i].display(),
                 "coschedule: no member of the stack makes pods, so there is nothing to place");
      continue;
    }
    if (stacks[i].coschedule == StackPolicy::Coschedule::kScheduler) {
      if (in.namespaces.size() > 1) {
        diags.add(stacks[i].source.str(), stacks[i].display(),
                  fmt::format("coschedule: the members' pods are in {} namespaces; a PodGroup "
                              "gathers the pods of one",
                              in.namespaces.size()),
                  "put the co-scheduled members in one namespace, or split the stack");
        continue;
      }
      Object made = make_pod_group(stacks[i], in, needs[i].pods);
      needs[i].pod_group = adopt(objects, std::move(made), [](const Object&) { return true; });
      continue;
    }
    if (in.namespaces.size() > 1) {
      diags.add(stacks[i].source.str(), stacks[i].display(),
                fmt::format("coschedule: the members' pods are in {} namespaces; the anchor mounts "
                            "their claims, which live in one",
                            in.namespaces.size()),
                "put the co-scheduled members in one namespace, or split the stack");
      continue;
    }
    if (stacks[i].name.size() + 7 > kMaxStatefulSetName) {
      diags.add(stacks[i].source.str(), stacks[i].display(),
                fmt::format("coschedule: the anchor {}-anchor would be a StatefulSet name longer "
                            "than {} characters",
                            stacks[i].name, kMaxStatefulSetName),
                "shorten the Stack's name");
      continue;
    }
    Object made = make_anchor(stacks[i], in);
    // A seed planter annotated before holds the anchor already: it is used again, as it is.
    size_t at = adopt(objects, std::move(made), [&](const Object& o) {
      const json::string* l = string_in(o.labels(), kAnchorLabel);
      return l && *l == stacks[i].name;
    });
    Object& anchor = objects[at];
    Writer w{stacks[i], anchor, diags, true};
    PodTargets targets = pod_targets(anchor, kinds, {});
    StackNeeds& n = needs[i];
    StackMember member{at, {}};
    for (PodTarget& t : targets.targets) {
      w.write(t);
      auto [cpu, memory] = pod_ask(t);
      n.pod_kinds.push_back(pod_kind(anchor, t, cpu, memory));
      member.affinity_paths.push_back(t.affinity_path);
      n.pods += 1;
      n.cpu += cpu;
      n.memory += memory;
    }
    anchor.mutations.clear();  // planter made it: the whole object is planter's
    n.anchor = at;
    n.members.push_back(std::move(member));
  }
  for (StackNeeds& n : needs)
    if (n.colocated_on == kHostnameKey) {
      n.share_cpu = n.cpu;
      n.share_memory = n.memory;
    }
  for (size_t i = 0; i < stacks.size(); ++i)
    if (!used[i])
      diags.warn(stacks[i].source.str(), stacks[i].display(),
                 "no object of the seed is in this stack");
  return needs;
}

}  // namespace planter
