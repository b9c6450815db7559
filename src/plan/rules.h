// The built-in requirement rules: one table (requirement_rules()), each rule a small function in
// src/plan/rules/ that looks at one unit and says what it must wait for. The table is data in the
// spirit of kapp's ordering rules; the graph code only connects what the rules return.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "plan/inventory.h"
#include "plan/placement.h"
#include "plan/plan.h"
#include "plan/seed_index.h"

namespace planter {

inline constexpr std::string_view kDependenciesAnnotation = "planter.nephio.org/dependencies";
inline constexpr std::string_view kExternalDependenciesAnnotation =
    "planter.nephio.org/external-dependencies";
inline constexpr std::string_view kReadyWhenAnnotation = "planter.nephio.org/ready-when";
inline constexpr std::string_view kDependsOnAnnotation = "config.kubernetes.io/depends-on";
inline constexpr std::string_view kRolloutAnnotation = "planter.nephio.org/rollout";
// The NAME of the approval `r` waits for (a roll-out's, rules/rollout.cpp); empty when it waits
// for something else.
std::string_view approval_of(const Plan& plan, const Requirement& r);

struct RuleContext;

// What a family of rules builds once per plan, after every unit is made and before any unit's
// requirements are derived (RequirementRule::prepare): the seed's webhooks, Helm's and Argo CD's
// release order, the stacks' anchors, the roll-out batches. Its type is the family's own, declared
// in the family's file; a rule reads it back with RuleContext::family<T>().
class FamilyIndex {
 public:
  template <typename T>
  static FamilyIndex of(T value) {
    return FamilyIndex(key<T>(), std::make_shared<const T>(std::move(value)));
  }
  // The index when it is a T, else null.
  template <typename T>
  const T* as() const {
    return key_ == key<T>() ? static_cast<const T*>(value_.get()) : nullptr;
  }

 private:
  FamilyIndex(const void* key, std::shared_ptr<const void> value)
      : key_(key), value_(std::move(value)) {}
  // One address per type, with no RTTI: the type's own static.
  template <typename T>
  static const void* key() {
    static constexpr char kKey = 0;
    return &kKey;
  }
  const void* key_;
  std::shared_ptr<const void> value_;
};

// What a rule can look at. Everything is read-only but the diagnostics.
struct RuleContext {
  const std::vector<Object>& objects;
  const std::vector<Placement>& placements;  // per object
  const SeedIndex& index;
  const KindTable& kinds;
  const Inventory& inventory;
  // The plan being made: its stacks, cluster choices, and what objects' pods need of their nodes
  // (node_needs, node_providers) are read before its units are made.
  const Plan& plan;
  const std::vector<Unit>& units;  // plan.units
  // An object's units are consecutive: first_unit[i] up to first_unit[i + 1].
  const std::vector<size_t>& first_unit;
  const Conventions& conventions;  // which other tools' annotations count
  // The unit of each identity on each cluster: (SeedIndex::key_group << 32 | cluster) -> unit.
  const std::unordered_map<uint64_t, size_t>& unit_by_key;
  // What each family of rules prepared (RequirementRule::prepare), once.
  const std::vector<FamilyIndex>& families;
  Diagnostics& diags;

  // Clusters are named by their index into inventory.clusters(), as units and placements do.

  // A requirement on an object of the seed (objects[object], or another object with its identity)
  // on `cluster`. It names the unit that provides it when that object is placed there.
  Requirement need(size_t object, uint32_t cluster, ReadinessPredicate when,
                   std::string_view rule) const;
  // A requirement on whatever `ref` names: a unit of the seed when one has that identity on
  // `cluster`, else something outside the seed.
  Requirement need(ObjectRef ref, uint32_t cluster, ReadinessPredicate when,
                   std::string_view rule) const;
  // The unit on `cluster` of one of these objects (objects of one identity: what
  // SeedIndex::same_key or namespace_of lists). A lookup, not a scan: 5,000 clusters each with
  // their Namespace "app" must not cost 5,000 steps per object in it.
  std::optional<size_t> unit_on(SeedIndex::Objects same_key, uint32_t cluster) const;
  static uint64_t unit_key(uint32_t key_group, uint32_t cluster) {
    return uint64_t{key_group} << 32 | cluster;
  }

  // The readiness predicate dependents of `object` wait for: its ready-when annotation, or exists.
  ReadinessPredicate ready_when(size_t object) const;
  // True when `object` is placed on `cluster`.
  bool placed_on(size_t object, uint32_t cluster) const;
  // Requirements of `unit` on seed objects of one identity (`found`): on the unit's own cluster
  // when one of them is placed there, else on every cluster they go to. Each waits for the
  // object's ready-when, else for `when`, else for it to exist.
  // `own_ready_when` false: `when` even over the object's ready-when.
  void need_placed(const Unit& unit, std::span<const size_t> found, std::string_view rule,
                   std::vector<Requirement>& out,
                   std::optional<ReadinessPredicate> when = std::nullopt,
                   bool own_ready_when = true) const;
  // True for the first of an object's units: a rule reports an object's problems there only,
  // once, not once per cluster it goes to.
  bool reports_for(const Unit& unit) const;
  // Reports, once per object, that an annotation (`entry` of it) names the object itself.
  void report_self_reference(const Unit& unit, std::string_view annotation,
                             std::string_view entry) const;
  // What the rule's family prepared (its table row's prepare returned a FamilyIndex::of<T>).
  template <typename T>
  const T& family() const {
    for (const FamilyIndex& f : families)
      if (const T* index = f.as<T>()) return *index;
    throw std::logic_error("a requirement rule reads an index its table row does not prepare");
  }
  // The index of one of `units` (a rule is handed a reference into it).
  size_t unit_index(const Unit& unit) const { return static_cast<size_t>(&unit - units.data()); }
};

struct RequirementRule {
  std::string_view name;
  std::string_view summary;
  void (*derive)(const RuleContext& ctx, const Unit& unit, std::vector<Requirement>& out);
  // Planning `planter annotate`'s output derives the requirement again from what the seed keeps
  // (another tool's annotation, printed back as it was; a Stack's anchor or PodGroup; the pods and
  // the node providers), so annotate does not restate it in planter.nephio.org/dependencies (where
  // it would wait for the dependency's ready-when instead of the rule's predicate).
  bool derived_again = false;
  // A provider on a cluster its choice did not choose holds nothing back (a roll-out batch that
  // went nowhere); for other rules the unit is blocked by it.
  bool unchosen_provider_holds_nothing = false;
  // Builds the index the rule's family reads (kube-scheduler's PreFilter, once per plan rather
  // than once per pod): run once every unit is made, before any is derived; rules that share a
  // family name the same function, which runs once. Null: the rule reads the plan alone.
  FamilyIndex (*prepare)(const RuleContext& ctx) = nullptr;
};

// The rule of that name; null for a name no built-in rule has (a plugin's).
const RequirementRule* rule_named(std::string_view name);
// rule_named(rule)->derived_again, false for a name no built-in rule has.
bool derived_again(std::string_view rule);

// The built-in requirement rules, in order. When two rules require the same object on the same
// cluster, the earlier one (the more specific predicate) wins.
std::span<const RequirementRule> requirement_rules();

// Rule functions, one family per file under src/plan/rules/.
void require_stack_fits(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_anchor(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_pod_group(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_scheduler_ready(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_node_capability(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_cluster_ready(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_namespace(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_crd(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_apiservice(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_webhook_service(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_pod_references(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_scheduling_group(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_device_claims(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_explicit_dependencies(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_depends_on(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_apply_time_sources(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_helm_hooks(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_sync_waves(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_rollout(const RuleContext&, const Unit&, std::vector<Requirement>&);
void require_cluster_choice(const RuleContext&, const Unit&, std::vector<Requirement>&);

// Family indices (RequirementRule::prepare), each in its family's file.
FamilyIndex prepare_cluster_choices(const RuleContext&);   // cluster_choice.cpp
FamilyIndex prepare_webhooks(const RuleContext&);          // webhook.cpp
FamilyIndex prepare_release_order(const RuleContext&);     // release_order.cpp
FamilyIndex prepare_rollouts(const RuleContext&);          // rollout.cpp
FamilyIndex prepare_stack_index(const RuleContext&);       // stack_index.cpp
FamilyIndex prepare_node_needs_index(const RuleContext&);  // node_capability.cpp

}  // namespace planter
