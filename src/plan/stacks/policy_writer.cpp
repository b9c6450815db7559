#include "plan/stacks/policy_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "model/json_compare.h"
#include "model/quantity.h"
#include "plan/stacks/schema_paths.h"
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

}  // namespace

void PolicyWriter::error(std::string message, std::string hint) {
  diags.add(object.where(), object.display(), std::move(message), std::move(hint));
}

void PolicyWriter::note(std::string change) {
  object.mutations.push_back(std::move(change));
}

void PolicyWriter::write(PodTarget& t) {
  if (t.labels) {
    (*t.labels)[kStackLabel] = stack.name;
    note(fmt::format("{}: label {}={}", t.labels_path, kStackLabel, stack.name));
  }
  bool preferred = stack.topology == StackPolicy::Topology::kPreferred;
  bool affinity_needed =
      stack.colocate || preferred || !stack.separate_from.empty() || stack.dedicated;
  if (affinity_needed && !t.affinity)
    return error(
        fmt::format("{} is not an object; planter cannot write the stack's affinity "
                    "there",
                    t.affinity_path()));
  if (stack.colocate) {
    json::object& aff = child(*t.affinity, "podAffinity");
    if (add_unique(list(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
                   stack_term(stack.name, stack.topology_key)))
      note(fmt::format("{}.podAffinity: required, with the pods of stack {} on {}",
                       t.affinity_path(), stack.name, stack.topology_key));
  }
  if (preferred) {
    json::object& aff = child(*t.affinity, "podAffinity");
    json::object weighted{{"weight", 100},
                          {"podAffinityTerm", stack_term(stack.name, stack.topology_key)}};
    if (add_unique(list(aff, "preferredDuringSchedulingIgnoredDuringExecution"),
                   std::move(weighted)))
      note(fmt::format("{}.podAffinity: preferred, with the pods of stack {} on {}",
                       t.affinity_path(), stack.name, stack.topology_key));
  }
  if (stack.coschedule == StackPolicy::Coschedule::kAnchor && !is_anchor) {
    json::object& aff = child(*t.affinity, "podAffinity");
    json::object term{{"labelSelector", {{"matchLabels", {{kAnchorLabel, stack.name}}}}},
                      {"namespaceSelector", json::object{}},
                      {"topologyKey", kHostnameKey}};
    if (add_unique(list(aff, "requiredDuringSchedulingIgnoredDuringExecution"), std::move(term)))
      note(fmt::format("{}.podAffinity: required, with the anchor of stack {} on {}",
                       t.affinity_path(), stack.name, kHostnameKey));
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
  if (stack.coschedule == StackPolicy::Coschedule::kGang) {
    if (!t.pod_spec)
      return error(fmt::format("planter cannot make these pods join the stack's PodGroup: their "
                               "operator takes no pod spec from {} {}",
                               object.ref.api_version, object.ref.kind),
                   "use coschedule mode anchor for this stack");
    (*t.pod_spec)["schedulingGroup"] = json::object{{"podGroupName", stack.name}};
    note(fmt::format("{}.schedulingGroup.podGroupName: {}", t.pod_spec_path, stack.name));
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
                       t.affinity_path(), stacks_text(names)));
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

void PolicyWriter::dedicate(PodTarget& t) {
  const auto& [key, value] = *stack.dedicated;
  if (t.node_selector)
    if (auto* v = t.node_selector->if_contains(key);
        v && (!v->is_string() || v->as_string() != value))
      return error(
          fmt::format("{} requires {}={}, but stack {} is dedicated to {}={}", t.node_selector_path,
                      key, v->is_string() ? std::string(v->as_string()) : "", stack.name, key,
                      value),
          "drop the nodeSelector entry, or the object from the stack");
  if (!t.tolerations)
    return error(
        fmt::format("{} is not a list; planter cannot write the stack's toleration "
                    "there",
                    t.tolerations_path));
  json::value toleration =
      json::object{{"key", key}, {"operator", "Equal"}, {"value", value}, {"effect", "NoSchedule"}};
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
                                 t.affinity_path(), i, key, op, stack.name, key, value),
                     "drop that expression, or the object from the stack");
    }
    add_unique(exprs, expression);
  }
  note(fmt::format("{}.nodeAffinity: required, {} In [{}]", t.affinity_path(), key, value));
}

void PolicyWriter::size(json::object& res, const std::string& path, const std::string& name) {
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

// Every place planter wrote a policy into must survive the API server's pruning: a field the
// CRD's schema does not keep would be dropped with a warning and the policy lost.
void check_policies_kept(const json::object& schema, const PodTarget& t, const Object& o,
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
  check(t.affinity && !t.affinity->empty(), t.affinity_path(), "affinity");
  check(t.tolerations && !t.tolerations->empty(), t.tolerations_path, "tolerations");
  if (t.pod_spec && t.pod_spec->contains("schedulerName"))
    check(true, t.pod_spec_path + ".schedulerName", "scheduler");
}

}  // namespace planter
