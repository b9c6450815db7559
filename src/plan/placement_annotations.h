// The annotations that place an object on clusters: read by placement (which clusters) and by
// the inventory (which clusters a seed's objects name, to look them up before planning).
#pragma once

#include <cstdint>
#include <string_view>

namespace planter {

inline constexpr std::string_view kClusterAnnotation = "planter.nephio.org/cluster";
inline constexpr std::string_view kClustersAnnotation = "planter.nephio.org/clusters";
inline constexpr std::string_view kClusterSelectorAnnotation =
    "planter.nephio.org/cluster-selector";
// With /cluster-selector or /clusters: choose this many of those clusters, by room
// (plan/cluster_choice.h).
inline constexpr std::string_view kClusterCountAnnotation = "planter.nephio.org/cluster-count";
// docs/limits.md: the most clusters one choice takes.
inline constexpr int64_t kMaxClusterCount = 10000;
// With /cluster-count: spread the choice over a topology of clusters,
// "topologyKey=region,maxSkew=1,whenUnsatisfiable=DoNotSchedule" (fit/cluster_spread.h).
inline constexpr std::string_view kClusterSpreadAnnotation = "planter.nephio.org/cluster-spread";

}  // namespace planter
