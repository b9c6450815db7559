// What kube-apiserver 1.37 refuses in the gang API (scheduling.k8s.io Workload and PodGroup,
// v1beta1, and v1alpha2 on a 1.36 server) and in a pod's spec.schedulingGroup, written from the
// API reference and kubernetes.io "PodGroup API", "Workload API" and "Scheduling Group":
// - a scheduling policy is exactly one of `basic` and `gang` ("must specify one of: `basic`,
//   `gang`"), a gang's minCount is required and positive;
// - a topology constraint's key is a label key;
// - a Workload has 1 to 8 podGroupTemplates, each named by a DNS label, no name twice;
// - on update: a PodGroup's spec is immutable except its gang's minCount (beta, 1.37); a
//   Workload's podGroupTemplates are immutable, its controllerRef once set; a pod's
//   schedulingGroup is immutable.
// The sim's own, shared with no planter code.
#pragma once

#include <boost/json/object.hpp>
#include <vector>

#include "sim/api_errors.h"
#include "sim/catalog.h"

namespace planter::sim {

// On create and update alike.
std::vector<Cause> scheduling_causes(const ResourceType& t, const boost::json::object& obj);
// On update: what may not change from `old`.
std::vector<Cause> scheduling_update_causes(const ResourceType& t, const boost::json::object& old,
                                            const boost::json::object& obj);

}  // namespace planter::sim
