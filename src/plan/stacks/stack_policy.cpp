#include "plan/stacks/stack_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "model/names.h"
#include "model/quantity.h"
#include "plan/cluster_preferences.h"
#include "plan/cluster_spread_annotation.h"
#include "plan/cluster_tolerations.h"
#include "plan/placement_annotations.h"

namespace planter {

namespace json = boost::json;

namespace {

constexpr std::string_view kFields[] = {"selector",  "atomic",     "colocate", "separateFrom",
                                        "dedicated", "coschedule", "clusters", "topology"};
constexpr int64_t kMaxMinCount = 2147483647;  // a PodGroup's minCount is an int32

struct Reader {
  const Object& stack;
  Diagnostics& diags;
  bool ok = true;

  void error(std::string message, std::string hint = {}) {
    diags.add(stack.where(), stack.display(), std::move(message), std::move(hint));
    ok = false;
  }

  // `true`/`false`, or an object of the given fields.
  const json::object* bool_or_object(const json::value& v, std::string_view field, bool& on) {
    if (v.is_bool()) {
      on = v.as_bool();
      return nullptr;
    }
    if (v.is_object()) {
      on = true;
      return &v.as_object();
    }
    error(fmt::format("spec.{} must be true, false or an object", field));
    return nullptr;
  }

  void read_atomic(const json::value& v, StackPolicy& p) {
    const json::object* o = bool_or_object(v, "atomic", p.atomic);
    if (!o) return;
    for (const auto& [k, _] : *o)
      if (k != "defaults") error(fmt::format("spec.atomic.{}: unknown field (known: defaults)", k));
    const json::value* d = o->if_contains("defaults");
    if (!d) return;
    if (!d->is_object()) return error("spec.atomic.defaults must be an object of cpu and memory");
    for (const auto& [k, q] : d->as_object()) {
      if (k != "cpu" && k != "memory") {
        error(fmt::format("spec.atomic.defaults.{}: only cpu and memory are sized", k));
        continue;
      }
      std::string text = quantity_text(&q);
      std::optional<double> amount = parse_signed_quantity(text);
      if (text.empty() || !amount)
        error(fmt::format("spec.atomic.defaults.{} is not a quantity", k),
              "write it as Kubernetes does: 500m, 2, 512Mi, 4Gi");
      else if (*amount < 0)
        error(fmt::format("spec.atomic.defaults.{}: Invalid value: \"{}\": must be greater than "
                          "or equal to 0",
                          k, text),
              "a resource amount cannot be negative");
      (k == "cpu" ? p.default_cpu : p.default_memory) = text;
    }
  }

  void read_colocate(const json::value& v, StackPolicy& p) {
    const json::object* o = bool_or_object(v, "colocate", p.colocate);
    if (!o) return;
    for (const auto& [k, _] : *o)
      if (k != "topologyKey")
        error(fmt::format("spec.colocate.{}: unknown field (known: topologyKey)", k));
    if (const json::value* key = o->if_contains("topologyKey")) {
      if (!key->is_string() || key->as_string().empty())
        return error("spec.colocate.topologyKey must be a node label key",
                     "kubernetes.io/hostname (one node) or topology.kubernetes.io/zone");
      if (std::string why = qualified_name_problem(key->as_string()); !why.empty())
        return error(fmt::format("spec.colocate.topologyKey: Invalid value: \"{}\": {}",
                                 std::string_view(key->as_string()), why),
                     "a node label key: kubernetes.io/hostname or topology.kubernetes.io/zone");
      p.topology_key = std::string(key->as_string());
    }
  }

  void read_topology(const json::value& v, StackPolicy& p) {
    const char* hint = "e.g. topology: {key: topology.kubernetes.io/zone, mode: required}";
    const json::object* o = v.if_object();
    if (!o) return error("spec.topology must be an object {key, mode}", hint);
    for (const auto& [k, _] : *o)
      if (k != "key" && k != "mode")
        error(fmt::format("spec.topology.{}: unknown field (known: key, mode)", k), hint);
    const json::value* key = o->if_contains("key");
    if (!key || !key->is_string() || key->as_string().empty())
      return error("spec.topology needs a key: the node label of the domain", hint);
    if (std::string why = qualified_name_problem(key->as_string()); !why.empty())
      return error(fmt::format("spec.topology.key: Invalid value: \"{}\": {}",
                               std::string_view(key->as_string()), why),
                   "a node label key: topology.kubernetes.io/zone or a rack label");
    const json::value* mode = o->if_contains("mode");
    std::string_view m = mode && mode->is_string() ? std::string_view(mode->as_string()) : "";
    if (mode && m != "required" && m != "preferred")
      return error("spec.topology.mode must be required or preferred", hint);
    if (p.colocate && p.topology_key != key->as_string())
      return error(fmt::format("the stack is co-located on {} but held to one domain of {}",
                               p.topology_key, std::string_view(key->as_string())),
                   "keep one of colocate and topology");
    p.topology_key = std::string(key->as_string());
    p.topology =
        m == "preferred" ? StackPolicy::Topology::kPreferred : StackPolicy::Topology::kRequired;
    if (p.topology == StackPolicy::Topology::kRequired) p.colocate = true;
  }

  void read_dedicated(const json::value& v, StackPolicy& p) {
    const json::object* o = nullptr;
    if (v.is_array()) {
      if (v.as_array().size() > 1)
        return error("the stack is dedicated to more than one tenant",
                     "a stack runs on one kind of dedicated node: name one key and value");
      if (v.as_array().empty()) return;
      o = v.as_array()[0].if_object();
    } else {
      o = v.if_object();
    }
    if (!o) return error("spec.dedicated must be an object {key, value}");
    for (const auto& [k, _] : *o)
      if (k != "key" && k != "value")
        error(fmt::format("spec.dedicated.{}: unknown field (known: key, value)", k));
    const json::value* key = o->if_contains("key");
    const json::value* value = o->if_contains("value");
    if (!key || !key->is_string() || key->as_string().empty() || !value || !value->is_string())
      return error("spec.dedicated needs key and value (strings)",
                   "for nodes tainted and labelled tenant=gold: {key: tenant, value: gold}");
    // Both become a node label and a taint of the pods' toleration and affinity.
    if (std::string why = qualified_name_problem(key->as_string()); !why.empty())
      return error(fmt::format("spec.dedicated.key: Invalid value: \"{}\": {}",
                               std::string_view(key->as_string()), why),
                   "a node label key, e.g. tenant or example.com/tenant");
    if (std::string why = label_value_problem(value->as_string()); !why.empty())
      return error(fmt::format("spec.dedicated.value: Invalid value: \"{}\": {}",
                               std::string_view(value->as_string()), why),
                   "a node label value, e.g. gold");
    p.dedicated = std::make_pair(std::string(key->as_string()), std::string(value->as_string()));
  }

  void read_coschedule(const json::value& v, StackPolicy& p) {
    const json::object* o = v.if_object();
    if (!o) return error("spec.coschedule must be an object {mode, isolate, minCount}");
    for (const auto& [k, _] : *o)
      if (k != "mode" && k != "isolate" && k != "minCount")
        error(fmt::format("spec.coschedule.{}: unknown field (known: mode, isolate, minCount)", k));
    const json::value* mode = o->if_contains("mode");
    if (!mode || !mode->is_string())
      return error("spec.coschedule needs a mode",
                   "mode: gang, anchor or scheduler (docs/coscheduling.md)");
    if (mode->as_string() == "anchor")
      p.coschedule = StackPolicy::Coschedule::kAnchor;
    else if (mode->as_string() == "scheduler")
      p.coschedule = StackPolicy::Coschedule::kScheduler;
    else if (mode->as_string() == "gang")
      p.coschedule = StackPolicy::Coschedule::kGang;
    else
      return error(fmt::format("spec.coschedule.mode \"{}\" is not a mode",
                               std::string_view(mode->as_string())),
                   "use mode: gang, anchor or scheduler");
    bool gang = p.coschedule == StackPolicy::Coschedule::kGang;
    if (const json::value* isolate = o->if_contains("isolate")) {
      if (!isolate->is_bool()) return error("spec.coschedule.isolate must be true or false");
      if (gang && isolate->as_bool())
        return error("spec.coschedule.isolate is for the same-node modes, not mode gang",
                     "keep the gang off other stacks' nodes with separateFrom");
      p.isolate = isolate->as_bool();
    }
    if (const json::value* min = o->if_contains("minCount")) {
      if (!gang)
        return error("spec.coschedule.minCount is for mode gang",
                     "modes anchor and scheduler place the whole group");
      if (!min->is_int64() || min->as_int64() < 1 || min->as_int64() > kMaxMinCount)
        return error(fmt::format("spec.coschedule.minCount must be a whole number from 1 to {}",
                                 kMaxMinCount),
                     "leave it out to make it the stack's pod count");
      p.min_count = min->as_int64();
    }
  }

  // spec.clusters.spread: {topologyKey, maxSkew, whenUnsatisfiable}, the fields of a
  // topologySpreadConstraint, kept as the cluster-spread annotation planter writes on members.
  void read_spread(const json::value& v, StackPolicy& p) {
    const char* hint = "e.g. spread: {topologyKey: region, maxSkew: 1}";
    if (!v.is_object())
      return error(
          "spec.clusters.spread must be an object {topologyKey, maxSkew, "
          "whenUnsatisfiable}",
          hint);
    std::string text;
    for (const auto& [k, value] : v.as_object()) {
      std::string item;
      if (value.is_string())
        item = std::string(value.as_string());
      else if (value.is_int64())
        item = std::to_string(value.as_int64());
      else
        return error(fmt::format("spec.clusters.spread.{} must be a string or a number", k), hint);
      text += (text.empty() ? "" : ",") + std::string(k) + "=" + item;
    }
    auto parsed = parse_cluster_spread(text);
    if (!parsed) return error("spec.clusters.spread: " + parsed.error().message, hint);
    p.cluster_spread = cluster_spread_annotation(parsed.value());
  }

  void read_clusters(const json::value& v, StackPolicy& p) {
    const char* hint = "e.g. clusters: {count: 2, selector: \"tier=edge\"}";
    if (!v.is_object()) return error("spec.clusters must be an object {count, selector}", hint);
    for (const auto& [k, _] : v.as_object())
      if (k != "count" && k != "selector" && k != "spread" && k != "tolerations" &&
          k != "preferences")
        error(fmt::format(
                  "spec.clusters.{}: unknown field (known: count, selector, spread, tolerations, "
                  "preferences)",
                  k),
              hint);
    if (const json::value* spread = v.as_object().if_contains("spread")) read_spread(*spread, p);
    if (const json::value* terms = v.as_object().if_contains("preferences")) {
      auto parsed = parse_cluster_preferences(json::serialize(*terms));
      if (parsed)
        p.cluster_preferences = cluster_preferences_annotation(parsed.value());
      else
        error("spec.clusters.preferences: " + parsed.error().message,
              "e.g. preferences: [{weight: 50, selector: region=eu}]");
    }
    if (const json::value* tolerations = v.as_object().if_contains("tolerations")) {
      auto parsed = parse_cluster_tolerations(json::serialize(*tolerations));
      if (parsed)
        p.cluster_tolerations = cluster_tolerations_annotation(parsed.value());
      else
        error("spec.clusters.tolerations: " + parsed.error().message,
              "e.g. tolerations: [{key: maintenance, operator: Exists, effect: NoSelect}]");
    }
    const json::value* count = v.as_object().if_contains("count");
    const json::value* selector = v.as_object().if_contains("selector");
    if (!count || !count->is_int64() || count->as_int64() < 1 ||
        count->as_int64() > kMaxClusterCount)
      return error(
          fmt::format("spec.clusters.count must be a whole number from 1 to {}", kMaxClusterCount),
          hint);
    if (!selector || !selector->is_string() || selector->as_string().empty())
      return error("spec.clusters.selector must be a cluster label selector (a string)", hint);
    if (auto sel = LabelSelector::parse(selector->as_string()); !sel)
      return error("spec.clusters.selector: " + sel.error().message, hint);
    p.cluster_count = count->as_int64();
    p.cluster_selector = std::string(selector->as_string());
  }

  std::optional<StackPolicy> read() {
    StackPolicy p;
    p.name = stack.ref.name;
    p.source = stack.source;
    if (p.name.empty()) error("a Stack needs metadata.name");
    // The name is written into the label planter.nephio.org/stack of every member's pods.
    if (std::string why = label_value_problem(p.name); !p.name.empty() && !why.empty())
      error(fmt::format("metadata.name: Invalid value: \"{}\": {} (it is the value of the label "
                        "{} on the stack's pods)",
                        p.name, why, kStackLabel),
            "a Stack's name is a label value: at most 63 characters");
    const json::value* spec_v = stack.body.if_contains("spec");
    if (!spec_v || !spec_v->is_object()) {
      error("a Stack needs a spec", "see docs/stacks.md");
      return std::nullopt;
    }
    const json::object& spec = spec_v->as_object();
    for (const auto& [k, _] : spec)
      if (std::find(std::begin(kFields), std::end(kFields), k) == std::end(kFields))
        error(fmt::format("spec.{}: unknown field", k),
              "a Stack's spec has selector, atomic, colocate, separateFrom, dedicated, "
              "coschedule and clusters");
    if (const json::value* s = spec.if_contains("selector")) {
      if (!s->is_object()) {
        error("spec.selector must be a label selector {matchLabels, matchExpressions}");
      } else {
        auto sel = LabelSelector::from_json(*s);
        if (!sel)
          error("spec.selector: " + sel.error().message);
        else if (sel->empty())
          error("spec.selector selects every object of the seed",
                "name the members: matchLabels {stack: " + p.name + "}");
        else
          p.selector = std::move(sel.value());
      }
    }
    if (const json::value* a = spec.if_contains("atomic")) read_atomic(*a, p);
    if (const json::value* c = spec.if_contains("clusters")) read_clusters(*c, p);
    if (const json::value* c = spec.if_contains("colocate")) read_colocate(*c, p);
    if (const json::value* d = spec.if_contains("dedicated")) read_dedicated(*d, p);
    if (const json::value* t = spec.if_contains("topology")) read_topology(*t, p);
    if (const json::value* c = spec.if_contains("coschedule")) {
      read_coschedule(*c, p);
      // A co-scheduled group is on one node (a gang is not): colocate on the hostname is implied.
      if (p.coschedule != StackPolicy::Coschedule::kGang &&
          p.topology != StackPolicy::Topology::kNone)
        error("a stack co-scheduled on one node has no other topology",
              "leave topology out, or use coschedule mode gang");
      else if (p.coschedule != StackPolicy::Coschedule::kGang && p.colocate &&
               p.topology_key != kHostnameKey)
        error(fmt::format("the stack is co-scheduled on one node but co-located on {}",
                          p.topology_key),
              "leave colocate out (coschedule implies kubernetes.io/hostname)");
      if (p.coschedule != StackPolicy::Coschedule::kGang) p.colocate = true;
    }
    if (const json::value* s = spec.if_contains("separateFrom")) {
      if (!s->is_array()) {
        error("spec.separateFrom must be a list of Stack names");
      } else {
        for (const auto& n : s->as_array()) {
          if (!n.is_string() || n.as_string().empty()) {
            error("spec.separateFrom must be a list of Stack names");
            continue;
          }
          p.separate_from.emplace_back(n.as_string());
        }
      }
    }
    if (p.colocate &&
        std::find(p.separate_from.begin(), p.separate_from.end(), p.name) != p.separate_from.end())
      error("the stack is co-located and separated from itself",
            "drop colocate, or drop the stack's own name from separateFrom");
    if (!ok) return std::nullopt;
    return p;
  }
};

}  // namespace

std::string StackPolicy::display() const {
  return std::string(kStackApiVersion) + " Stack " + name;
}

std::string_view to_string(GangPath p) {
  switch (p) {
    case GangPath::kUpstream:
      return "Kubernetes' PodGroup (scheduling.k8s.io/v1beta1)";
    case GangPath::kUpstreamAlpha:
      return "Kubernetes' PodGroup (scheduling.k8s.io/v1alpha2)";
    case GangPath::kPlantersScheduler:
      return "scheduler-plugins' PodGroup with planter's scheduler";
    case GangPath::kAnchor:
      return "an anchor on one node";
  }
  return "";
}

bool is_stack(const Object& o) {
  return o.ref.kind == "Stack" && o.ref.group() == "planter.nephio.org";
}

std::vector<StackPolicy> read_stacks(std::vector<Object>& objects, Diagnostics& diags) {
  std::vector<StackPolicy> stacks;
  std::vector<Object> rest;
  rest.reserve(objects.size());
  for (Object& o : objects) {
    if (!is_stack(o)) {
      rest.push_back(std::move(o));
      continue;
    }
    if (o.ref.api_version != kStackApiVersion) {
      diags.add(o.where(), o.display(),
                fmt::format("planter reads Stacks of {} only", kStackApiVersion));
      continue;
    }
    Reader r{o, diags};
    if (auto p = r.read()) {
      p->body = std::move(o.body);
      stacks.push_back(std::move(*p));
    }
  }
  objects = std::move(rest);
  std::set<std::string> names;
  for (const auto& s : stacks)
    if (!names.insert(s.name).second)
      diags.add(s.source.str(), s.display(), "a second Stack of this name",
                "stacks are named once per seed");
  for (const auto& s : stacks)
    for (const auto& other : s.separate_from)
      if (!names.contains(other))
        diags.add(
            s.source.str(), s.display(),
            fmt::format("separateFrom names the Stack \"{}\", which the seed does not hold", other),
            "add that Stack, or correct the name");
  return stacks;
}

}  // namespace planter
