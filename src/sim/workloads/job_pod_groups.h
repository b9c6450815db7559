// The Job controller's PodGroups (job_pod_groups.cpp): which Jobs are gang-scheduled, and the
// PodGroup their pods join, made with its Workload before the first pod.
#pragma once

#include <boost/json/object.hpp>
#include <string>

namespace planter::sim {

class ControllerKit;

// completionMode Indexed, parallelism above 1 and equal to completions, no schedulingGroup in the
// pod template.
bool gang_scheduled_job(const boost::json::object& job);

// The name of the PodGroup the Job's pods join, its Workload and PodGroup made first as
// `component`; "" when the Job is not gang-scheduled (or the sim serves no gang API, or a write
// failed: its pods are then made without a group).
std::string job_pod_group(ControllerKit& kit, const boost::json::object& job,
                          const std::string& component);

}  // namespace planter::sim
