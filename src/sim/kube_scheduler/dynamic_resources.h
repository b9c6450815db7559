// DynamicResources as kube-scheduler's plugin of that name sees a pod's ResourceClaims
// (spec.resourceClaims: a claim by name, or one the ResourceClaim controller made from a
// template and recorded in status.resourceClaimStatuses):
// - PreFilter: every claim must exist ("pod "ns/p": ResourceClaim not created yet" for a
//   template's claim not made yet), its request's DeviceClasses too, and an allocated claim must
//   be reservable for the pod ("resourceclaim in use" once 256 consumers hold it);
// - Filter: an allocated claim admits the nodes of its allocation's nodeSelector ("resourceclaim
//   not available on the node"); the unallocated ones are allocated on the node by the structured
//   allocator (device_allocator.h), all or none ("cannot allocate all claims");
// - Reserve and PreBind: on the chosen node the allocations are written to the claims'
//   status.allocation, and the pod is added to every claim's status.reservedFor, before the pod
//   is bound.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/kube_scheduler/cache.h"
#include "sim/kube_scheduler/device_allocator.h"
#include "sim/store.h"

namespace planter::sim::sched {

class DynamicResourcesCheck {
 public:
  DynamicResourcesCheck(const boost::json::object& pod, const Store& store, CelCache& cel);

  bool has_claims() const { return !claims_.empty(); }
  const std::optional<std::string>& prefilter_failure() const { return prefilter_failure_; }
  // For the FailedScheduling event: why a selector did not match (a CEL error), if one failed.
  const std::optional<std::string>& selector_error() const;

  std::optional<std::string> filter(const NodeInfo& node);

  // The claims as they are to be written once the pod goes to `node` (which passed filter):
  // each with its allocation (when the scheduler made it) and the pod in reservedFor.
  std::vector<boost::json::object> reserve(const NodeInfo& node) const;

  static constexpr const char* kCannotAllocate = "cannot allocate all claims";
  static constexpr const char* kNotOnNode = "resourceclaim not available on the node";
  // kube-apiserver's bound on status.reservedFor (ResourceClaimReservedForMaxSize).
  static constexpr size_t kMaxReservedFor = 256;

 private:
  const boost::json::object& pod_;
  std::vector<StoredObject> claims_;  // the pod's claims, in spec order
  std::vector<size_t> to_allocate_;   // indices into claims_ of the unallocated ones
  std::optional<std::string> prefilter_failure_;
  std::optional<DeviceAllocator> allocator_;
  std::map<std::string, std::vector<ClaimAllocation>> on_node_;  // node -> allocations found
};

}  // namespace planter::sim::sched
