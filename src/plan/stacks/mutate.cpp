#include "plan/stacks/mutate.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "model/quantity.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/stack_policy.h"

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

std::string join(std::string_view a, std::string_view b) {
  return a.empty() ? std::string(b) : std::string(a) + "." + std::string(b);
}

// A required pod (anti-)affinity term on a stack's label, in every namespace.
json::object stack_term(std::string_view stack, std::string_view topology_key) {
  return json::object{{"labelSelector", {{"matchLabels", {{kStackLabel, stack}}}}},
                      {"namespaceSelector", json::object{}},
                      {"topologyKey", topology_key}};
}

// Adds `term` to the list unless an equal one is there.
bool add_unique(json::array& terms, json::value term) {
  if (std::find(terms.begin(), terms.end(), term) != terms.end()) return false;
  terms.push_back(std::move(term));
  return true;
}

struct Writer {
  const StackPolicy& stack;
  Object& object;
  Diagnostics& diags;

  void error(std::string message, std::string hint = {}) {
    diags.add(object.where(), object.display(), std::move(message), std::move(hint));
  }
  void note(std::string change) { object.mutations.push_back(std::move(change)); }

  void write(PodTarget& t) {
    json::object& labels = child(*t.meta, "labels");
    labels[kStackLabel] = stack.name;
    note(fmt::format("{}: label {}={}", join(t.path, "metadata.labels"), kStackLabel, stack.name));
    std::string spec_path = join(t.path, "spec");
    if (stack.colocate) {
      json::object& aff = child(child(*t.spec, "affinity"), "podAffinity");
      if (add_unique(list(aff, "requiredDuringSchedulingIgnoredDuringExecution"),
                     stack_term(stack.name, stack.topology_key)))
        note(fmt::format("{}.affinity.podAffinity: required, with the pods of stack {} on {}",
                         spec_path, stack.name, stack.topology_key));
    }
    for (const std::string& other : stack.separate_from) {
      json::object& anti = child(child(*t.spec, "affinity"), "podAntiAffinity");
      if (add_unique(list(anti, "requiredDuringSchedulingIgnoredDuringExecution"),
                     stack_term(other, kHostnameKey)))
        note(
            fmt::format("{}.affinity.podAntiAffinity: required, never on a node with the pods "
                        "of stack {}",
                        spec_path, other));
    }
    if (stack.dedicated) dedicate(*t.spec, spec_path);
    if (stack.atomic) {
      for (const char* field : {"initContainers", "containers"})
        if (auto* cs = t.spec->if_contains(field); cs && cs->is_array())
          for (size_t i = 0; i < cs->as_array().size(); ++i)
            if (cs->as_array()[i].is_object())
              size(cs->as_array()[i].as_object(), fmt::format("{}.{}[{}]", spec_path, field, i));
    }
  }

  void dedicate(json::object& spec, const std::string& spec_path) {
    const auto& [key, value] = *stack.dedicated;
    if (auto* sel = spec.if_contains("nodeSelector"); sel && sel->is_object())
      if (auto* v = sel->as_object().if_contains(key);
          v && (!v->is_string() || v->as_string() != value))
        return error(fmt::format("{}.nodeSelector requires {}={}, but stack {} is dedicated to "
                                 "{}={}",
                                 spec_path, key, v->is_string() ? std::string(v->as_string()) : "",
                                 stack.name, key, value),
                     "drop the nodeSelector entry, or the object from the stack");
    json::value toleration = json::object{
        {"key", key}, {"operator", "Equal"}, {"value", value}, {"effect", "NoSchedule"}};
    if (add_unique(list(spec, "tolerations"), toleration))
      note(fmt::format("{}.tolerations: {}={}:NoSchedule", spec_path, key, value));
    json::object& na = child(child(spec, "affinity"), "nodeAffinity");
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
          return error(fmt::format("{}.affinity.nodeAffinity term {} asks {} {} of the nodes, but "
                                   "stack {} is dedicated to {}={}",
                                   spec_path, i, key, op, stack.name, key, value),
                       "drop that expression, or the object from the stack");
      }
      add_unique(exprs, expression);
    }
    note(fmt::format("{}.affinity.nodeAffinity: required, {} In [{}]", spec_path, key, value));
  }

  // requests = limits for cpu and memory.
  void size(json::object& container, const std::string& path) {
    std::string name = container.contains("name") && container.at("name").is_string()
                           ? std::string(container.at("name").as_string())
                           : path;
    json::object& res = child(container, "resources");
    // Both made before either is held: adding a key to `res` may move its values.
    child(res, "limits");
    child(res, "requests");
    for (const char* r : {"cpu", "memory"}) {
      json::object& limits = res.at("limits").as_object();
      json::object& requests = res.at("requests").as_object();
      auto text = [](const json::value* v) -> std::string {
        if (!v) return "";
        if (v->is_string()) return std::string(v->as_string());
        if (v->is_int64()) return std::to_string(v->as_int64());
        if (v->is_double()) return fmt::format("{}", v->as_double());
        return "";
      };
      std::string limit = text(limits.if_contains(r));
      std::string request = text(requests.if_contains(r));
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

bool member_of(const StackPolicy& s, const Object& o) {
  if (const json::string* a = o.annotation(kStackAnnotation); a && *a == s.name) return true;
  return s.selector && s.selector->matches(labels_of(o.labels()));
}

}  // namespace

void apply_stacks(std::vector<Object>& objects, const KindTable& kinds, const StackOptions& options,
                  Diagnostics& diags) {
  std::vector<StackPolicy> stacks = read_stacks(objects, diags);
  std::map<std::string, const StackPolicy*> by_name;
  for (const auto& s : stacks) by_name[s.name] = &s;
  std::vector<size_t> used(stacks.size(), 0);
  for (Object& o : objects) {
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
    PodTargets targets = pod_targets(o, kinds);
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
    for (PodTarget& t : targets.targets) w.write(t);
  }
  for (size_t i = 0; i < stacks.size(); ++i)
    if (!used[i])
      diags.warn(stacks[i].source.str(), stacks[i].display(),
                 "no object of the seed is in this stack");
}

}  // namespace planter
