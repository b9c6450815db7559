// What a stack asks of its cluster, as the stack step (mutate.h) reads it from its members' pods:
// the kinds of pods, what each asks, and the stack's policy as the requirements need it.
#pragma once

#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fit/resources.h"
#include "plan/stacks/pod_path.h"

namespace planter {

// One kind of pod a stack's member makes, as the fit model needs it.
struct StackPods {
  int64_t count = 0;
  bool per_node = false;  // a DaemonSet's: one on every node the stack uses
  fit::Resources asks;    // what one pod asks (kube-scheduler's rule: fit::pod_requests)
  // One pod of the kind as its object will make it, policies written: metadata (name: the
  // member's, namespace, labels) and the pod spec (the template's, or for an operator's fields
  // what planter knows of them: containers' resources, tolerations, nodeSelector, affinity,
  // volumes). The fit model reads everything it filters on from here.
  boost::json::object pod;
};

// A member object of a stack, and where its pods' affinity is (to steer them at declare time).
struct StackMember {
  size_t object = 0;                    // index into Plan::objects
  std::vector<PodPath> affinity_paths;  // spec.template.spec.affinity
};

// What a stack asks of its cluster, from its members' pods as planned (docs/stacks.md).
struct StackNeeds {
  std::string name;
  int64_t pods = 0;            // replicas of its members' pods (DaemonSets' not counted)
  bool per_node_pods = false;  // a DaemonSet is a member: a pod per node on top
  fit::Resources requests;     // summed over its pods (DaemonSets' not counted)
  std::string colocated_on;    // the colocate topology key, or empty
  // What one domain must hold: all of it when co-located on nodes, else the biggest pod.
  fit::Resources share;
  // atomic: declared only when its cluster holds all of it (the stack-fits requirement).
  bool atomic = false;
  // topology required: declared only when one domain of colocated_on holds all of it.
  bool held = false;
  // Stacks it never shares a node with: its separateFrom, and those that name it in theirs
  // (kube-scheduler honours an existing pod's anti-affinity too).
  std::vector<std::string> avoid;
  std::vector<StackPods> pod_kinds;
  std::vector<StackMember> members;
  boost::json::object body;  // the Stack as the seed wrote it (`planter annotate` prints it back)
  // coschedule mode anchor: the anchor StatefulSet planter added (an index into Plan::objects).
  // It waits for stack-fits and is steered; the other members wait for it to be bound.
  std::optional<size_t> anchor;
  // coschedule mode scheduler: the PodGroup planter added; every member waits for it and for the
  // scheduler to answer. Mode gang: the scheduling.k8s.io PodGroup (`upstream_gang`), which the
  // cluster's kube-scheduler honours: every member waits for it, and for no scheduler.
  std::optional<size_t> pod_group;
  bool upstream_gang = false;
};

}  // namespace planter
