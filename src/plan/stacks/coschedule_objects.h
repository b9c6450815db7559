// What planter adds to the seed for a co-scheduled stack (docs/coscheduling.md): the anchor
// StatefulSet whose pod mounts the members' claims and is placed where the whole stack fits
// (`coschedule: {mode: anchor}`), or the PodGroup planter's scheduler gangs the members' pods by
// (`mode: scheduler`). Each goes where the stack's first pod-making member goes.
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/stack_needs.h"
#include "plan/stacks/stack_policy.h"

namespace planter {

// What a co-scheduled stack's anchor is made from: its members' namespace, claims and placement.
struct AnchorInputs {
  std::set<std::string> namespaces;
  std::vector<std::string> claims;  // in the order members mount them
  // The placement annotations of the first member that makes pods (a copy: the seed's objects
  // grow while anchors are added), and whether there is one.
  boost::json::object placement;
  bool makes_pods = false;
};

// Adds what member `member`'s pod target `t` brings: its namespace, its claims.
void collect(AnchorInputs& in, const Object& member, const PodTarget& t);

// Adds the anchor or the PodGroup of a co-scheduled stack to `objects` (one a seed planter
// annotated before already holds is used again) and records it in `needs`, with the anchor's pods;
// what cannot be made is an error on the Stack.
void add_coschedule_objects(const StackPolicy& stack, const AnchorInputs& in,
                            std::vector<Object>& objects, const KindTable& kinds, StackNeeds& needs,
                            Diagnostics& diags);

}  // namespace planter
