// Spreading a choice of N clusters over a topology of clusters (docs/placement.md, "Spreading
// over regions"): `planter.nephio.org/cluster-spread` or a Stack's spec.clusters.spread, read as
// kube-scheduler and KubeFleet read a topologySpreadConstraint. The candidates are grouped by the
// value of one of their labels, the topology key (a domain: region=eu); the skew of a choice is
// the most clusters it takes in one domain less the fewest it takes in any domain. Every domain a
// candidate is in counts, one where nothing fits included: a full region keeps the others from
// running ahead.
//
//   DoNotSchedule (the default): the choice is a set of `count` clusters, each with the label,
//     whose skew is at most maxSkew; of those sets, the one with the highest total score (room,
//     fit/cluster_choice.h). Clusters an earlier run chose stay in it when a set holds them all;
//     else the spread chooses afresh. When no set exists the choice waits, and the spread says
//     which domain holds it back.
//   ScheduleAnyway: the same with the smallest skew that can be had, from maxSkew up; candidates
//     without the label fill only what the labelled ones cannot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace planter::fit {

struct ClusterSpread {
  std::string key;  // the topology key; empty: no spread
  int64_t max_skew = 1;
  bool hard = true;  // DoNotSchedule; false: ScheduleAnyway
};

// One candidate as the spread sees it.
struct SpreadCandidate {
  std::string name;
  std::optional<std::string> domain;  // its value of the key; nullopt: no such label
  bool fits = false;
  bool kept = false;  // chosen by an earlier run
  int score = 0;
};

struct SpreadChoice {
  std::vector<size_t> chosen;  // indices into the candidates, best first
  int64_t skew = 0;            // of the chosen clusters over the domains
  // Not complete: what holds the spread back, for people ("region=ap has no cluster where it
  // fits, so no region may take more than 1").
  std::string why;
};

// Chooses `count` of `candidates` under `spread`: as many as it can (fewer than `count` when the
// spread cannot be kept with more).
SpreadChoice choose_spread(int64_t count, const std::vector<SpreadCandidate>& candidates,
                           const ClusterSpread& spread);

// "region (maxSkew 1, DoNotSchedule)".
std::string spread_text(const ClusterSpread& spread);

}  // namespace planter::fit
