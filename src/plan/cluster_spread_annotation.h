// planter.nephio.org/cluster-spread, and a Stack's spec.clusters.spread written as it
// (docs/placement.md, "Spreading over regions"): a choice of clusters spread over a topology of
// clusters (fit/cluster_spread.h).
#pragma once

#include <string>
#include <string_view>

#include "fit/cluster_spread.h"
#include "model/result.h"

namespace planter {

// Reads "topologyKey=region[,maxSkew=1][,whenUnsatisfiable=DoNotSchedule|ScheduleAnyway]" (the
// defaults as shown). An error says what is wrong with it.
Result<fit::ClusterSpread> parse_cluster_spread(std::string_view text);
// "topologyKey=region,maxSkew=1,whenUnsatisfiable=DoNotSchedule": what parse_cluster_spread reads.
std::string cluster_spread_annotation(const fit::ClusterSpread& spread);

}  // namespace planter
