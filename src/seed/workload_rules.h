// What kube-apiserver checks of the numbers in built-in workloads, checked on the seed so that a
// seed it would refuse is refused before the first write: replica counts and a Job's parallelism,
// completions and backoffLimit (int32, at least 0), and the quantities of containers' resources
// (quantities, at least 0, requests not above limits). In the API server's own words
// (k8s.io/kubernetes/pkg/apis/apps/validation, core/validation), with the object, its file:line
// and what to do. Pure and thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "model/diagnostics.h"
#include "model/object.h"

namespace planter {

// The `resources` of a container of `o` (or of the pods its operator makes), at `path`
// ("spec.template.spec.containers[0]"): every amount a quantity of at least 0 and, with
// `request_within_limit`, no request above its limit.
void check_resources(const Object& o, const boost::json::object& resources, const std::string& path,
                     bool request_within_limit, Diagnostics& diags);

// Checks `o` when it is a Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet,
// ReplicationController, Job, CronJob or PodTemplate; other kinds pass untouched.
void check_workload_numbers(const Object& o, Diagnostics& diags);

}  // namespace planter
