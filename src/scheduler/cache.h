// `planter scheduler`'s view of its cluster, kept up to date as kube-scheduler's cache is: the
// watches' changes are queued as deltas (on the transport thread, parsed once there) and applied
// to one fit::Snapshot between scheduling cycles, never rebuilt. A pod the scheduler decided to
// bind is assumed onto its node at once, so that the next decisions count it, and stays there
// when the watch confirms the binding; a binding that failed is forgotten and the pod is pending
// again. Claims chosen for a pod's volumes, and the devices allocated to its ResourceClaims, are
// assumed the same way until the watch shows them.
//
// Threads: the *_changed/_deleted calls from any thread; everything else on the scheduling
// thread only.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "fit/pod_info.h"
#include "fit/snapshot.h"
#include "scheduler/gang.h"

namespace planter::scheduler {

// A pod bound (or assumed) to a node: what the view counts, and the gang it is a member of.
struct BoundPod {
  std::shared_ptr<const fit::PodInfo> info;
  std::string node;
  bool assumed = false;                    // our binding, not yet seen by the watch
  bool deleting = false;                   // holds its room, but is no member of its gang any more
  std::vector<ClaimChoice> claims;         // what our binding chose for its claims, while assumed
  std::vector<DeviceClaimChoice> devices;  // and the devices of its ResourceClaims
};

class ClusterCache {
 public:
  // Its view holds what the watches hold: a claim not there does not exist.
  explicit ClusterCache(std::string scheduler_name) : name_(std::move(scheduler_name)) {
    view_.set_volumes_complete();
  }

  // From the watches (any thread). `before`: the object as it was, for updates.
  void node_changed(const boost::json::object& node);
  void node_deleted(const boost::json::object& node);
  void pod_changed(const boost::json::object* before, const boost::json::object& pod);
  void pod_deleted(const boost::json::object& pod);
  // A PersistentVolumeClaim, PersistentVolume or StorageClass changed (or a ResourceSlice,
  // DeviceClass or ResourceClaim).
  void volumes_changed();
  // Something the view does not hold changed that may let a waiting pod fit (a PodGroup).
  void groups_changed();

  // Applies what was queued; true when something changed that may let a waiting pod fit (a node,
  // a pod gone, a volume), rather than only new pending or bound pods. When volumes changed,
  // `read_volumes` is called with a function to hand every claim, volume and class to.
  using VolumeReader =
      std::function<void(const std::function<void(const boost::json::object&)>& add)>;
  bool apply(const VolumeReader& read_volumes);

  fit::Snapshot& view() { return view_; }
  const std::map<std::string, std::shared_ptr<const fit::PodInfo>>& pending() const {
    return pending_;
  }
  // Pods bound (or assumed) of the gang "ns/group", not deleting: uid -> pod.
  std::vector<const BoundPod*> members(const std::string& gang) const;

  // Our decision: the pod counted on `node` and no longer pending; its claims selected there.
  void assume(const Binding& b);
  // A binding that failed: taken off its node, pending again (unless the watch said otherwise).
  void forget(const std::string& uid);

 private:
  struct Delta {
    enum Kind { kNode, kNodeGone, kBound, kPending, kGone, kVolumes, kGroups } kind;
    boost::json::object object;               // kNode
    std::string name;                         // node name; pod uid
    std::shared_ptr<const fit::PodInfo> pod;  // kBound, kPending
    bool deleting = false;                    // kBound
  };
  void push(Delta d);
  // Takes the pod off its node and out of its gang; false when it was not bound.
  bool unbind(const std::string& uid);
  void place(const std::string& uid, BoundPod p);
  void select_assumed_claims();
  // Our allocations the watch does not show yet, into the view again (after it read the claims).
  void allocate_assumed_devices();

  std::string name_;
  std::mutex inbox_mu_;
  std::vector<Delta> inbox_;

  fit::Snapshot view_;
  std::map<std::string, std::shared_ptr<const fit::PodInfo>> pending_;  // uid
  std::unordered_map<std::string, BoundPod> bound_;                     // uid
  std::map<std::string, std::set<std::string>> gangs_;                  // "ns/group" -> uids
  std::map<std::string, std::set<std::string>> by_node_;                // node -> uids
  // Claims our bindings chose, until the watch shows them: (namespace, name) -> (node, volume).
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>>
      assumed_claims_;
  // ResourceClaims our bindings allocated, until the watch shows them allocated: "ns/name" ->
  // the claim as the view should hold it (with its status.allocation).
  std::map<std::string, boost::json::object> assumed_devices_;
};

}  // namespace planter::scheduler
