// VolumeBinding as kube-scheduler's plugin of that name sees the sim's storage: a pod's
// persistentVolumeClaim volumes must exist; a claim of an Immediate StorageClass must be bound
// before the pod can go anywhere; a bound claim's PersistentVolume admits only the nodes its
// nodeAffinity names ("volume node affinity conflict"); an unbound claim of a
// WaitForFirstConsumer class can be provisioned on any node, unless a scheduler already chose
// a node for it (the volume.kubernetes.io/selected-node annotation). Once the pod has its node,
// such claims are given that node, and the sim's volume controller provisions there.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/scheduler/cache.h"
#include "sim/store.h"

namespace planter::sim::sched {

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

  // The claims that wait for their first consumer: they get `node` (selected-node).
  const std::vector<StoredObject>& claims_to_place() const { return delayed_; }

  static constexpr const char* kConflictReason = "node(s) had volume node affinity conflict";
  static constexpr const char* kBindConflictReason =
      "node(s) didn't find available persistent volumes to bind";
  static constexpr const char* kSelectedNode = "volume.kubernetes.io/selected-node";

 private:
  std::optional<std::string> prefilter_failure_;
  std::vector<StoredObject> bound_volumes_;  // PVs of the pod's bound claims
  std::vector<StoredObject> delayed_;        // unbound WaitForFirstConsumer claims
};

}  // namespace planter::sim::sched
