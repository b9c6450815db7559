// Choosing N of M clusters by room (docs/placement.md, "Choosing clusters"): the decision behind a
// unit's planter.nephio.org/cluster-count and a Stack's spec.clusters, made by the planting
// engine's cluster-choice gate and shown by `planter plan --fit`.
//
// Each candidate cluster is first judged by the fit model (group.h: the whole group at once, every
// resource its nodes advertise); the clusters where it fits are then scored by the room they have
// left after it, as Open Cluster Management's ResourceAllocatableCPU and
// ResourceAllocatableMemory prioritizers score, normalised to the roomiest candidate:
//
//   score = 100 × (cpu left / most cpu left + memory left / most memory left) / 2
//
// (cpu and memory left: what the cluster's schedulable nodes have free once the group is placed).
// Clusters chosen before (the record of an earlier run) are kept first, whatever their score, so
// that a replant moves nothing; the rest of the count goes to the best scores, ties broken by
// name, so that a choice is reproducible. With a spread (fit/cluster_spread.h) the choice is the
// best-scoring set that keeps it. Taints (fit/cluster_taints.h): a NoSelect cluster is neither
// taken nor kept, a NoSelectIfNew one only kept, a PreferNoSelect one taken only when the choice
// cannot be complete without such clusters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fit/cluster_preferences.h"
#include "fit/cluster_spread.h"
#include "fit/cluster_taints.h"
#include "fit/resources.h"

namespace planter::fit {

struct GroupFit;  // fit/group.h

struct ClusterCandidate {
  std::string name;
  bool fits = false;
  std::string why;  // not fitting (or not readable): why, for people
  Resources left;   // fitting: what its schedulable nodes have free after the group
  std::optional<std::string> domain;   // with a spread: its value of the topology key
  TaintJudgement taint;                // its taints against the choice's tolerations
  const Labels* labels = nullptr;      // for preferences: the cluster's labels
  int64_t nodes = 0;                   // for preferences: its schedulable nodes
  const Labels* properties = nullptr;  // for preferences: its ClusterProfile's properties

  // Whether the group fits it, why not, and what it has left (fit_group's answer).
  ClusterCandidate& with(const GroupFit& fit);
};

struct ScoredCandidate {
  std::string name;
  bool fits = false;
  bool chosen = false;
  bool kept = false;   // chosen by an earlier run and kept
  int score = 0;       // 0..100; 0 when it does not fit
  std::string why;     // not fitting: why
  std::string domain;  // with a spread: "region=eu", or "" (no such label)
  std::string shares;  // with preferences: "room 63, region=eu 50, cost 12"
};

struct ClusterChoiceResult {
  // The chosen clusters, in the order they were chosen (kept ones first, then by score).
  std::vector<std::string> chosen;
  // Every candidate, chosen first, then the others by score and name.
  std::vector<ScoredCandidate> ranked;
  bool complete = false;  // `count` clusters were chosen
  // With a spread: the skew of the chosen clusters, and (not complete) what holds it back.
  int64_t skew = 0;
  std::string why;
};

// Chooses `count` of `candidates`. `kept`: the clusters an earlier run chose; those still among
// the candidates stay chosen (they already hold the group), fitting or not.
ClusterChoiceResult choose_clusters(int64_t count, const std::vector<ClusterCandidate>& candidates,
                                    const std::vector<std::string>& kept,
                                    const ClusterSpread& spread = {},
                                    const std::vector<ClusterPreference>& preferences = {});

// For people: "edge2 (score 100), edge5 (score 62)".
std::string chosen_text(const ClusterChoiceResult& result);

}  // namespace planter::fit
