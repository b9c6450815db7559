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
// Extended resources backed by DRA (KEP-5004, GA in 1.37): a container's request for a resource
// that a DeviceClass names in spec.extendedResourceName (or `deviceclass.resource.kubernetes.io/
// <class>`), on a node that does not list it in allocatable (no device plugin serves it there),
// is left by NodeResourcesFit to this plugin: a request `container-<i>-request-<j>` (i: the
// container's index over initContainers and containers, j: the resource's among its sorted
// requests) of `count` devices of that class joins the pod's claims on that node; once bound, the
// pod has a ResourceClaim of its own for them (`<pod>-extended-resources-<5>`, annotated
// resource.kubernetes.io/extended-resource-claim, owned by the pod) and its
// status.extendedResourceClaimStatus maps each container's resource to its request.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/kube_scheduler/cache.h"
#include "sim/kube_scheduler/device_allocator.h"
#include "sim/store.h"

namespace planter::sim::sched {

class DynamicResourcesCheck {
 public:
  DynamicResourcesCheck(const boost::json::object& pod, const Store& store, DeviceCatalog& catalog,
                        CelCache& cel);

  bool has_claims() const { return !claims_.empty() || !extended_.empty(); }
  // The extended resources a DeviceClass serves: NodeResourcesFit leaves those a node does not
  // list in allocatable to this plugin.
  const std::set<std::string>& dra_backed() const { return dra_backed_; }
  const std::optional<std::string>& prefilter_failure() const { return prefilter_failure_; }
  // For the FailedScheduling event: why a selector did not match (a CEL error), if one failed.
  const std::optional<std::string>& selector_error() const;

  std::optional<std::string> filter(const NodeInfo& node);

  // The claims as they are to be written once the pod goes to `node` (which passed filter):
  // each with its allocation (when the scheduler made it) and the pod in reservedFor.
  std::vector<boost::json::object> reserve(const NodeInfo& node) const;
  // The pod's claim for its extended resources served on `node` by devices (to be created, then
  // its status written), and the pod's status.extendedResourceClaimStatus without the claim's
  // name; nullopt when the node serves them all itself.
  struct ExtendedClaim {
    boost::json::object claim;
    boost::json::object status;
    boost::json::array mappings;
  };
  std::optional<ExtendedClaim> extended_claim(const NodeInfo& node) const;

  static constexpr const char* kCannotAllocate = "cannot allocate all claims";
  static constexpr const char* kNotOnNode = "resourceclaim not available on the node";
  // kube-apiserver's bound on status.reservedFor (ResourceClaimReservedForMaxSize).
  static constexpr size_t kMaxReservedFor = 256;

 private:
  struct ExtendedRequest {
    std::string container, resource, request, device_class;
    int64_t count = 0;
  };
  void read_extended();
  // The requests a node that does not list their resources needs, as text ("" for none).
  std::string lacking(const NodeInfo& node) const;
  StoredObject special_claim(const std::string& lacking) const;

  const boost::json::object& pod_;
  DeviceCatalog& catalog_;
  CelCache& cel_;
  std::vector<ExtendedRequest> extended_;
  std::set<std::string> dra_backed_;
  std::map<std::string, DeviceAllocator> by_lacking_;  // allocators with the special claim
  std::vector<StoredObject> claims_;                   // the pod's claims, in spec order
  std::vector<size_t> to_allocate_;  // indices into claims_ of the unallocated ones
  std::optional<std::string> prefilter_failure_;
  std::optional<DeviceAllocator> allocator_;
  // node -> allocations found (the special claim's last) and the requests it lacked
  std::map<std::string, std::pair<std::vector<ClaimAllocation>, std::string>> on_node_;
};

}  // namespace planter::sim::sched
