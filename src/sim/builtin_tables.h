// The Tables kube-apiserver prints for the built-in kinds people look at, with the columns
// `kubectl get` shows (and the priority-1 columns of `-o wide`): pods, deployments,
// replicasets, statefulsets, daemonsets, jobs, nodes, persistentvolumeclaims, events, services
// and namespaces. Cells are computed as the apiserver's printers compute them (a pod's STATUS
// is its waiting or terminated container's reason, READY counts ready containers, a node's
// STATUS adds SchedulingDisabled when cordoned).
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace planter::sim {

// True when the sim prints Tables for this built-in kind.
bool has_builtin_table(std::string_view group, std::string_view kind);

// The Table of `objects` of that kind (see table.h for `include_object` and `list_metadata`).
std::string render_builtin_table(std::string_view group, std::string_view kind,
                                 const std::vector<const boost::json::object*>& objects,
                                 std::string_view include_object, boost::json::object list_metadata,
                                 std::chrono::system_clock::time_point now);

}  // namespace planter::sim
