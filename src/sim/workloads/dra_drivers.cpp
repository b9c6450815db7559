// The DRA drivers the sim plays (docs/dra.md), read their own way from their objects (sharing
// nothing with planter's provider table, which they judge). Each runs once the resource of its
// operator exists: its DeviceClass exists at once, and each node with its hardware (the label
// Node Feature Discovery sets) publishes a ResourceSlice of its devices, one node after another,
// --configure-delay apart, as the driver's kubelet plugin starts on each.
//
//   GPUCluster (nvidia.com, the GPU Operator's DRA mode)  the DRA Driver for NVIDIA GPUs:
//       DeviceClass gpu.nvidia.com (device.driver is gpu.nvidia.com and the device's type is gpu;
//       extendedResourceName nvidia.com/gpu); nodes with an NVIDIA PCI device
//       (feature.node.kubernetes.io/pci-10de.present=true) publish their GPUs (the label
//       sim.planter.io/gpus, else 1; sim.planter.io/gpu-memory, else 80Gi), each with the
//       driver's attributes (type, index, uuid, productName, architecture, driverVersion and
//       cudaComputeCapability as versions, resource.kubernetes.io/pcieRoot: two GPUs per PCIe
//       root) and its memory as capacity. status.state is notReady until every GPU node has
//       published, then ready.
//   SriovResourcePolicy (sriovnetwork.k8snetworkplumbingwg.io)  the DRA driver for SR-IOV VFs:
//       DeviceClass sriovnetwork.k8snetworkplumbingwg.io; nodes with an SR-IOV capable NIC
//       (feature.node.kubernetes.io/network-sriov.capable=true) publish their VFs (the label
//       sim.planter.io/sriov-vfs, else 8) over two PFs, each VF with PFName, vfID, pciAddress,
//       vendor, deviceID, resource.kubernetes.io/pcieRoot and dra.net/numaNode of its PF.
//   ComputeDomain (resource.nvidia.com)  the same driver's ComputeDomain kubelet plugin:
//       DeviceClass compute-domain-default-channel.nvidia.com (IMEX channel 0); nodes of a
//       multi-node NVLink clique (the label nvidia.com/gpu.clique, any value, as GPU Feature
//       Discovery sets it) publish their channel (type channel, id 0, cliqueID). A node is in
//       one domain at a time: its one channel goes to one claim. The domains themselves are
//       compute_domains.cpp's.
#include <algorithm>
#include <boost/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kSlices = "resource.k8s.io/resourceslices";

// One DRA driver as the sim plays it: what runs it (a custom resource of its operator), its
// DeviceClass, which nodes have its hardware (a label Node Feature Discovery sets) and the slice
// each of them publishes.
struct DriverSpec {
  const char* runs_with;     // the store bucket of the resource whose existence runs the driver
  const char* driver;        // also its DeviceClass's name, unless device_class says one
  const char* device_class;  // nullptr: the driver's name
  const char* selector;      // the DeviceClass's CEL selector
  const char* extended_resource;  // the DeviceClass's extendedResourceName, or nullptr
  const char* hardware_label;     // set to hardware_value on nodes with its hardware
  const char* component;          // the writer, in the audit log
  json::array (*devices)(const json::object& node);
  // Who writes how far it is on what runs it (status.state and a Ready condition), and what
  // its nodes are called there; nullptr: nobody.
  const char* status_writer = nullptr;
  const char* nodes_word = nullptr;
  const char* hardware_value = "true";  // "*": any value
  const char* class_name() const { return device_class ? device_class : driver; }
};

// A small count from a node's label (at most 999), or `otherwise`.
int64_t count_label(const json::object& node, const char* label, int64_t otherwise) {
  std::string text = string_at(labels_of(node), label);
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos)
    return otherwise;
  return std::max<int64_t>(1, std::stoll(text));
}

json::array gpus(const json::object& node) {
  std::string name = meta_string(node, "name");
  int64_t count = count_label(node, "sim.planter.io/gpus", 1);
  std::string memory = string_at(labels_of(node), "sim.planter.io/gpu-memory");
  if (memory.empty()) memory = "80Gi";
  json::array devices;
  for (int64_t i = 0; i < count; ++i) {
    std::string index = std::to_string(i);
    json::object attributes{
        {"type", {{"string", "gpu"}}},
        {"index", {{"int", i}}},
        {"uuid", {{"string", "GPU-" + name + "-" + index}}},
        {"productName", {{"string", "NVIDIA A100-SXM4-80GB"}}},
        {"architecture", {{"string", "Ampere"}}},
        {"driverVersion", {{"version", "550.54.15"}}},
        {"cudaComputeCapability", {{"version", "8.0.0"}}},
        {"resource.kubernetes.io/pcieRoot", {{"string", "pci0000:" + std::to_string(i / 2)}}}};
    devices.push_back(json::object{{"name", "gpu-" + index},
                                   {"attributes", std::move(attributes)},
                                   {"capacity", {{"memory", {{"value", memory}}}}}});
  }
  return devices;
}

// The VFs of a node's SR-IOV NIC: two physical functions (ens1f0, ens1f1) sharing the VFs,
// each PF on its own PCIe root and NUMA node.
json::array vfs(const json::object& node) {
  int64_t count = count_label(node, "sim.planter.io/sriov-vfs", 8);
  json::array devices;
  for (int64_t i = 0; i < count; ++i) {
    int64_t pf = i % 2, vf = i / 2;
    std::string pci = "0000:3b:0" + std::to_string(2 + pf) + "." + std::to_string(vf % 8);
    json::object attributes{
        {"PFName", {{"string", "ens1f" + std::to_string(pf)}}},
        {"vfID", {{"int", vf}}},
        {"pciAddress", {{"string", pci}}},
        {"vendor", {{"string", "8086"}}},
        {"deviceID", {{"string", "154c"}}},
        {"pfDeviceID", {{"string", "1593"}}},
        {"linkType", {{"string", "ether"}}},
        {"resource.kubernetes.io/pcieRoot", {{"string", "pci0000:3" + std::to_string(pf)}}},
        {"dra.net/numaNode", {{"int", pf}}}};
    devices.push_back(
        json::object{{"name", "vf-" + std::to_string(i)}, {"attributes", std::move(attributes)}});
  }
  return devices;
}

// A clique's IMEX channel 0: the one channel of a node that workloads of a ComputeDomain get.
json::array channels(const json::object& node) {
  json::object attributes{
      {"type", {{"string", "channel"}}},
      {"id", {{"int", 0}}},
      {"cliqueID", {{"string", string_at(labels_of(node), "nvidia.com/gpu.clique")}}}};
  return json::array{json::object{{"name", "channel-0"}, {"attributes", std::move(attributes)}}};
}

constexpr DriverSpec kDrivers[] = {
    // The DRA Driver for NVIDIA GPUs, run by the GPU Operator's GPUCluster (its status.state says
    // how far it is). A pod asking nvidia.com/gpu is served by its devices on nodes no device
    // plugin lists it on (KEP-5004).
    {"nvidia.com/gpuclusters", "gpu.nvidia.com", nullptr,
     "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
     "nvidia.com/gpu", "feature.node.kubernetes.io/pci-10de.present", "nvidia-dra-driver-gpu", gpus,
     "gpu-operator", "GPU nodes"},
    // The DRA driver for SR-IOV virtual functions (k8snetworkplumbingwg/dra-driver-sriov), which
    // advertises devices once a SriovResourcePolicy selects them.
    {"sriovnetwork.k8snetworkplumbingwg.io/sriovresourcepolicies",
     "sriovnetwork.k8snetworkplumbingwg.io", nullptr,
     "device.driver == 'sriovnetwork.k8snetworkplumbingwg.io'", nullptr,
     "feature.node.kubernetes.io/network-sriov.capable", "dra-driver-sriov", vfs},
    // The ComputeDomain kubelet plugin of the DRA Driver for NVIDIA GPUs, once a ComputeDomain
    // exists: each node of an NVLink clique publishes its IMEX channel.
    {"resource.nvidia.com/computedomains", "compute-domain.nvidia.com",
     "compute-domain-default-channel.nvidia.com",
     "device.driver == 'compute-domain.nvidia.com' && "
     "device.attributes['compute-domain.nvidia.com'].type == 'channel' && "
     "device.attributes['compute-domain.nvidia.com'].id == 0",
     nullptr, "nvidia.com/gpu.clique", "compute-domain-kubelet-plugin", channels, nullptr, nullptr,
     "*"},
};

class DraDriver {
 public:
  DraDriver(ControllerKit& kit, const DriverSpec& spec) : kit_(kit), spec_(spec) {
    for (const char* key : {spec_.runs_with, "/nodes", kSlices})
      kit_.watch(key, [this](const Change&) { soon(); });
    soon();
  }

 private:
  bool on_node(const json::object& node) const {
    std::string value = string_at(labels_of(node), spec_.hardware_label);
    if (std::string_view(spec_.hardware_value) == "*") return !value.empty();
    return value == spec_.hardware_value;
  }
  std::string slice_name(const std::string& node) const { return node + "-" + spec_.driver; }

  json::object slice(const json::object& node) const {
    std::string name = meta_string(node, "name");
    return json::object{{"apiVersion", "resource.k8s.io/v1"},
                        {"kind", "ResourceSlice"},
                        {"metadata", {{"name", slice_name(name)}}},
                        {"spec",
                         {{"driver", spec_.driver},
                          {"nodeName", name},
                          {"pool", {{"name", name}, {"generation", 1}, {"resourceSliceCount", 1}}},
                          {"devices", spec_.devices(node)}}}};
  }

  void soon() {
    if (scheduled_) return;
    scheduled_ = true;
    kit_.after(std::chrono::milliseconds(0), [this] {
      scheduled_ = false;
      step();
    });
  }

  bool running() { return !kit_.store().bucket(spec_.runs_with).empty(); }

  void step() {
    if (!running()) return;
    ensure_class();
    report();
    // The next node of its hardware without its slice publishes it after the delay, one at a
    // time, as the driver's kubelet plugin starts on each.
    if (publishing_) return;
    for (const auto& [_, node] : kit_.store().bucket("/nodes")) {
      if (!on_node(*node)) continue;
      std::string name = meta_string(*node, "name");
      if (kit_.store().get(kSlices, "", slice_name(name))) continue;
      publishing_ = true;
      kit_.after(kit_.cluster().options().configure_delay, [this, name] {
        publishing_ = false;
        StoredObject n = kit_.store().get("/nodes", "", name);
        if (n && running() && !kit_.store().get(kSlices, "", slice_name(name)))
          kit_.write("POST", "/apis/resource.k8s.io/v1/resourceslices", "application/json",
                     slice(*n), spec_.component);
        soon();
      });
      return;
    }
  }

  void ensure_class() {
    if (kit_.store().get("resource.k8s.io/deviceclasses", "", spec_.class_name())) return;
    json::object spec{
        {"selectors", json::array{json::object{{"cel", {{"expression", spec_.selector}}}}}}};
    if (spec_.extended_resource) spec["extendedResourceName"] = spec_.extended_resource;
    json::object cls{{"apiVersion", "resource.k8s.io/v1"},
                     {"kind", "DeviceClass"},
                     {"metadata", {{"name", spec_.class_name()}}},
                     {"spec", std::move(spec)}};
    kit_.write("POST", "/apis/resource.k8s.io/v1/deviceclasses", "application/json", cls,
               spec_.component);
  }

  // What runs it says how far the driver is (a GPUCluster's status.state): ready once every node
  // of its hardware published its devices.
  void report() {
    if (!spec_.status_writer) return;
    int64_t nodes = 0, published = 0;
    for (const auto& [_, node] : kit_.store().bucket("/nodes")) {
      if (!on_node(*node)) continue;
      ++nodes;
      published += kit_.store().get(kSlices, "", slice_name(meta_string(*node, "name"))) ? 1 : 0;
    }
    bool ready = nodes > 0 && published == nodes;
    for (const auto& [_, gc] : kit_.store().bucket(spec_.runs_with)) {
      const json::object* old = object_at(*gc, "status");
      json::object st = old ? *old : json::object{};
      st["state"] = ready ? "ready" : "notReady";
      st["conditions"] = json::array{kit_.condition(
          old, "Ready", ready ? "True" : "False", ready ? "Reconciled" : "OperandNotReady",
          ready ? ""
                : std::to_string(published) + " of " + std::to_string(nodes) + " " +
                      spec_.nodes_word + " published their devices")};
      kit_.put_status(object_path(spec_.runs_with, *gc), *gc, std::move(st), spec_.status_writer);
    }
  }

  ControllerKit& kit_;
  const DriverSpec& spec_;
  bool scheduled_ = false;
  bool publishing_ = false;
};

class DraDrivers : public WorkloadController {
 public:
  explicit DraDrivers(ControllerKit& kit) {
    for (const DriverSpec& d : kDrivers) drivers_.push_back(std::make_unique<DraDriver>(kit, d));
  }

 private:
  std::vector<std::unique_ptr<DraDriver>> drivers_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_dra_drivers(ControllerKit& kit) {
  return std::make_unique<DraDrivers>(kit);
}

}  // namespace planter::sim
