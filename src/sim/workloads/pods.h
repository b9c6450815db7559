// Pods as the workload controllers see and make them.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "sim/controller_kit.h"
#include "sim/store.h"

namespace planter::sim {

// The pods whose controller owner reference names the object with this uid, oldest first.
std::vector<StoredObject> pods_owned_by(Store& store, const std::string& owner_uid);

// Running with the Ready condition True.
bool pod_ready(const boost::json::object& pod);
bool pod_deleting(const boost::json::object& pod);
// Succeeded or Failed.
bool pod_terminal(const boost::json::object& pod);

// A pod made from a workload's template: its labels and annotations plus `extra_labels`, its
// spec, the controller owner reference to `owner`, named `name` or generated from
// `generate_name`.
boost::json::object pod_from_template(const boost::json::object& pod_template,
                                      const boost::json::object& owner,
                                      const boost::json::object& extra_labels,
                                      const std::string& name, const std::string& generate_name);

// The controller owner reference to `owner` (apiVersion and kind read from it).
boost::json::object controller_reference(const boost::json::object& owner);

// Creates the pod as `component`, with a SuccessfulCreate (or FailedCreate) Event on `owner`.
void create_pod(ControllerKit& kit, const boost::json::object& owner, boost::json::object pod,
                const std::string& component);
// Deletes the pod as `component`, with a SuccessfulDelete Event on `owner`.
void delete_pod(ControllerKit& kit, const boost::json::object& owner,
                const boost::json::object& pod, const std::string& component);

// spec.replicas, 1 when absent; clamped to [0, ClusterOptions::max_pods_per_workload].
int64_t desired_replicas(ControllerKit& kit, const boost::json::object& workload);
int64_t generation_of(const boost::json::object& object);

}  // namespace planter::sim
