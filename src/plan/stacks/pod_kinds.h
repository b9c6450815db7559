// The pods a stack's members make, as the fit model reads them: each member's kinds of pods (from
// its pod template, or from an operator's fields through the pod shapes of its custom kind) and
// what each pod asks. Read by the stack step (mutate.h) and by node needs (node_needs.h).
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/stacks/pod_shapes.h"
#include "plan/stacks/pod_targets.h"
#include "plan/stacks/stack_needs.h"

namespace planter {

// By custom kind: (group, kind).
using PodShapesByKind = std::map<std::pair<std::string, std::string>, std::vector<PodShape>>;

// The pod shapes of every custom kind a CRD of the seed defines: its
// planter.nephio.org/pod-template annotation, else the built-in table, else its schema (a malformed
// annotation goes to `diags`).
PodShapesByKind seed_pod_shapes(const std::vector<Object>& objects, Diagnostics& diags);

// The shapes of `o`'s kind: the seed's CRD's, else the built-in table's.
std::vector<PodShape> pod_shapes_of(const Object& o, const PodShapesByKind& seed_shapes);

// One kind of pod of a target as the fit model sees it, after the policies are written: the pod
// its object will make (a pod template copied whole; for an operator's fields, a pod made of what
// planter knows of them) and what it asks (StackPods::asks).
StackPods pod_kind(const Object& o, const PodTarget& t);

// The kinds of pods `o` makes, from a copy of it: `o` is left as it is. `shapes`: its kind's,
// when it is a custom resource.
std::vector<StackPods> pod_kinds_of(const Object& o, const KindTable& kinds,
                                    const std::vector<PodShape>& shapes);

// Where each custom kind's CRD is among the seed's objects: (group, kind) -> index.
using CrdIndex = std::map<std::pair<std::string, std::string>, size_t>;
CrdIndex crd_index(const std::vector<Object>& objects);

// The schema of `version` of a custom kind whose CRD is in the seed (the storage version's when
// that version is not listed); null when the seed has no such CRD or it has no schema.
const boost::json::object* crd_schema(const std::vector<Object>& objects, const CrdIndex& crds,
                                      std::string_view group, const std::string& kind,
                                      std::string_view version);

}  // namespace planter
