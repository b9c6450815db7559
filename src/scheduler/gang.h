// Deciding where a group of pending pods goes, all at once or not at all: a gang of
// scheduler-plugins' PodGroup API (`minMember`), a same-node group (`colocate`), a group that
// keeps other groups off its node (`isolate`), or a single pod (a group of one). Every pod passes
// the fit model's filters (src/fit) next to what is bound and to the group's pods placed before
// it. Pure: the scheduler (scheduler.h) binds what this decides.
//
// Nothing is reserved between decisions: a gang is placed only when every pending pod of it fits
// now, next to what is bound, so two gangs competing for the same room never hold half of it each
// (scheduler-plugins issue 114): the first in queue order that fits whole wins, the other waits.
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fit/pod_info.h"
#include "fit/snapshot.h"

namespace planter::scheduler {

struct GroupPolicy {
  std::string name;        // "ns/name" of the PodGroup; empty for a single pod
  int64_t min_member = 1;  // pods that must be placed together (bound ones count)
  int64_t bound = 0;       // pods of the group already bound
  std::string bound_node;  // where its bound pods are, for a same-node group
  bool colocate = false;   // every pod on one node
  bool isolate = false;    // no pod of another group on its node
  // A scheduling.k8s.io PodGroup (Kubernetes' own gang API), decided as kube-scheduler's PodGroup
  // cycle does: the pods that fit are bound once at least min_member of the group (bound ones
  // count) fit, rather than only when every pending pod does; with a topology key, all within
  // one domain of it (`bound_domain` once some are bound).
  bool upstream = false;
  std::string topology_key, bound_domain;
};

// A claim of a pod that waits for its first consumer, bound with the pod: to `volume`, or
// (empty) provisioned on the pod's node.
struct ClaimChoice {
  std::string ns, claim, volume;
};

// A ResourceClaim of a pod, as kube-scheduler's DynamicResources reserves it where the pod goes:
// the devices allocated to it there (none: it was allocated already), written to its
// status.allocation with the pod in status.reservedFor before the pod is bound.
struct DeviceClaimChoice {
  std::string ns, claim;  // claim empty: the pod's own claim of its extended resources
  fit::ClaimAllocation allocation;
  bool allocated_before = false;
  // The pod's own claim: the extended resources devices serve on its node, one request each
  // (kube-scheduler's `<pod>-extended-resources-` claim, made when the pod is reserved).
  std::vector<fit::PodDevices::Extended> extended;
};

// The claim's status.allocation for `c` on `node`: its devices' results, and a nodeSelector
// naming the node when a device came from a slice for that node alone.
boost::json::object allocation_of(const DeviceClaimChoice& c, const std::string& node);

// The pod's own claim of its extended resources served by devices, as kube-scheduler makes it
// (KEP-5004): `<pod>-extended-resources-<5>`, owned by the pod, annotated
// resource.kubernetes.io/extended-resource-claim, one request of `count` devices of the class for
// each container's resource; and the pod's status.extendedResourceClaimStatus.requestMappings.
boost::json::object extended_claim_of(const DeviceClaimChoice& c, const fit::PodInfo& pod);
boost::json::array extended_mappings(const DeviceClaimChoice& c);

struct Binding {
  const fit::PodInfo* pod = nullptr;
  std::string node;
  std::vector<ClaimChoice> claims;
  std::vector<DeviceClaimChoice> devices;
};

struct GroupDecision {
  bool bind = false;
  std::vector<Binding> bindings;
  std::string why;  // when not: for the pods' PodScheduled condition and the PodGroup
};

// How many feasible nodes a pod's search stops at, of `nodes`, as kube-scheduler's default
// percentageOfNodesToScore adapts it: every node below 100; else 50% less 1% per 125 nodes, at
// least 5% and at least 100 nodes.
size_t feasible_nodes_to_find(size_t nodes);

// Where the next pod's search for nodes starts: after the nodes the last one looked at, so that
// pods spread over the whole cluster (kube-scheduler's nextStartNodeIndex).
struct Search {
  size_t next_start = 0;
};

// `isolated`: groups ("ns/name") whose PodGroup isolates them; their nodes refuse other groups.
// An upstream group's decision may bind fewer pods than it was given (those that did not fit
// stay pending).
// `view` is used as scratch and is as it was when this returns.
GroupDecision decide_group(fit::Snapshot& view, const std::vector<const fit::PodInfo*>& pods,
                           const GroupPolicy& policy, const std::set<std::string>& isolated,
                           Search& search);

}  // namespace planter::scheduler
