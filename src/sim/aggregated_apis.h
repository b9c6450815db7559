// The sim's stand-in for an aggregated API server. kube-apiserver proxies the group and version of
// an Available APIService to the extension server behind its Service; the sim has no such server to
// proxy to, so it serves that group itself, storing objects as it stores custom resources. Which
// kinds the extension serves is what its discovery would say; the sim reads it from the
// APIService's annotation `sim.planter.io/kinds`: comma-separated `Kind`, `Kind/plural` or
// `Kind/plural:Cluster` (namespaced unless `:Cluster`; plural defaults to the lowercased kind +
// "s"). An APIService without the annotation is Available but serves no kinds, except one for
// metrics.k8s.io v1beta1: the resource metrics API, computed (resource_metrics.h).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"
#include "sim/catalog.h"

namespace planter::sim {

inline constexpr std::string_view kAggregatedKindsAnnotation = "sim.planter.io/kinds";

// The resource types an APIService's group and version serve, from its annotation; an error names
// the entry that cannot be read.
Result<std::vector<ResourceType>> aggregated_resource_types(const boost::json::object& apiservice);

// The catalog key of an APIService's types (they are registered and removed as a CRD's are).
std::string aggregated_catalog_key(std::string_view apiservice_name);

}  // namespace planter::sim
