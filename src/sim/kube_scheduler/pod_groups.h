// The sim scheduler's view of scheduling.k8s.io PodGroups (v1beta1 in 1.37, v1alpha2 in 1.36) and
// the pods that join them through spec.schedulingGroup.podGroupName, as kube-scheduler's pod group
// manager keeps it: each group's object and its pods (every pod naming it that has not finished
// or gone, bound or not), and the order they joined in (kube-scheduler orders by when it first saw
// a pod).
//
// GangScheduling's PreEnqueue (written from kubernetes.io "Gang Scheduling" and the plugin's
// documented statuses): a pod of a group is held back, silently (no condition, no event: the
// status stays inside kube-scheduler, kubernetes#141900), until its PodGroup exists ("waiting for
// pod's pod group "x" to appear in scheduling queue") and, for a gang, until the group has at
// least minCount pods ("waiting for minCount pods from a gang to appear in scheduling queue").
//
// Not thread-safe: the scheduler's, on the server's event loop.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/store.h"

namespace planter::sim::sched {

// "" when the pod names no PodGroup.
std::string pod_group_of(const boost::json::object& pod);

class PodGroups {
 public:
  static constexpr const char* kStorageKey = "scheduling.k8s.io/podgroups";

  struct Group {
    StoredObject object;            // null until the PodGroup exists
    std::set<std::string> members;  // pod keys
    std::set<std::string> bound;    // those with a node
  };

  // A PodGroup came, changed or went: the key "ns/name" of the group whose pods may now pass.
  std::string group_changed(const Change& change);
  // A pod came, changed or went: the key of the group it joined ("" when it joined none).
  std::string pod_changed(const Change& change);

  const Group* find(const std::string& group_key) const;
  // PreEnqueue: why the pod may not be queued yet, or nullopt.
  std::optional<std::string> gate(const boost::json::object& pod) const;
  // The group's gang minCount; 0 when it has no gang policy (or does not exist).
  static int64_t min_count(const Group& group);
  // A PodGroup object's gang minCount; 0 without a gang policy.
  static int64_t min_count(const boost::json::object& pod_group);
  // The topology key of the group's first scheduling constraint, "" when it has none.
  static std::string topology_key(const Group& group);
  // When the scheduler first saw the pod (a count), for the group's order.
  uint64_t first_seen(const std::string& pod_key) const;

 private:
  void leave(const std::string& pod_key);

  std::map<std::string, Group> groups_;                 // by "ns/name"
  std::map<std::string, std::string> group_of_member_;  // pod key -> group key
  std::map<std::string, uint64_t> seen_;                // a member's key -> order it joined
  uint64_t next_seen_ = 0;
};

}  // namespace planter::sim::sched
