// planter.nephio.org/cluster-preferences, and a Stack's spec.clusters.preferences written as it
// (docs/placement.md, "Preferences"): weighted terms a choice of clusters scores beyond room
// (fit/cluster_preferences.h), as a JSON list:
//
//   [{"weight": 50, "selector": "region=eu"},
//    {"weight": 30, "property": "label:cost", "order": "Ascending"}]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fit/cluster_preferences.h"
#include "model/result.h"

namespace planter {

inline constexpr std::string_view kClusterPreferencesAnnotation =
    "planter.nephio.org/cluster-preferences";

// Reads the JSON list; an error names the first thing wrong in it.
Result<std::vector<fit::ClusterPreference>> parse_cluster_preferences(std::string_view text);
// The list as the annotation holds it (JSON).
std::string cluster_preferences_annotation(const std::vector<fit::ClusterPreference>& terms);

}  // namespace planter
