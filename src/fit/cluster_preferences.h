// Preferences of a choice of clusters beyond room (docs/placement.md, "Preferences"): weighted
// terms as kube-scheduler's preferredDuringScheduling node affinity and KubeFleet's
// preferredDuringScheduling cluster affinity with property sorters read them. A cluster's score
// is its room (0..100, fit/cluster_choice.h) plus, for each term:
//
//   selector   the weight, when the cluster's labels match it;
//   property   the weight × where the cluster's value lies between the candidates' least and most
//              (0..1; reversed for Ascending, so the least scores the whole weight), for the
//              fitting candidates that have the value. A cluster without it gets nothing of the
//              term; when every value is the same, each gets the whole weight.
//
// Properties: `cpu` and `memory` left once the group is placed, `nodes` (schedulable nodes),
// `label:KEY`, a label whose value is a number (a cost), and `property:NAME`, a property a
// cluster's ClusterProfile publishes in status.properties whose value is a number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/label_selector.h"

namespace planter::fit {

struct ClusterPreference {
  int64_t weight = 0;                     // -100..100, not 0
  std::optional<LabelSelector> selector;  // either this
  std::string property;                   // or this: cpu, memory, nodes, label:KEY, property:NAME
  bool ascending = false;                 // property: the least is preferred
  std::string text;                       // for people: "region=eu", "cost (Ascending)"
};

// What a candidate offers the terms.
struct PreferenceInputs {
  const Labels* labels = nullptr;
  int64_t milli_cpu = 0, memory = 0, nodes = 0;
  const Labels* properties = nullptr;  // a ClusterProfile's status.properties, name -> value
};

// Each term's share of each candidate's score (rows parallel to `candidates`, columns to
// `terms`). Only candidates with `eligible` set count for the least and most of a property.
std::vector<std::vector<int>> preference_shares(const std::vector<ClusterPreference>& terms,
                                                const std::vector<PreferenceInputs>& candidates,
                                                const std::vector<bool>& eligible);

}  // namespace planter::fit
