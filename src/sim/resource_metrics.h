// metrics.k8s.io/v1beta1, the resource metrics API that metrics-server (or prometheus-adapter)
// serves and `kubectl top` reads. The sim serves it itself while an Available APIService for
// that group and version exists (one whose `sim.planter.io/kinds` annotation names nothing
// else), as it serves other aggregated groups: NodeMetrics and PodMetrics, get and list only,
// computed when read from what the sim runs. No process runs in a simulated container, so its
// usage is a stated model: a running container uses what it requests (1m of cpu and 4Mi of
// memory when it requests nothing); a node uses what its running pods use. Pods that are not
// Running have no metrics (metrics-server has none before a pod's first scrape).
#pragma once

#include <boost/json/object.hpp>
#include <string_view>
#include <vector>

#include "sim/catalog.h"

namespace planter::sim {

inline constexpr std::string_view kResourceMetricsGroup = "metrics.k8s.io";

// NodeMetrics (nodes, cluster-scoped) and PodMetrics (pods), verbs get and list.
std::vector<ResourceType> resource_metrics_types();
// True for the two types above (metrics_reads.cpp computes them when read).
bool is_resource_metrics(const ResourceType& type);

// The storage key of the objects a metrics type is computed from ("/nodes", "/pods").
std::string_view resource_metrics_source(const ResourceType& type);

// A running pod's PodMetrics; an empty object when it is not Running.
boost::json::object pod_metrics(const boost::json::object& pod, std::string_view now);

// A node's NodeMetrics from the pods bound to it (any phase: only the running ones count).
boost::json::object node_metrics(const boost::json::object& node,
                                 const std::vector<const boost::json::object*>& pods,
                                 std::string_view now);

}  // namespace planter::sim
