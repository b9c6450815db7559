#include "plan/rules.h"

#include <fmt/format.h>

#include <algorithm>

namespace planter {

namespace {

constexpr RequirementRule kRequirementRules[] = {
    {.name = "cluster-choice",
     .summary =
         "a unit of an object that chooses N of its clusters (planter.nephio.org/cluster-count, a "
         "Stack's spec.clusters), and a Namespace or CRD placed only for such units, waits for the "
         "choice; on a cluster not chosen it is not declared",
     .derive = require_cluster_choice,
     .prepare = &prepare_cluster_choices},
    {.name = "cluster-ready",
     .summary = "a unit on a workload cluster the seed defines waits for that cluster",
     .derive = require_cluster_ready},
    {.name = "namespace",
     .summary = "a namespaced unit waits for its Namespace to be Active",
     .derive = require_namespace},
    {.name = "crd",
     .summary = "a custom resource waits for its CRD to be Established",
     .derive = require_crd},
    {.name = "apiservice",
     .summary = "a kind served by an APIService waits for it to be Available",
     .derive = require_apiservice},
    {.name = "webhook",
     .summary = "an object an admission or conversion webhook must answer for waits for the "
                "webhook's Service to have a ready endpoint",
     .derive = require_webhook_service,
     .prepare = &prepare_webhooks},
    {.name = "pod-references",
     .summary = "a bare Pod waits for its ServiceAccount, PriorityClass and RuntimeClass",
     .derive = require_pod_references},
    {.name = "scheduling-group",
     .summary = "a PodGroup waits for the Workload whose template it is made from, and a workload "
                "whose pods join a PodGroup of the seed waits for it (Kubernetes' own gangs)",
     .derive = require_scheduling_group},
    {.name = "device-claims",
     .summary = "a ResourceClaim or ResourceClaimTemplate waits for its DeviceClasses, and a "
                "workload's pods for the claims and templates they name (Dynamic Resource "
                "Allocation, docs/dra.md)",
     .derive = require_device_claims},
    {.name = "dependencies",
     .summary = "planter.nephio.org/dependencies, written by the author or a plugin",
     .derive = require_explicit_dependencies},
    {.name = "depends-on",
     .summary =
         "config.kubernetes.io/depends-on, as kpt, Config Sync and cli-utils read it (cli-utils' "
         "object references)",
     .derive = require_depends_on,
     .derived_again = true},
    {.name = "apply-time-mutation",
     .summary =
         "config.kubernetes.io/apply-time-mutation: the object waits until each source's field is "
         "set, and gets it copied in when declared",
     .derive = require_apply_time_sources,
     .derived_again = true},
    {.name = "helm-hooks",
     .summary =
         "Helm's install order: pre-install hooks one by one, then the release, then post-install "
         "hooks",
     .derive = require_helm_hooks,
     .derived_again = true,
     .prepare = &prepare_release_order},
    {.name = "sync-waves",
     .summary =
         "Argo CD's sync order: each phase and wave waits for the one before it to be healthy",
     .derive = require_sync_waves,
     .derived_again = true,
     .prepare = &prepare_release_order},
    {.name = "rollout",
     .summary =
         "planter.nephio.org/rollout: an object on several clusters is declared batch by batch, "
         "canaries first, each batch once the one before it is healthy",
     .derive = require_rollout,
     .unchosen_provider_holds_nothing = true,
     .prepare = &prepare_rollouts},
    {.name = "stack-fits",
     .summary =
         "a member of an atomic stack (and a co-scheduled stack's anchor) waits until its cluster "
         "holds the whole stack (the fit model, docs/fit.md)",
     .derive = require_stack_fits,
     .prepare = &prepare_stack_index},
    {.name = "anchor",
     .summary =
         "a member of a co-scheduled stack that makes pods waits for the anchor's pod to be bound "
         "where the whole group fits",
     .derive = require_anchor,
     .derived_again = true,
     .prepare = &prepare_stack_index},
    {.name = "pod-group",
     .summary = "a member of a stack co-scheduled by planter's scheduler waits for its PodGroup",
     .derive = require_pod_group,
     .derived_again = true,
     .prepare = &prepare_stack_index},
    {.name = "scheduler-ready",
     .summary = "a member of a stack co-scheduled by planter's scheduler waits for the scheduler "
                "to answer "
                "(its Lease held and renewed)",
     .derive = require_scheduler_ready,
     .prepare = &prepare_stack_index},
    {.name = "node-capability",
     .summary = "a unit whose pods need something of a node (extended resources, huge pages, node "
                "labels, a "
                "RuntimeClass, an SR-IOV network) waits for enough schedulable nodes that have it, "
                "and for "
                "the seed's providers of it on its cluster to be done (docs/node-configuration.md)",
     .derive = require_node_capability,
     .derived_again = true,
     .prepare = &prepare_node_needs_index},
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
