// Dynamic Resource Allocation's structured allocator as the sim's scheduler runs it for one pod
// (kube-scheduler's DynamicResources plugin; k8s.io/dynamic-resource-allocation/structured): the
// devices of a node are those the DeviceCatalog holds for it (device_catalog.h: complete pools,
// taints, what claims hold); a device already allocated to a claim is taken; a request
// (`exactly`, or the first of `firstAvailable` that can be met) takes `count` devices
// (allocationMode ExactCount) or every matching one (All), each matching its DeviceClass's
// selectors and its own (CEL over `device`), with no NoSchedule or NoExecute taint the request
// does not tolerate (the device's own, and DeviceTaintRules'); devices of requests a
// `matchAttribute` constraint names share that attribute's value. Choices are searched depth
// first with backtracking, as the allocator does, within a step budget.
//
// A selector whose evaluation fails does not match the device; its message is kept for the
// FailedScheduling event. Pure over the objects and the catalog it is given.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cel/program.h"
#include "sim/kube_scheduler/device_catalog.h"
#include "sim/store.h"

namespace planter::sim::sched {

// One claim's allocation on a node: each request's devices ("gpu", or "gpu/small" for the
// subrequest of firstAvailable chosen), and whether one came from a slice of that node alone.
struct ClaimAllocation {
  struct Result {
    std::string request;
    DeviceId device;
  };
  std::vector<Result> results;
  bool node_local = false;
};

// Compiled CEL expressions by text, shared over a scheduler's life.
class CelCache {
 public:
  // The program, or its compile error.
  const Result<cel::Program>& get(const std::string& expression);

 private:
  std::map<std::string, Result<cel::Program>, std::less<>> programs_;
};

class DeviceAllocator {
 public:
  // `claims`: the pod's claims to allocate; `catalog`: the classes, the devices and which of
  // them are allocated.
  DeviceAllocator(std::vector<StoredObject> claims, DeviceCatalog& catalog, CelCache& cel);

  // The claims' allocations on `node`, or nullopt when they cannot all be allocated there.
  std::optional<std::vector<ClaimAllocation>> allocate(const boost::json::object& node);

  // A request naming a DeviceClass that does not exist: kube-scheduler's PreFilter refusal
  // ("request gpu: device class gpu.example.com does not exist").
  const std::optional<std::string>& missing_class() const { return missing_class_; }
  // The first selector evaluation that failed, for people.
  const std::optional<std::string>& selector_error() const { return selector_error_; }

 private:
  // One way to meet a request: its `exactly`, or one of its `firstAvailable` subrequests.
  struct Alternative {
    std::string name;  // "gpu" or "gpu/small"
    const boost::json::object* spec = nullptr;
    const boost::json::object* device_class = nullptr;
    std::vector<int8_t> matches;                // by device: -1 not yet known, 0, 1
    std::vector<int8_t>* class_memo = nullptr;  // the catalog's, for device_class
  };
  struct Request {
    size_t claim = 0;
    std::string name;
    std::vector<Alternative> alternatives;
  };
  struct Constraint {
    size_t claim = 0;
    std::set<std::string> requests;  // empty: every request of the claim
    std::string attribute;           // "domain/name"
  };

  bool matches(Alternative& a, size_t device);
  bool class_matches(const Alternative& a, size_t device);
  DeviceCatalog::Memo selectors_match(const boost::json::object* owner, const char* what,
                                      size_t device);
  bool tolerated(const Alternative& a, const DeviceCatalog::Device& d) const;
  bool search(size_t request, std::vector<std::vector<size_t>>& chosen,
              std::vector<size_t>& alternative);
  bool fill(size_t request, size_t alt, size_t start, size_t need, bool all,
            std::vector<std::vector<size_t>>& chosen, std::vector<size_t>& alternative);
  bool constraints_hold(size_t request, size_t device) const;
  void take(size_t request, size_t device, int delta);

  std::vector<StoredObject> claims_;
  std::vector<Request> requests_;
  std::vector<Constraint> constraints_;
  std::vector<size_t> on_node_;  // devices of the node being tried
  std::vector<bool> used_;
  // By constraint: the attribute's value the devices chosen so far share, and how many they are.
  std::vector<std::pair<std::string, int>> constraint_state_;
  uint64_t steps_ = 0;
  DeviceCatalog& catalog_;
  CelCache& cel_;
  std::optional<std::string> missing_class_;
  std::optional<std::string> selector_error_;
};

}  // namespace planter::sim::sched
