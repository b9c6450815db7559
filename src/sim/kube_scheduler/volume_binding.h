// VolumeBinding and VolumeRestrictions as kube-scheduler's plugins of those names see the sim's
// storage ("Persistent Volumes", "Storage Classes" in the Kubernetes documentation):
// - a pod's persistentVolumeClaim volumes must exist; a claim of an Immediate class (or of no
//   class) must be bound before the pod can go anywhere;
// - a bound claim's PersistentVolume admits only the nodes its nodeAffinity names ("volume node
//   affinity conflict");
// - an unbound claim of a WaitForFirstConsumer class binds where the pod goes: to an available
//   volume that matches it (class, volume mode, access modes, size, selector, claimRef) and whose
//   node affinity admits the node, else to one its class provisions there (a provisioner other
//   than kubernetes.io/no-provisioner, allowedTopologies admitting the node); a claim a
//   scheduler already chose a node for (the volume.kubernetes.io/selected-node annotation) goes
//   there only ("didn't find available persistent volumes to bind");
// - a ReadWriteOncePod claim used by a scheduled pod fits that claim's other pods nowhere.
// Once the pod has its node, the chosen volumes are bound to their claims (the volume's
// claimRef, the claim's volumeName) and the claims to provision get that node (selected-node);
// the sim's volume controller does the rest.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/kube_scheduler/cache.h"
#include "sim/store.h"

namespace planter::sim::sched {

// A PersistentVolume's required node affinity admits the Node (no affinity: every node).
bool volume_admits(const boost::json::object& pv, const boost::json::object& node);

class VolumeBindingCheck {
 public:
  VolumeBindingCheck(const boost::json::object& pod, const Store& store);

  // A reason no node can take the pod, decided before looking at nodes (kube-scheduler's
  // PreFilter): a claim that does not exist, an Immediate claim not yet bound.
  const std::optional<std::string>& prefilter_failure() const { return prefilter_failure_; }

  struct Failure {
    std::string reason;
    bool resolvable = false;
  };
  std::optional<Failure> filter(const NodeInfo& node) const;

  // What binding the pod to `node` asks of storage: (claim, volume) pairs to bind, and the claims
  // to provision there.
  struct Placement {
    std::vector<std::pair<StoredObject, StoredObject>> bind;
    std::vector<StoredObject> provision;
  };
  Placement place_on(const NodeInfo& node) const;

  static constexpr const char* kConflictReason = "node(s) had volume node affinity conflict";
  static constexpr const char* kBindConflictReason =
      "node(s) didn't find available persistent volumes to bind";
  static constexpr const char* kReadWriteOncePodReason =
      "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access "
      "mode";
  static constexpr const char* kSelectedNode = "volume.kubernetes.io/selected-node";

 private:
  struct Delayed {
    StoredObject claim;
    StoredObject storage_class;
    std::vector<StoredObject> volumes;           // available volumes that match it, smallest first
    std::optional<boost::json::value> topology;  // its class's allowedTopologies as node terms
  };
  // Whether every delayed claim can bind on `node`; fills `out` when given.
  bool delayed_fit(const NodeInfo& node, Placement* out) const;

  std::optional<std::string> prefilter_failure_;
  bool read_write_once_pod_taken_ = false;
  std::vector<StoredObject> bound_volumes_;  // PVs of the pod's bound claims
  std::vector<Delayed> delayed_;             // unbound WaitForFirstConsumer claims
};

}  // namespace planter::sim::sched
