// The plan: every unit (an object on a cluster), what each one requires, and the order that
// follows. A Plan is a value; building it is pure (no network) and deterministic.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fit/cluster_preferences.h"
#include "fit/cluster_spread.h"
#include "fit/cluster_taints.h"
#include "model/boxed.h"
#include "model/object.h"
#include "plan/conventions.h"
#include "plan/inventory.h"
#include "plan/node_needs.h"
#include "plan/readiness.h"
#include "plan/stacks/stack_needs.h"

namespace planter {

// A hard dependency of a unit: an object on `cluster` must satisfy `when`. That object is a unit of
// the plan, or something outside the seed that the requirement names itself; Plan::target() says
// which object either way.
struct Requirement {
  std::optional<size_t> unit;  // the unit that provides it; none when it is not in the seed
  // What it waits for, exactly when `unit` is empty. An empty name means the kind itself (its CRD
  // is not in the seed). Boxed: most requirements name a unit, and a plan holds one per
  // dependency of every unit (docs/limits.md).
  Boxed<ObjectRef> external_object;
  std::string cluster;
  ReadinessPredicate when;
  std::string_view rule;  // the rule that derived it, e.g. "namespace" (a static name)

  bool external() const { return !unit.has_value(); }
};

struct Unit {
  size_t object = 0;  // index into Plan::objects
  std::string cluster;
  uint32_t cluster_index = 0;  // the cluster's index into Plan::clusters
  std::vector<Requirement> requirements;
  int wave = 0;  // longest-path depth; 0 for units that need nothing of the seed
};

// N of the clusters a selector (or list) names, chosen while planting where the group fits, by
// room (planter.nephio.org/cluster-count on an object, spec.clusters on a Stack;
// plan/cluster_choice.h). Its objects are placed on every candidate; the cluster-choice
// requirement lets through only the units on the chosen ones, and the others are not declared.
struct ClusterChoice {
  std::string name;  // "stack gpu-train", or the object's short form: also the record's key
  SourceLocation source;
  int64_t count = 0;
  std::vector<uint32_t> candidates;  // indices into Plan::clusters, ascending
  std::optional<size_t> stack;       // a Stack's choice: index into Plan::stacks (its group)
  std::vector<size_t> objects;       // the objects whose units it decides
  std::vector<StackPods> pod_kinds;  // not a Stack's: the pods its objects make
  fit::ClusterSpread spread;         // key empty: none
  std::vector<fit::ClusterToleration> tolerations;  // of the candidates' taints
  std::vector<fit::ClusterPreference> preferences;  // beyond room
};

// An object of the seed that planter reads but never declares, by another tool's convention: a
// Kptfile, kpt's local config, a Helm test hook, an Argo CD Skip hook.
struct SetAside {
  ObjectRef ref;
  SourceLocation source;
  std::string_view convention;  // "kpt", "helm", "argocd" (static names)
  std::string why;
  boost::json::object body;  // as read: `planter annotate` prints it back unchanged
};

// A roll-out's approval NAME (its `approval` field) is the ConfigMap planter-approval-NAME on the
// management cluster, in kube-system (the CLI's plans) or in a Seed's own namespace (the
// operator's): `planter approve NAME [-n NAMESPACE]` writes it.
inline constexpr std::string_view kApprovalNamespace = "kube-system";
inline constexpr std::string_view kApprovalPrefix = "planter-approval-";

struct Plan {
  std::vector<Object> objects;
  std::vector<SetAside> set_aside;  // read, never declared
  Conventions conventions;          // the other tools' annotations this plan honours
  std::string approval_namespace{kApprovalNamespace};  // PlanOptions::approval_namespace
  std::vector<StackNeeds> stacks;
  // What objects' pods need of their nodes (the node-capability rule's; in object order).
  std::vector<NodeNeed> node_needs;
  std::vector<SeedProvider> node_providers;  // what NodeNeed::providers index
  std::vector<ClusterInfo> clusters;
  std::vector<ClusterChoice> choices;
  std::vector<Unit> units;  // ordered by wave, then by position in the seed

  const Object& object_of(const Unit& u) const { return objects[u.object]; }
  // What a requirement waits for: its unit's object, or the reference it carries.
  const ObjectRef& target(const Requirement& r) const {
    return r.unit ? objects[units[*r.unit].object].ref : *r.external_object;
  }
  // A requirement for people: "Namespace/cnf active", "cluster edge1 ready", "kind cnf.org/v1
  // Instance established", "... (not in seed)".
  std::string describe(const Requirement& r) const;
  int wave_count() const;
  // The units on each cluster (ascending), clusters in the order of `clusters` (SELF first), then
  // any other a unit names; clusters without units are left out. One pass: summaries of 5,000
  // clusters must not compare every unit with every cluster.
  std::vector<std::pair<std::string, std::vector<size_t>>> units_by_cluster() const;
  // Requirements on objects outside the seed (a stack's fit is not one).
  size_t external_requirement_count() const;
};

// Whom an object is declared as, by the proof of concept's convention: the
// `planter.nephio.org/user` annotation when the author wrote one, else "admin" for what only a
// cluster administrator may write (Namespaces, CRDs, RBAC, admission webhooks, APIServices,
// PriorityClasses), else "" (the seed's own identity). The operator declares "admin" objects as
// itself only for seeds in its --admin-namespaces.
inline constexpr std::string_view kUserAnnotation = "planter.nephio.org/user";
inline constexpr std::string_view kAdminUser = "admin";
std::string declared_user(const Object& object);

}  // namespace planter
