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
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/stack_needs.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

struct StackOptions {
  // A member whose pods planter cannot reach (a custom resource of an operator it does not
  // know) is a warning instead of an error.
  bool allow_unreachable_members = false;
  // Mode-gang stacks whose cluster gangs them otherwise (plant/gang_paths.h), by Stack name.
  std::map<std::string, GangPath> gang_paths;
};

// Returns what each stack asks of its cluster.
std::vector<StackNeeds> apply_stacks(std::vector<Object>& objects, const KindTable& kinds,
                                     const StackOptions& options, Diagnostics& diags);

}  // namespace planter
