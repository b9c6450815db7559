// planter.nephio.org/cluster-tolerations, and a Stack's spec.clusters.tolerations written as it
// (docs/placement.md, "Cluster taints"): which cluster taints a choice of clusters tolerates
// (fit/cluster_taints.h), as a JSON list of tolerations:
//
//   [{"key": "maintenance", "operator": "Exists", "effect": "NoSelect", "tolerationSeconds": 300}]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fit/cluster_taints.h"
#include "model/result.h"

namespace planter {

inline constexpr std::string_view kClusterTolerationsAnnotation =
    "planter.nephio.org/cluster-tolerations";

// Reads the JSON list; an error names the first thing wrong in it.
Result<std::vector<fit::ClusterToleration>> parse_cluster_tolerations(std::string_view text);
// The list as the annotation holds it (JSON, every field written).
std::string cluster_tolerations_annotation(const std::vector<fit::ClusterToleration>& tolerations);

}  // namespace planter
