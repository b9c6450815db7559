// The annotations that place an object on clusters: read by placement (which clusters) and by
// the inventory (which clusters a seed's objects name, to look them up before planning).
#pragma once

#include <string_view>

namespace planter {

inline constexpr std::string_view kClusterAnnotation = "planter.nephio.org/cluster";
inline constexpr std::string_view kClustersAnnotation = "planter.nephio.org/clusters";
inline constexpr std::string_view kClusterSelectorAnnotation =
    "planter.nephio.org/cluster-selector";
// With /cluster-selector or /clusters: choose this many of those clusters, by room
// (plan/cluster_choice.h).
inline constexpr std::string_view kClusterCountAnnotation = "planter.nephio.org/cluster-count";

}  // namespace planter
