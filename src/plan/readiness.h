// ReadinessPredicate: when a requirement holds. Parsed from `planter.nephio.org/ready-when`
// (`exists`, `healthy`, `condition=<Type>`, `jsonpath=<expr>=<value>`, `jsonpath=<expr>` for
// "is set") or chosen by a built-in rule
// (`active`, `established`, `available`, `endpoints-ready`, `cluster-ready`, `stack-fits`,
// `anchor-scheduled`, `cluster-choice`, `node-capability`, `healthy-for`, `rollout-room`).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace planter {

struct JsonPathStep;

struct ReadinessPredicate {
  enum class Type {
    kExists,
    kActive,           // Namespace status.phase is Active
    kEstablished,      // CRD condition Established and the kind is discoverable
    kAvailable,        // APIService condition Available
    kEndpointsReady,   // Service has a ready endpoint
    kClusterReady,     // workload cluster provisioned, kubeconfig obtainable, API answers
    kCondition,        // condition `arg` is True
    kJsonPath,         // value at `arg` equals `value`
    kFieldSet,         // value at `arg` is set: not missing, null or empty
    kStackFits,        // the cluster holds all of stack `arg` at once (never from an annotation)
    kAnchorScheduled,  // the anchor pod of stack `arg` is bound to a schedulable node (ditto)
    kSchedulerReady,   // a Lease is held and renewed: its scheduler answers (ditto)
    kHealthy,          // healthy as Argo CD judges the built-in kinds (src/plant/health.h)
    kClusterChoice,    // the unit's cluster is among those chosen: `arg` lists the choices (indices
                       // into Plan::choices, comma-separated; any of them); never from an
                       // annotation
    kNodeCapability,   // enough nodes meet a node need: `value` is "<index into
                       // Plan::node_needs>;<its providers, for people>", `arg` says the need
                       // for people; never from an annotation
    kHealthyFor,       // healthy, and seen so by this planting for `arg` (a duration such as
                       // "10m": a roll-out stage's `after`); never from an annotation
    kRolloutRoom,      // fewer than `arg` of the other clusters its object rolls out to are not
                       // available (a roll-out's maxUnavailable); the requirement names the
                       // unit's own object; never from an annotation
  };
  Type type = Type::kExists;
  std::string arg;
  std::string value;
  // kJsonPath, kFieldSet: `arg` parsed once, when the predicate is made (parse, jsonpath), and
  // shared by its copies. Null in one made otherwise: its check parses `arg` each time.
  std::shared_ptr<const std::vector<JsonPathStep>> steps;

  static ReadinessPredicate of(Type t) { return {t, {}, {}}; }
  // kJsonPath (`expression` equals `value`) or kFieldSet (`expression` is set), with its steps;
  // an error names a malformed expression.
  static Result<ReadinessPredicate> jsonpath(Type type, std::string_view expression,
                                             std::string value = {});
  // The plan format's `when` string: "exists", "condition=Ready", "jsonpath={.status.phase}=Ok"
  // (from the type's row: predicate_traits.cpp).
  std::string str() const;
  // Parses the user-facing forms of `planter.nephio.org/ready-when` (the rows that say so:
  // predicate_traits.cpp).
  static Result<ReadinessPredicate> parse(std::string_view text);

  // The same predicate: `steps` follow from `arg`.
  bool operator==(const ReadinessPredicate& o) const {
    return type == o.type && arg == o.arg && value == o.value;
  }
};

}  // namespace planter
