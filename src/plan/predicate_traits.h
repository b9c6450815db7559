// What the planner, the renderers and the engine know of each kind of requirement
// (ReadinessPredicate::Type), one row per type: its name in a plan's `when`, whether
// `planter.nephio.org/ready-when` may say it, whether it is about an object, what kind of thing
// its wait is, and how it is described. Nothing else compares a predicate type: a new one is an
// enum value, its row (the compiler names this file's switch), its rule file (src/plan/rules/)
// and its gate file (src/plant/gates/).
#pragma once

#include <string>
#include <string_view>

#include "model/object.h"
#include "plan/readiness.h"

namespace planter {

// What a wait is for: the timeline's colours, the report's `waits[].kind`.
enum class WaitKind {
  kCluster,    // a cluster: provisioned, linked, chosen
  kApi,        // a kind served: a CRD Established, an APIService Available
  kNamespace,  // its Namespace Active
  kReady,      // an object to exist or be ready
  kRoom,       // room or capabilities on nodes, an anchor, a scheduler
  kRetry,      // sent back to wait by the server's answer (planting's, no row's)
};

struct PredicateTraits {
  std::string_view name;  // as a plan's `when` writes it ("condition" before its "=<arg>")
  // What follows the name in `when`: nothing, "=<arg>", or "=<arg>=<value>".
  enum class Shown { kName, kWithArg, kWithArgAndValue } shown = Shown::kName;
  bool from_annotation = false;  // `planter.nephio.org/ready-when` may say it
  // About an object (a unit of the seed, or one outside it that the requirement names): a
  // requirement outside the seed counts among "requirements on objects not in the seed" and is
  // `external` in `plan -o json`. Not: a stack's fit, nodes' capabilities, a cluster choice.
  bool about_object = true;
  // Its object is never in the seed (the scheduler's Lease): "(not in seed)" would say nothing.
  bool never_in_seed = false;
  // Holds once its provider unit is declared: no gate needs to look (exists).
  bool declared_is_enough = false;
  // Looked at before its provider unit is declared: what it waits for comes after the declaration
  // by itself, elsewhere (a cluster object's cluster answering).
  bool before_provider_declared = false;
  // A kind is served once it holds (a CRD Established, an APIService Available): an apply the
  // server refuses as "kind unknown" waits for it again.
  bool serves_a_kind = false;
  // Decides whether the unit is planted at all (its cluster chosen or not): looked at first.
  bool decides_the_cluster = false;
  // Its description names the cluster already (no " on <cluster>" after it).
  bool names_its_cluster = false;
  // Waits on the nodes of its cluster: the plan's graph draws it as a node of its own.
  bool about_nodes = false;
  WaitKind wait = WaitKind::kReady;
  // How the plan says it ("stack web fits on cluster edge1"), from the predicate, the cluster it
  // is checked on and the object it names; null: "<object> <when>". Either way " (not in seed)"
  // follows for an object outside the seed (about_object, not never_in_seed).
  std::string (*describe)(const ReadinessPredicate& when, const std::string& cluster,
                          const ObjectRef& target) = nullptr;
};

const PredicateTraits& traits_of(ReadinessPredicate::Type type);

}  // namespace planter
