#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "plan/plan.h"

namespace planter {

// The edges a drawing of a plan shows (`plan -o dot`, `-o mermaid`): what each unit waits for,
// as few arrows as say it.
//  - A cluster the seed creates: its units all wait for it to be ready; one arrow from its
//    cluster object to the cluster's box says that, instead of one to each unit.
//  - An arrow implied by others (a waits for b, b for c: an arrow from c to a says nothing new)
//    is left out: the drawing is the plan's transitive reduction. Plans of more than
//    kMaxReducedUnits units keep every arrow (the reduction's memory grows with the square).
struct GraphEdges {
  struct Edge {
    size_t from, to;    // units
    std::string label;  // the requirement, as the plan's table says it
  };
  struct ClusterEdge {
    size_t from;     // the unit of the cluster object
    size_t cluster;  // index into the clusters drawn
    size_t first;    // a unit in that cluster (what graphviz's lhead needs to aim at)
  };
  std::vector<Edge> edges;
  std::vector<ClusterEdge> cluster_edges;
  bool reduced = true;  // false: too many units, every arrow kept
};

inline constexpr size_t kMaxReducedUnits = 20'000;

// `clusters`: the clusters drawn as boxes, in order.
GraphEdges graph_edges(const Plan& plan, const std::vector<std::string>& clusters);

}  // namespace planter
