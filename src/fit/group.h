// Whether a cluster holds a whole group of pods at once, and where: the decision behind the
// stack-fits requirement, the anchor's node and `planter plan --fit` (docs/stacks.md, "Atomic";
// docs/fit.md). Every pod of the group must pass kube-scheduler's filters (framework.h) on the
// node it is given, next to the pods already there and to the group's own pods placed before it:
//
//   co-located on nodes   one node must hold every pod (and a pod of each per-node kind); of the
//                         nodes that do, the one left least allocated is chosen, as
//                         kube-scheduler's default scoring would choose it;
//   co-located on a key   one domain of that key must hold every pod, on its nodes;
//   otherwise             the cluster's nodes must hold every pod;
//
// and never next to the groups it avoids. Kinds of pods that only need room are counted, never
// listed (a kind of 2^31 pods costs what a kind of one does): the biggest kinds first, each kind a
// share at a time onto the node with the most room left. Kinds whose place depends on other pods
// (host ports, inter-pod affinity, topology spread) are placed one pod at a time, so their own
// anti-affinity spreads them as the scheduler will.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fit/pod_info.h"
#include "fit/resources.h"
#include "fit/snapshot.h"

namespace planter::fit {

struct PodKind {
  PodInfo pod;  // one pod of the kind, as it will be made
  int64_t count = 0;
  bool per_node = false;  // a DaemonSet's: one on every node the group uses that it may run on
};

struct Group {
  std::string name;
  std::string colocated_on;        // a topology key, or empty
  std::vector<std::string> avoid;  // groups (stacks) it never shares a node with
  std::vector<PodKind> kinds;
  // When set, the group must fit whole on this node (where its anchor was bound).
  std::string only_node;
};

struct GroupFit {
  bool fits = false;
  // Not fitting, for people: "stack gpu needs 2 cpu, 2Gi, 2 nvidia.com/gpu, 2 pods on one node;
  // 0/3 nodes are available: 1 node(s) had untolerated taint {gpu: only}, 2 Insufficient
  // nvidia.com/gpu; the best node, gpu-0, has 4 cpu, 15Gi, 1 nvidia.com/gpu free".
  std::string why;
  // Fitting, for people: "node edge-pool-1 (leaves 5.5 cpu, 28Gi free)".
  std::string where;
  // Where to steer the pods: the topology key and its values (a node's name for co-located
  // groups, the domain's value for other keys); empty when the group is not co-located.
  std::string steer_key;
  std::vector<std::string> steer_values;
  std::map<std::string, Resources> placed;  // node -> what the group takes of it
  // The room the cluster's schedulable nodes have left once the group is placed (fitting), or
  // now (not fitting): what cluster choice scores (cluster_choice.h).
  Resources left;
  int64_t nodes = 0;  // the cluster's schedulable nodes (what a `nodes` preference reads)
  // The group's pods where the decision put them (node name, pod and copies): held for the group
  // once it is released, so that later decisions see its labels, ports and anti-affinity before
  // its pods exist.
  std::vector<std::pair<std::string, PlacedPod>> pods;
};

// `snapshot` is used as scratch (the group's pods are assumed and taken back): it is as it was
// when this returns.
GroupFit fit_group(const Group& group, Snapshot& snapshot);

// What other groups hold on a cluster: released ones' pods where their decision put them (group
// -> GroupFit::pods).
using Held = std::map<std::string, std::vector<std::pair<std::string, PlacedPod>>>;
using Visit = std::function<void(const std::function<void(const boost::json::object&)>&)>;

// Fits `group` on a cluster whose nodes and pods the two callbacks visit. The group's own pods
// (planted before) and the pods of the `held` groups request nothing: the fitted group counts
// itself, the held ones count as their decisions placed them.
// `each_volume_object` visits the cluster's PersistentVolumeClaims and PersistentVolumes.
GroupFit fit_group_on(const Group& group, const Visit& each_node, const Visit& each_pod,
                      const Held& held, const Visit& each_volume_object = {});

}  // namespace planter::fit
