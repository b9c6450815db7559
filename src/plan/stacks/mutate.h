// The stack step of planning (after plugins, before placement; pure): reads the seed's Stacks,
// finds their members, and writes each stack's policies into its members' pod templates.
//
//   every pod     the label planter.nephio.org/stack: <name>
//   colocate      required podAffinity to that label over the topology key (any namespace)
//   separateFrom  required podAntiAffinity to the other stack's label over kubernetes.io/hostname
//   dedicated     a toleration of key=value:NoSchedule and a required node affinity key In [value]
//   atomic        requests = limits for cpu and memory in every container (limits from the
//                 requests, or spec.atomic.defaults, when missing)
//
// What the author wrote stays: terms are added (ANDed), never replaced. Every contradiction is
// bad input naming the object and its file:line: an object in two stacks, a required node
// affinity or nodeSelector the dedicated policy cannot satisfy, limits below requests, a
// container of an atomic stack without sizes, a member whose pods planter cannot reach.
// Each change is recorded in the object's `mutations` (plan -o json shows them).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/plan.h"
#include "plan/stacks/pod_shapes.h"

namespace planter {

struct StackOptions {
  // A member whose pods planter cannot reach (a custom resource of an operator it does not
  // know) is a warning instead of an error.
  bool allow_unreachable_members = false;
};

// Returns what each stack asks of its cluster.
std::vector<StackNeeds> apply_stacks(std::vector<Object>& objects, const KindTable& kinds,
                                     const StackOptions& options, Diagnostics& diags);

// The pod shapes of every custom kind a CRD of the seed defines: its
// planter.nephio.org/pod-template annotation, else the built-in table, else its schema (a malformed
// annotation goes to `diags`).
std::map<std::pair<std::string, std::string>, std::vector<PodShape>> seed_pod_shapes(
    const std::vector<Object>& objects, Diagnostics& diags);

// The kinds of pods `o` makes, each as one pod the fit model reads (StackPods::pod), from a copy
// of it: `o` is left as it is. `shapes`: its kind's, when it is a custom resource.
std::vector<StackPods> pod_kinds_of(const Object& o, const KindTable& kinds,
                                    const std::vector<PodShape>& shapes);

}  // namespace planter
