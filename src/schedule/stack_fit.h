// Whether a cluster holds all of a stack at once under its policy, and where: the decision behind
// the stack-fits requirement and `planter plan --fit` (docs/stacks.md, "Atomic").
//
//   co-located on nodes   one node must hold every pod (and a pod of each DaemonSet member);
//                         of the nodes that do, planter picks the one left least allocated, as
//                         kube-scheduler's default scoring would, so that steering and the
//                         scheduler agree;
//   co-located on a key   one domain of that key must hold every pod, packed onto its nodes;
//   otherwise             the cluster's nodes must hold every pod, packed;
//
// and in every case a pod only goes where node_refuses() lets it, never next to the stacks the
// stack avoids. Packing puts the biggest pods first, each on the node with the most room left.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "schedule/cluster_view.h"

namespace planter::schedule {

struct StackFit {
  bool fits = false;
  // Not fitting, for people: "stack moodle-a needs 3.5 cpu, 6Gi, 4 pods on one node; 0/5 nodes
  // can hold it: ...; the best node, edge-pool-0, has 2 cpu, 3Gi free".
  std::string why;
  // Fitting, for people: "node edge-pool-1 (leaves 5.5 cpu, 28Gi free)".
  std::string where;
  // Where to steer the pods: the topology key and its values (a node's name for co-located
  // stacks, the domain's value for other keys); empty when the stack is not co-located.
  std::string steer_key;
  std::vector<std::string> steer_values;
  std::map<std::string, Usage> placed;  // node -> what the stack takes of it
};

StackFit fit_stack(const StackNeeds& stack, const ClusterView& cluster);

// What other stacks hold on a cluster: released ones' room (stack -> node -> usage).
using Held = std::map<std::string, std::map<std::string, Usage>>;

// Fits `stack` on a cluster whose nodes and pods the two callbacks visit. The stack's own pods
// (planted before) and the pods of the `held` stacks count for nothing: the fitted stack counts
// itself, the held ones their room.
StackFit fit_stack_on(
    const StackNeeds& stack,
    const std::function<void(const std::function<void(const boost::json::object&)>&)>& each_node,
    const std::function<void(const std::function<void(const boost::json::object&)>&)>& each_pod,
    const Held& held);

}  // namespace planter::schedule
