#include "plan/stacks/mutate.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <optional>

#include "plan/cluster_preferences.h"
#include "plan/cluster_tolerations.h"
#include "plan/placement.h"
#include "plan/stacks/coschedule_objects.h"
#include "plan/stacks/pod_kinds.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/policy_writer.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

namespace json = boost::json;

namespace {

bool member_of(const StackPolicy& s, const Object& o) {
  if (const json::string* a = o.annotation(kStackAnnotation); a && *a == s.name) return true;
  return s.selector && s.selector->matches(labels_of(o.labels()));
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
        std::pair{kClusterCountAnnotation, std::string_view(count)},
        std::pair{kClusterSpreadAnnotation, std::string_view(stack.cluster_spread)},
        std::pair{kClusterTolerationsAnnotation, std::string_view(stack.cluster_tolerations)},
        std::pair{kClusterPreferencesAnnotation, std::string_view(stack.cluster_preferences)}})
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
  if (!stack.cluster_spread.empty())
    o.set_annotation(kClusterSpreadAnnotation, stack.cluster_spread);
  if (!stack.cluster_tolerations.empty())
    o.set_annotation(kClusterTolerationsAnnotation, stack.cluster_tolerations);
  if (!stack.cluster_preferences.empty())
    o.set_annotation(kClusterPreferencesAnnotation, stack.cluster_preferences);
  o.mutations.push_back(fmt::format("placed as Stack {} chooses: {} of the clusters {} matches",
                                    stack.name, count, stack.cluster_selector));
}

// What the stack step reads of the seed once, for every member.
struct SeedShapes {
  const KindTable& kinds;
  const StackOptions& options;
  PodShapesByKind shapes;  // of the custom kinds the seed's CRDs define
  CrdIndex crds;
};

// A mode-gang stack on a cluster without Kubernetes' gang API (or with its 1.36 version): the
// path that cluster offers, as plant/gang_paths.h chose it.
void fall_back(StackPolicy& s, GangPath path) {
  if (s.coschedule != StackPolicy::Coschedule::kGang) return;
  switch (path) {
    case GangPath::kUpstream:
      return;
    case GangPath::kUpstreamAlpha:
      s.gang_api_version = "scheduling.k8s.io/v1alpha2";
      return;
    case GangPath::kPlantersScheduler:
      // All or nothing on any nodes, as Kubernetes' gang: no same-node rule.
      s.coschedule = StackPolicy::Coschedule::kScheduler;
      s.same_node = false;
      return;
    case GangPath::kAnchor:
      // The one gang every cluster can do: the group on one node, reserved by an anchor.
      s.coschedule = StackPolicy::Coschedule::kAnchor;
      s.topology = StackPolicy::Topology::kNone;
      s.colocate = true;
      s.topology_key = std::string(kHostnameKey);
      return;
  }
}

// Each stack's needs before its members are read: its policy, and the stacks it never shares a
// node with (separation goes both ways: who separates from whom, read once).
std::vector<StackNeeds> needs_of(const std::vector<StackPolicy>& stacks) {
  std::map<std::string_view, std::vector<std::string_view>> separated_by;
  for (const StackPolicy& other : stacks)
    for (const std::string& avoided : other.separate_from)
      separated_by[avoided].push_back(other.name);
  std::vector<StackNeeds> needs(stacks.size());
  for (size_t i = 0; i < stacks.size(); ++i) {
    StackNeeds& n = needs[i];
    n.name = stacks[i].name;
    n.body = stacks[i].body;
    n.atomic = stacks[i].atomic;
    n.held = stacks[i].topology == StackPolicy::Topology::kRequired;
    if (stacks[i].colocate) n.colocated_on = stacks[i].topology_key;
    n.avoid = stacks[i].separate_from;
    if (auto it = separated_by.find(stacks[i].name); it != separated_by.end())
      n.avoid.insert(n.avoid.end(), it->second.begin(), it->second.end());
    std::sort(n.avoid.begin(), n.avoid.end());
    n.avoid.erase(std::unique(n.avoid.begin(), n.avoid.end()), n.avoid.end());
  }
  return needs;
}

// The stack `o` is a member of: none, or an error when it names a Stack the seed does not hold
// or is in two. `used` counts the members each stack found (an error's too).
std::optional<size_t> stack_of(const Object& o, const std::vector<StackPolicy>& stacks,
                               std::vector<size_t>& used, Diagnostics& diags) {
  if (const json::string* a = o.annotation(kStackAnnotation);
      a && std::none_of(stacks.begin(), stacks.end(),
                        [&](const StackPolicy& s) { return s.name == *a; })) {
    diags.add(o.where(), o.display(),
              fmt::format("{} names the Stack \"{}\", which the seed does not hold",
                          kStackAnnotation, std::string_view(*a)),
              "add that Stack, or correct the name");
    return std::nullopt;
  }
  std::optional<size_t> found;
  for (size_t i = 0; i < stacks.size(); ++i) {
    if (!member_of(stacks[i], o)) continue;
    ++used[i];
    if (!found) {
      found = i;
      continue;
    }
    diags.add(
        o.where(), o.display(),
        fmt::format("the object is in two stacks, {} and {}", stacks[*found].name, stacks[i].name),
        "an object belongs to one stack: narrow the selectors");
    return std::nullopt;
  }
  return found;
}

// The pods of member `objects[object]`, or nothing with an error (or, when allowed, a warning)
// when planter cannot reach them.
std::optional<PodTargets> member_pods(Object& o, const SeedShapes& seed, Diagnostics& diags) {
  PodTargets targets = pod_targets(o, seed.kinds, pod_shapes_of(o, seed.shapes));
  if (!targets.conflict.empty()) {
    diags.add(o.where(), o.display(),
              fmt::format("planter cannot write the stack's policies into {} {}: {}",
                          o.ref.api_version, o.ref.kind, targets.conflict),
              "give each field its own path in the CRD's planter.nephio.org/pod-template "
              "annotation (docs/stacks.md)");
    return std::nullopt;
  }
  if (targets.known) return targets;
  std::string message = fmt::format(
      "planter cannot reach the pods of {} {}: their operator makes them from fields planter "
      "does not know",
      o.ref.api_version, o.ref.kind);
  if (seed.options.allow_unreachable_members)
    diags.warn(o.where(), o.display(), message + " (left as it is)");
  else
    diags.add(o.where(), o.display(), message,
              "annotate the kind's CRD with planter.nephio.org/pod-template (docs/stacks.md), or "
              "write the policies with a plugin");
  return std::nullopt;
}

// Writes the stack's policies into member `objects[object]` and adds its pods to the stack's
// needs (and what a co-scheduled stack's anchor takes from it to `anchor`).
void add_member(std::vector<Object>& objects, size_t object, const StackPolicy& stack,
                const SeedShapes& seed, StackNeeds& n, AnchorInputs& anchor, Diagnostics& diags) {
  Object& o = objects[object];
  place_with_stack(stack, o, diags);
  std::optional<PodTargets> targets = member_pods(o, seed, diags);
  if (!targets) return;
  PolicyWriter w{stack, o, diags};
  w.check_amounts = !seed.kinds.is_builtin_group(o.ref.group());
  StackMember& member = n.members.emplace_back(StackMember{object, {}});
  const json::object* schema =
      w.check_amounts ? crd_schema(objects, seed.crds, o.ref.group(), o.ref.kind, o.ref.version())
                      : nullptr;
  for (PodTarget& t : targets->targets) {
    w.write(t);
    if (schema) check_policies_kept(*schema, t, o, diags);
    if (t.replicas > 0 || t.per_node) collect(anchor, o, t);
    if (t.affinity) member.affinity_paths.push_back(t.affinity_at);
    StackPods pods = pod_kind(o, t);
    if (t.per_node) {
      n.per_node_pods = true;
    } else {
      n.pods += t.replicas;
      n.requests += pods.asks.times(t.replicas);
      if (t.replicas > 0) n.share = fit::at_least(n.share, pods.asks);
    }
    n.pod_kinds.push_back(std::move(pods));
  }
}

}  // namespace

std::vector<StackNeeds> apply_stacks(std::vector<Object>& objects, const KindTable& kinds,
                                     const StackOptions& options, Diagnostics& diags) {
  std::vector<StackPolicy> stacks = read_stacks(objects, diags);
  for (StackPolicy& s : stacks)
    if (auto path = options.gang_paths.find(s.name); path != options.gang_paths.end())
      fall_back(s, path->second);
  std::vector<StackNeeds> needs = needs_of(stacks);
  SeedShapes seed{kinds, options, seed_pod_shapes(objects, diags), crd_index(objects)};
  std::vector<size_t> used(stacks.size(), 0);
  std::vector<AnchorInputs> anchors(stacks.size());
  for (size_t object = 0; object < objects.size(); ++object)
    if (std::optional<size_t> i = stack_of(objects[object], stacks, used, diags))
      add_member(objects, object, stacks[*i], seed, needs[*i], anchors[*i], diags);
  for (size_t i = 0; i < stacks.size(); ++i)
    if (stacks[i].coschedule != StackPolicy::Coschedule::kNone)
      add_coschedule_objects(stacks[i], anchors[i], objects, kinds, needs[i], diags);
  // Co-located on one node: that node holds all of it.
  for (StackNeeds& n : needs)
    if (n.colocated_on == kHostnameKey) n.share = n.requests;
  for (size_t i = 0; i < stacks.size(); ++i)
    if (!used[i])
      diags.warn(stacks[i].source.str(), stacks[i].display(),
                 "no object of the seed is in this stack");
  return needs;
}

}  // namespace planter
