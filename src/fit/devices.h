// The fit model's view of a cluster's devices (Dynamic Resource Allocation, resource.k8s.io/v1),
// and how a pod's claims are allocated on a node, written from the Kubernetes documentation
// ("Dynamic Resource Allocation", "Allocate Devices to Workloads with DRA") and the structured
// allocator's documented rules (k8s.io/dynamic-resource-allocation/structured): only the CEL
// evaluator is shared with the sim's scheduler, which judges this one.
//
//   devices     a node's are those of the ResourceSlices for it (spec.nodeName), or for nodes
//               its labels select (spec.nodeSelector, spec.allNodes), in pools that are complete
//               (every one of pool.resourceSliceCount slices of the pool's newest generation)
//   taints      a device's own, and those of DeviceTaintRules whose deviceSelector (driver, pool,
//               device; empty: any) names it
//   taken       a device allocated to any claim (status.allocation), or to a claim of a pod the
//               decision placed, is not free
//   a request   `exactly` or the first of `firstAvailable` that can be met: `count` devices
//               (ExactCount, the default, count 1) or every matching device (All; one taken makes
//               the request fail); a device matches when every selector of its DeviceClass and of
//               the request is true (an error is "no") and the request tolerates each of its
//               NoSchedule and NoExecute taints
//   constraints matchAttribute: the devices of the requests it names (every request when none
//               is named) share one value of the attribute, which each must have
//   extended    a pod's request for an extended resource a DeviceClass names
//   resources   (spec.extendedResourceName; every class also serves
//               deviceclass.resource.kubernetes.io/<class>), on a node that does not list it in
//               allocatable, is that many devices of the class (KEP-5004): NodeResourcesFit
//               leaves it to DynamicResources there
//
// A claim already allocated ties the pod to its allocation's nodes and takes nothing more.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cel/program.h"
#include "fit/node_terms.h"
#include "fit/pod_info.h"
#include "fit/resources.h"

namespace planter::fit {

struct Device {
  std::string id;        // "driver/pool/name", as an allocation's result names it
  std::string pool;      // "driver/pool"
  size_t pool_slot = 0;  // its pool's index in the inventory
  int64_t generation = 0;
  std::string node;  // spec.nodeName of its slice; empty: `terms` or every node
  bool all_nodes = false;
  NodeTerms terms;  // its slice's nodeSelector
  std::vector<Taint> taints;
  std::string driver;
  std::shared_ptr<const boost::json::object> source;  // the slice's entry, read when first needed
  // Made when a selector or a constraint first looks at the device (most never are): `device`
  // as selectors see it, and its attributes ("domain/name" -> the value as JSON text).
  mutable std::optional<cel::Bindings> binding;
  mutable std::optional<std::map<std::string, std::string>> attributes;
  const cel::Bindings& cel_binding() const;
  const std::map<std::string, std::string>& attribute_values() const;
};

struct DeviceClass {
  std::string name;
  std::vector<std::string> selectors;  // CEL expressions
  std::string extended_resource;       // spec.extendedResourceName
  std::string created;                 // metadata.creationTimestamp
};

// One way to meet a request: its `exactly`, or one `firstAvailable` subrequest.
struct DeviceRequest {
  std::string name;  // "gpu", or "gpu/small" for a subrequest
  std::string device_class;
  std::vector<std::string> selectors;
  bool all = false;  // allocationMode: All
  int64_t count = 1;
  std::vector<Toleration> tolerations;
  std::string selector_key;  // the class and selectors, as text: requests that say the same share
};

struct DeviceClaimSpec {
  struct Request {
    std::string name;
    std::vector<DeviceRequest> alternatives;  // in order of preference
  };
  struct Constraint {
    std::set<std::string> requests;  // empty: every request
    std::string attribute;           // "domain/name"
  };
  std::vector<Request> requests;
  std::vector<Constraint> constraints;
};

// A ResourceClaim the cluster holds (or the seed declares).
struct DeviceClaim {
  std::string ns, name;
  DeviceClaimSpec spec;
  bool allocated = false;
  std::vector<std::string> devices;  // its allocation's results
  NodeTerms nodes;                   // its allocation's nodeSelector; empty: every node
};

// One claim's allocation: each device (as "driver/pool/name") with the request it serves ("gpu",
// or "gpu/small" for a firstAvailable subrequest).
struct ClaimAllocation {
  std::vector<std::pair<std::string, std::string>> results;  // (request, device)
  bool node_local = false;  // a device came from a slice for this node alone
};
using Allocation = std::vector<ClaimAllocation>;

// A pod's claims, each resolved: one to allocate (from a template, or a claim not allocated yet),
// or one allocated already.
struct PodDevices {
  // Its containers' extended resources devices may serve, with the class that serves each and
  // the request kube-scheduler names for it (PodInfo::extended_requests).
  struct Extended {
    std::string resource, device_class;
    int64_t count = 0;
    std::string container, request;
  };
  std::vector<Extended> extended;
  // Those a node that lists `allocatable` leaves to devices (no device plugin lists them): the
  // requests of the pod's own claim there.
  std::vector<Extended> served_by_devices(const Resources& allocatable) const {
    std::vector<Extended> out;
    for (const Extended& e : extended)
      if (!allocatable.lists(e.resource)) out.push_back(e);
    return out;
  }
  std::vector<const DeviceClaim*> allocated;
  std::vector<std::pair<std::string, const DeviceClaimSpec*>> to_allocate;  // "ns/name" or ""
  // Why no node can take the pod (a claim or class that does not exist), in kube-scheduler's
  // words; empty when nodes are to be looked at.
  std::string refusal;
};

class DeviceInventory {
 public:
  // A ResourceSlice, DeviceClass, ResourceClaim, ResourceClaimTemplate or DeviceTaintRule of
  // resource.k8s.io/v1; false for any other object.
  bool add(const boost::json::object& o);
  // Says the inventory holds every claim and template of its cluster: one it does not hold does
  // not exist. Else (a plan's view) a claim it does not hold may yet come, and is not judged.
  void set_complete() { complete_ = true; }

  // A pod (as the API serves it) the decision stands in for (its stack's, being fitted again):
  // the claims it holds are taken as not allocated, their devices free for the decision's pods.
  void give_back(const boost::json::object& pod);

  PodDevices resolve(const PodInfo& pod) const;
  // A ResourceClaim the inventory holds; null when none.
  const DeviceClaim* claim(const std::string& ns, const std::string& name) const {
    auto it = claims_.find(ns + "/" + name);
    return it == claims_.end() ? nullptr : &it->second;
  }
  // The devices of `claims` on the node (name, labels, allocatable), one list per claim (and a
  // last for the extended resources the node does not list), or nullopt when they cannot all
  // be allocated there.
  std::optional<Allocation> allocate(const PodDevices& claims, const std::string& node,
                                     const Labels& labels, const Resources& allocatable) const;
  // The class that serves an extended resource: the newest that names it (the first by name
  // among equals), or the class its implicit name names; "" when none.
  std::string serving_class(std::string_view resource) const;
  // Whether a class serves one of the extended resources `requests` asks.
  bool serves_any(const Resources& requests) const;
  // How many devices on the node serve an extended resource (its class's, of complete pools,
  // without a NoSchedule or NoExecute taint), taken or not: a node capability, not room; nullopt
  // when no class serves it.
  std::optional<int64_t> capacity(std::string_view resource, const std::string& node,
                                  const Labels& labels) const;
  // Whether the pod takes devices: it claims some, or asks an extended resource a class serves.
  bool takes_devices(const PodInfo& pod) const {
    return !pod.device_claims.empty() || serves_any(pod.requests);
  }
  // The devices a pod placed on a node takes (and the shared claims it allocates, which later
  // pods find allocated there); undone by release(mark) to a mark() taken before.
  void take(const PodDevices& claims, const Allocation& devices, const std::string& node);
  size_t mark() const { return undo_.size(); }
  void release(size_t mark);

  bool empty() const { return devices_.empty() && claims_.empty() && templates_.empty(); }

 private:
  struct Pool {
    int64_t generation = -1;
    int64_t slice_count = 0;
    int64_t seen = 0;  // slices of `generation`
  };
  void add_slice(const boost::json::object& spec);
  void add_claim(const boost::json::object& o);
  // The free devices on the node, of complete pools, and whether one of them is taken.
  std::vector<size_t> devices_on(const std::string& node, const Labels& labels) const;
  bool usable(const Device& d) const;
  bool matches(const DeviceRequest& r, size_t device) const;
  // `known`: match_cache(r), looked up once for many devices.
  bool matches(const DeviceRequest& r, size_t device, std::vector<int8_t>& known) const;
  std::vector<int8_t>& match_cache(const DeviceRequest& r) const;
  friend class DeviceSearch;

  std::vector<Device> devices_;
  std::map<std::string, size_t> pool_slots_;  // "driver/pool" -> index into pools_
  std::vector<Pool> pools_;
  std::map<std::string, DeviceClass, std::less<>> classes_;
  std::map<std::string, DeviceClaim, std::less<>> claims_;         // "ns/name"
  std::map<std::string, DeviceClaimSpec, std::less<>> templates_;  // "ns/name"
  // Device id -> the claims that hold it, and the same by device index (read per device in a
  // search: no string is compared there).
  std::map<std::string, int64_t, std::less<>> taken_;
  std::vector<int64_t> taken_by_index_;
  std::unordered_map<std::string, std::vector<size_t>> indices_of_;  // device id -> indices
  void count_taken(const std::string& id, int64_t delta);
  std::map<std::string, DeviceClaim, std::less<>> assumed_claims_;   // allocated by the decision
  std::map<std::string, std::vector<size_t>, std::less<>> by_node_;  // slices with a nodeName
  std::vector<size_t> shared_;  // devices of slices for selected nodes or every node
  struct TaintRule {
    std::string driver, pool, device;  // empty: any
    Taint taint;
  };
  std::vector<TaintRule> taint_rules_;
  struct Undo {
    std::vector<std::string> devices;
    std::string claim;  // a shared claim the decision allocated
  };
  std::vector<Undo> undo_;
  bool complete_ = false;
  // Compiled selectors by text (compiling is far dearer than evaluating), and by a request's
  // selector_key whether each device matches (-1: not asked yet).
  mutable std::map<std::string, Result<cel::Program>, std::less<>> cel_;
  mutable std::map<std::string, std::vector<int8_t>, std::less<>> matched_;
  mutable std::map<std::string, std::string, std::less<>> serving_;  // serving_class's answers
};

}  // namespace planter::fit
