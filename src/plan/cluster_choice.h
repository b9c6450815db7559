// Cluster choice, read from the seed (pure): which objects choose N of their candidate clusters
// (docs/placement.md, "Choosing clusters").
//
//   planter.nephio.org/cluster-selector: tier=edge
//   planter.nephio.org/cluster-count: "2"
//
// on an object (or a Stack's spec.clusters: {count: 2, selector: tier=edge}, which the stack step
// writes on every member) places it on every cluster the selector (or /clusters list) names, its
// candidates, and makes it one choice: planting declares it on `count` of them, chosen by the fit
// model (fit/cluster_choice.h). A Stack's members are one choice; the objects that follow a
// chosen Namespace join the Namespace's. The cluster-choice rule (rules/cluster_choice.cpp) makes
// their units, and the Namespaces and CRDs placed only for them, wait for the choice.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fit/cluster_choice.h"
#include "model/diagnostics.h"
#include "model/kinds.h"
#include "model/object.h"
#include "plan/cluster_preferences.h"
#include "plan/cluster_spread_annotation.h"
#include "plan/cluster_tolerations.h"
#include "plan/inventory.h"
#include "plan/placement.h"
#include "plan/plan.h"
#include "plan/seed_index.h"

namespace planter {

// A cluster as a candidate of `choice` (fit/cluster_choice.h), with what the choice's rules read
// of it: its domain under the spread, its taints against the tolerations (tolerationSeconds
// counted at `now`), its labels for the preferences (pointing into `cluster`). Not fitting yet:
// the caller says whether, and why not, and what it has left.
fit::ClusterCandidate choice_candidate(const ClusterInfo& cluster, const ClusterChoice& choice,
                                       std::chrono::system_clock::time_point now);

// The choices a cluster-choice requirement's `when.arg` names ("0,3": indices into
// Plan::choices).
std::vector<size_t> choice_indices(std::string_view arg);

// The choices that decide whether `unit` is declared (its cluster-choice requirements'), none
// for a unit no choice decides. In the rule's file (rules/cluster_choice.cpp), which owns the
// requirement kind.
std::vector<size_t> choices_deciding(const Unit& unit);

struct ClusterChoices {
  std::vector<ClusterChoice> choices;
  std::vector<int32_t> of_object;  // by object: its choice, or -1
};

// Every malformed choice is reported at its object: a count that is not a whole number from 1 to
// kMaxClusterCount, a count without a selector or list to choose from, more clusters asked than
// there are candidates, members of one Stack that choose differently.
ClusterChoices read_cluster_choices(const std::vector<Object>& objects, const SeedIndex& index,
                                    const std::vector<Placement>& placements,
                                    const Inventory& inventory,
                                    const std::vector<StackNeeds>& stacks, const KindTable& kinds,
                                    Diagnostics& diags);

}  // namespace planter
