// Whether a pod may run on a node at all, before room is counted: the node is not cordoned, the
// pod tolerates its NoSchedule and NoExecute taints, and the node matches the pod's nodeSelector
// and required node affinity. Read from the Kubernetes documentation ("Taints and Tolerations",
// "Assigning Pods to Nodes"); the reasons are worded as kube-scheduler words them.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <string>

#include "schedule/cluster_view.h"

namespace planter::schedule {

// What a pod brings to the filter (a stack's kind of pod).
struct PodConstraints {
  const boost::json::array* tolerations = nullptr;
  const boost::json::object* node_selector = nullptr;
  const boost::json::array* node_terms = nullptr;  // required nodeSelectorTerms, ORed
};

// "" when the pod may run there; else why not, as kube-scheduler counts it: "node(s) were
// unschedulable", "node(s) had untolerated taint {tenant: gold}", "node(s) didn't match Pod's
// node affinity/selector".
std::string node_refuses(const NodeView& node, const PodConstraints& pod);

// True when one of `tolerations` tolerates `taint`.
bool tolerated(const boost::json::array* tolerations, const boost::json::object& taint);

}  // namespace planter::schedule
