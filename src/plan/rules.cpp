#include "plan/rules.h"

#include <fmt/format.h>

#include <algorithm>

namespace planter {

namespace {

constexpr RequirementRule kRequirementRules[] = {
    {"cluster-choice",
     "a unit of an object that chooses N of its clusters (planter.nephio.org/cluster-count, a "
     "Stack's spec.clusters), and a Namespace or CRD placed only for such units, waits for the "
     "choice; on a cluster not chosen it is not declared",
     require_cluster_choice},
    {"cluster-ready", "a unit on a workload cluster the seed defines waits for that cluster",
     require_cluster_ready},
    {"namespace", "a namespaced unit waits for its Namespace to be Active", require_namespace},
    {"crd", "a custom resource waits for its CRD to be Established", require_crd},
    {"apiservice", "a kind served by an APIService waits for it to be Available",
     require_apiservice},
    {"webhook",
     "an object an admission or conversion webhook must answer for waits for the "
     "webhook's Service to have a ready endpoint",
     require_webhook_service},
    {"pod-references", "a bare Pod waits for its ServiceAccount, PriorityClass and RuntimeClass",
     require_pod_references},
    {"dependencies", "planter.nephio.org/dependencies, written by the author or a plugin",
     require_explicit_dependencies},
    {"depends-on",
     "config.kubernetes.io/depends-on, as kpt, Config Sync and cli-utils read it (cli-utils' "
     "object references)",
     require_depends_on, true},
    {"apply-time-mutation",
     "config.kubernetes.io/apply-time-mutation: the object waits until each source's field is "
     "set, and gets it copied in when declared",
     require_apply_time_sources, true},
    {"helm-hooks",
     "Helm's install order: pre-install hooks one by one, then the release, then post-install "
     "hooks",
     require_helm_hooks, true},
    {"sync-waves",
     "Argo CD's sync order: each phase and wave waits for the one before it to be healthy",
     require_sync_waves, true},
    {"rollout",
     "planter.nephio.org/rollout: an object on several clusters is declared batch by batch, "
     "canaries first, each batch once the one before it is healthy",
     require_rollout, false, true},
    {"stack-fits",
     "a member of an atomic stack (and a co-scheduled stack's anchor) waits until its cluster "
     "holds the whole stack (the fit model, docs/fit.md)",
     require_stack_fits},
    {"anchor",
     "a member of a co-scheduled stack that makes pods waits for the anchor's pod to be bound "
     "where the whole group fits",
     require_anchor, true},
    {"pod-group", "a member of a stack co-scheduled by planter's scheduler waits for its PodGroup",
     require_pod_group, true},
    {"scheduler-ready",
     "a member of a stack co-scheduled by planter's scheduler waits for the scheduler to answer "
     "(its Lease held and renewed)",
     require_scheduler_ready},
    {"node-capability",
     "a unit whose pods need something of a node (extended resources, huge pages, node labels, a "
     "RuntimeClass, an SR-IOV network) waits for enough schedulable nodes that have it, and for "
     "the seed's providers of it on its cluster to be done (docs/node-configuration.md)",
     require_node_capability, true},
};

}  // namespace

std::span<const RequirementRule> requirement_rules() {
  return kRequirementRules;
}

const RequirementRule* rule_named(std::string_view name) {
  for (const RequirementRule& r : kRequirementRules)
    if (r.name == name) return &r;
  return nullptr;
}

bool derived_again(std::string_view rule) {
  const RequirementRule* r = rule_named(rule);
  return r && r->derived_again;
}

ReadinessPredicate RuleContext::ready_when(size_t object) const {
  const auto* text = string_in(index.annotations(object), kReadyWhenAnnotation);
  if (!text) return ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
  auto p = ReadinessPredicate::parse(*text);
  // A malformed annotation was already reported by the plan's validation pass.
  return p ? p.value() : ReadinessPredicate::of(ReadinessPredicate::Type::kExists);
}

std::optional<size_t> RuleContext::unit_on(SeedIndex::Objects same_key, uint32_t cluster) const {
  if (same_key.empty()) return std::nullopt;
  auto it = unit_by_key.find(unit_key(index.key_group(same_key.front()), cluster));
  if (it == unit_by_key.end()) return std::nullopt;
  return it->second;
}

Requirement RuleContext::need(size_t object, uint32_t cluster, ReadinessPredicate when,
                              std::string_view rule) const {
  const std::string& name = inventory.clusters()[cluster].name;
  if (auto unit = unit_on(index.same_key(object), cluster))
    return {unit, {}, name, std::move(when), rule};
  // The object is not placed on that cluster: the requirement names it, as something outside.
  return {std::nullopt, objects[object].ref, name, std::move(when), rule};
}

Requirement RuleContext::need(ObjectRef ref, uint32_t cluster, ReadinessPredicate when,
                              std::string_view rule) const {
  const std::string& name = inventory.clusters()[cluster].name;
  if (auto unit = unit_on(index.by_key(ref), cluster))
    return {unit, {}, name, std::move(when), rule};
  return {std::nullopt, std::move(ref), name, std::move(when), rule};
}

void RuleContext::need_placed(const Unit& unit, std::span<const size_t> found,
                              std::string_view rule, std::vector<Requirement>& out,
                              std::optional<ReadinessPredicate> when, bool own_ready_when) const {
  // Wait on the same cluster when the dependency is there too, else wherever it goes.
  bool same_cluster = false;
  for (size_t i : found) same_cluster = same_cluster || placed_on(i, unit.cluster_index);
  for (size_t i : found) {
    if (same_cluster && !placed_on(i, unit.cluster_index)) continue;
    // The dependency's own ready-when comes first; else the rule's predicate, else exists.
    ReadinessPredicate predicate = ready_when(i);
    if (when && (!own_ready_when || !string_in(index.annotations(i), kReadyWhenAnnotation)))
      predicate = *when;
    for (uint32_t cluster : placements[i].clusters) {
      if (same_cluster && cluster != unit.cluster_index) continue;
      out.push_back(need(i, cluster, predicate, rule));
    }
  }
}

bool RuleContext::reports_for(const Unit& unit) const {
  const auto& c = placements[unit.object].clusters;
  return !c.empty() && c.front() == unit.cluster_index;
}

void RuleContext::report_self_reference(const Unit& unit, std::string_view annotation,
                                        std::string_view entry) const {
  if (!reports_for(unit)) return;
  const Object& o = objects[unit.object];
  diags.add(o.where(), o.display(),
            fmt::format("{}: \"{}\" is the object itself; an object cannot wait for itself",
                        annotation, entry),
            "remove it from the list");
}

bool RuleContext::placed_on(size_t object, uint32_t cluster) const {
  const auto& c = placements[object].clusters;
  return std::binary_search(c.begin(), c.end(), cluster);
}

}  // namespace planter
