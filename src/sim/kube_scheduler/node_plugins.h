// The filter and score plugins of kube-scheduler's default profile that look at one node and the
// incoming pod only: NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts and
// NodeResourcesFit filters; NodeResourcesFit (LeastAllocated), NodeResourcesBalancedAllocation,
// NodeAffinity and TaintToleration scores. Their reasons are kube-scheduler's words, as
// `kubectl describe pod` shows them.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/kube_scheduler/cache.h"

namespace planter::sim::sched {

// A score plugin's best score for a node (kube-scheduler's framework.MaxNodeScore).
constexpr int64_t kMaxNodeScore = 100;

// What the plugins need of the incoming pod, read once per attempt.
struct IncomingPod {
  const boost::json::object* pod = nullptr;
  const boost::json::object* spec = nullptr;
  Resources requests;
  NonZeroRequests nonzero;
  std::vector<HostPortClaim> host_ports;
  // Its nodeSelector and required node affinity (NodeAffinity's filter), and its preferred node
  // affinity (NodeAffinity's score).
  RequiredNodeAffinity node_affinity;
  PreferredNodeAffinity node_preferences;
  // Extended resources a DeviceClass serves (dynamic_resources.h): on a node that does not list
  // one in allocatable, NodeResourcesFit leaves it to DynamicResources.
  std::set<std::string> dra_backed;
};
IncomingPod incoming_pod(const boost::json::object& pod);

// A node a filter rejects: the reasons, and whether evicting pods could ever help (false:
// UnschedulableAndUnresolvable, preemption is not helpful).
struct Rejection {
  std::vector<std::string> reasons;
  bool resolvable = true;
};

// Runs the single-node filters in kube-scheduler's order; the first that rejects decides.
std::optional<Rejection> filter_node(const IncomingPod& pod, const NodeInfo& node);

// Scores in 0..100 before weighting.
int64_t least_allocated_score(const IncomingPod& pod, const NodeInfo& node);
int64_t balanced_allocation_score(const IncomingPod& pod, const NodeInfo& node);

}  // namespace planter::sim::sched
