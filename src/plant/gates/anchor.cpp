#include "plant/gates/anchor.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "model/object.h"
#include "plan/stacks/stack_policy.h"
#include "plant/readiness_check.h"

namespace planter::plant {

namespace json = boost::json;

AnchorGate::AnchorGate(GateContext& context, StackFitsGate& fits) : c_(context), fits_(fits) {
  std::map<std::string, const StackNeeds*> stacks;
  for (const StackNeeds& s : c_.plan.stacks) stacks[s.name] = &s;
  for (size_t u = 0; u < c_.plan.units.size(); ++u)
    for (const Requirement& r : c_.plan.units[u].requirements)
      if (r.when.type == ReadinessPredicate::Type::kStackFits)
        if (auto s = stacks.find(r.when.arg);
            s != stacks.end() && s->second->anchor == c_.plan.units[u].object)
          anchor_unit_[StackFitsGate::key(r.cluster, r.when.arg)] = u;
}

std::string AnchorGate::key(std::string_view cluster, std::string_view stack) {
  return fmt::format("{}\nanchor\n{}", cluster, stack);
}

void AnchorGate::require(size_t u, const Requirement& r, std::vector<std::string>& keys) {
  followers_[StackFitsGate::key(r.cluster, r.when.arg)].push_back(u);
  c_.fleet.watch_for_the_fit(r.cluster, "v1", "Node");
  c_.fleet.watch(r.cluster, "v1", "Pod");
  keys.push_back(key(r.cluster, r.when.arg));
}

AnchorGate::Pod AnchorGate::pod(const std::string& cluster, const std::string& ns,
                                const std::string& stack) {
  std::optional<Pod> found;
  c_.fleet.for_each(cluster, "v1", "Pod", [&](const json::object& p) {
    const json::string* label = find_string(p, {"metadata", "labels", kAnchorLabel});
    if (!label || *label != stack || string_field(p, {"metadata", "namespace"}) != ns) return;
    if (find_path(p, {"metadata", "deletionTimestamp"})) return;
    std::string name = string_field(p, {"metadata", "name"});
    Pod a{string_field(p, {"spec", "nodeName"}), {}};
    if (a.node.empty()) {
      const json::object* scheduled = find_condition(p, "PodScheduled");
      std::string message = scheduled ? string_field(*scheduled, {"message"}) : "";
      a.why = fmt::format("anchor pod {} is not bound yet{}", name,
                          message.empty() ? "" : ": " + message);
    }
    // Of several (a rollout), the bound one decides.
    if (!found || (found->node.empty() && !a.node.empty())) found = std::move(a);
  });
  if (!found) return {"", "no anchor pod yet"};
  if (found->node.empty()) return *found;
  auto node = c_.fleet.get(cluster, "v1", "Node", "", found->node);
  if (!node)
    found->why = fmt::format("the anchor's node {} is gone", found->node);
  else if (auto* u = find_path(*node, {"spec", "unschedulable"}); u && u->is_bool() && u->as_bool())
    found->why = fmt::format("the anchor's node {} is cordoned", found->node);
  else if (const fit::GroupFit& f = fits_.fit_on_node(cluster, stack, found->node); !f.fits)
    // Someone else's pod may have landed there since planter chose it.
    found->why =
        fmt::format("the group no longer fits on the anchor's node {}: {}", found->node, f.why);
  return *found;
}

std::optional<Gate::Wait> AnchorGate::check(size_t, const Requirement& r) {
  const std::string& cluster = r.cluster;
  if (!c_.fleet.synced(cluster, "v1", "Pod") || !c_.fleet.synced(cluster, "v1", "Node"))
    return Wait{"reading the cluster's nodes and pods"};
  Pod p = pod(cluster, c_.plan.target(r).ns, r.when.arg);
  if (p.why.empty()) return std::nullopt;
  return Wait{p.why};
}

void AnchorGate::changed(const std::string& cluster, const json::object& o) {
  if (!StackFitsGate::reads(o)) return;
  if (const json::string* anchor = find_string(o, {"metadata", "labels", kAnchorLabel}))
    c_.wake(key(cluster, *anchor));
  if (fits_.stacks_on(cluster).empty() || !posted_.insert(cluster).second) return;
  c_.loop.post([this, cluster] {
    posted_.erase(cluster);
    for (const std::string& stack : fits_.stacks_on(cluster)) {
      if (!fits_.released(cluster, stack)) continue;
      replace_if_stranded(cluster, stack);
      c_.wake(key(cluster, stack));  // a node's cordon says whether an anchor holds
    }
  });
}

void AnchorGate::replace_if_stranded(const std::string& cluster, const std::string& stack) {
  std::string k = StackFitsGate::key(cluster, stack);
  auto anchor_unit = anchor_unit_.find(k);
  auto members = followers_.find(k);
  const fit::GroupFit* released = fits_.released(cluster, stack);
  if (anchor_unit == anchor_unit_.end() || members == followers_.end() || !released) return;
  size_t a = anchor_unit->second;
  if (!c_.declared(a)) return;
  bool waiting = false;
  for (size_t m : members->second) waiting = waiting || c_.pending(m);
  if (!waiting) return;
  const ObjectRef& ref = c_.plan.object_of(c_.plan.units[a]).ref;
  Pod p = pod(cluster, ref.ns, stack);
  const auto& chosen = released->steer_values;
  if (p.node.empty() || p.why.empty() ||
      std::find(chosen.begin(), chosen.end(), p.node) == chosen.end())
    return;
  fits_.unrelease(cluster, stack);
  c_.declare_again(a, "placing the anchor again: " + p.why);
}

}  // namespace planter::plant
