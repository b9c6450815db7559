// The devices a cluster's drivers publish, as the sim's scheduler keeps them between pods
// (kube-scheduler keeps the same in its ResourceSlice tracker and its allocated-devices cache, so
// one pod's attempt does not read every slice and claim of the cluster):
// - the devices of complete pools (every slice of a pool's newest generation published:
//   pool.resourceSliceCount of them), with their own taints and those DeviceTaintRules add,
//   read again from the store after a ResourceSlice or DeviceTaintRule changed;
// - which devices claims' status.allocation holds, kept up to date claim by claim;
// - each device as DRA's CEL environment binds `device` (driver, attributes and capacity by
//   domain), made when a selector first looks at it and kept until the slices change;
// - the DeviceClasses, and which serves each extended resource, read again after a class changed;
// - whether each DeviceClass's selectors match each device, kept until the class or the slices
//   change.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cel/program.h"
#include "sim/store.h"

namespace planter::sim::sched {

struct DeviceId {
  std::string driver, pool, device;
  auto operator<=>(const DeviceId&) const = default;
};

class DeviceCatalog {
 public:
  struct Device {
    DeviceId id;
    const boost::json::object* spec = nullptr;   // the slice's device
    const boost::json::object* slice = nullptr;  // its ResourceSlice's spec
    bool node_local = false;                     // the slice names one node (spec.nodeName)
    std::vector<const boost::json::object*> taints;
    std::optional<cel::Bindings> binding;
  };

  explicit DeviceCatalog(const Store& store);

  // A ResourceSlice or DeviceTaintRule changed: the devices are read again when next asked for.
  void slices_changed() { stale_ = true; }
  // A DeviceClass was made, changed or deleted: what its selectors match is forgotten.
  void classes_changed() {
    class_memo_.clear();
    classes_stale_ = true;
  }
  // A ResourceClaim was made, changed or deleted: its allocation's devices are taken or freed.
  void claim_changed(const Change& change);

  // Reads the slices again if they changed. Indices into devices() hold until the next refresh.
  void refresh();
  const std::vector<Device>& devices() const { return devices_; }
  // The devices of the slices for `node` (by spec.nodeName, spec.nodeSelector or
  // spec.allNodes), by index, in order.
  std::vector<size_t> for_node(const boost::json::object& node) const;
  // A claim's status.allocation holds the device.
  bool allocated(size_t device) const { return allocated_counts_.contains(devices_[device].id); }
  const cel::Bindings& binding(size_t device);
  // The value of the device's attribute "domain/name" (an unqualified key is in the driver's
  // domain) as text two equal values share, for matchAttribute; nullopt when it has none.
  std::optional<std::string> attribute(size_t device, std::string_view qualified) const;
  // A DeviceClass by name; null when there is none.
  const boost::json::object* device_class(std::string_view name);
  // The class that serves an extended resource (DeviceClassSpec.extendedResourceName: the newest
  // class that names it, the first by name among equals; and each class's implicit
  // `deviceclass.resource.kubernetes.io/<name>`); "" when none. `any_class`: whether there is a
  // class at all.
  std::string serving_class(std::string_view resource);
  bool any_class();
  // What the named DeviceClass's selectors gave for each device: kUnknown until evaluated.
  enum Memo : int8_t { kUnknown = -1, kNo = 0, kYes = 1, kFailed = 2 };
  std::vector<int8_t>& class_memo(const std::string& device_class);

 private:
  void read_slices();

  const Store& store_;
  bool stale_ = true;
  // What the devices' pointers point into, held while they are in use.
  std::vector<StoredObject> held_;
  std::vector<Device> devices_;
  std::map<std::string, std::vector<size_t>, std::less<>> by_node_;
  std::vector<size_t> shared_;  // devices of slices by nodeSelector or allNodes
  std::map<std::string, std::vector<DeviceId>> allocated_by_claim_;  // "ns/name" -> devices
  std::map<DeviceId, int> allocated_counts_;
  std::map<std::string, std::vector<int8_t>, std::less<>> class_memo_;
  void read_classes();
  bool classes_stale_ = true;
  std::map<std::string, StoredObject, std::less<>> classes_;
  std::map<std::string, std::string, std::less<>> serving_;  // resource -> class
};

}  // namespace planter::sim::sched
