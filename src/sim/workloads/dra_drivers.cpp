// The DRA driver the sim plays (docs/dra.md), read its own way from its objects (sharing nothing
// with planter's provider table, which it judges):
//
//   GPUCluster (nvidia.com, the GPU Operator's DRA mode)  the DRA Driver for NVIDIA GPUs runs:
//       its DeviceClass gpu.nvidia.com (device.driver is gpu.nvidia.com and the device's type is
//       gpu; extendedResourceName nvidia.com/gpu) exists at once, and each node with an NVIDIA PCI
//       device (feature.node.kubernetes.io/pci-10de.present=true) publishes a ResourceSlice of its
//       GPUs (the node's label sim.planter.io/gpus, else 1; sim.planter.io/gpu-memory, else 80Gi),
//       one node after another, --configure-delay apart, as the driver's kubelet plugin starts on
//       each; every GPU has the driver's attributes (type, index, uuid, productName, architecture,
//       driverVersion and cudaComputeCapability as versions, resource.kubernetes.io/pcieRoot: two
//       GPUs per PCIe root) and its memory as capacity. status.state is notReady until every GPU
//       node has published, then ready.
#include <boost/json.hpp>
#include <string>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kGpuClusters = "nvidia.com/gpuclusters";
constexpr const char* kSlices = "resource.k8s.io/resourceslices";
constexpr const char* kDriver = "gpu.nvidia.com";
constexpr const char* kNvidiaDevice = "feature.node.kubernetes.io/pci-10de.present";
constexpr const char* kComponent = "nvidia-dra-driver-gpu";

bool gpu_node(const json::object& node) {
  return string_at(labels_of(node), kNvidiaDevice) == "true";
}

std::string slice_name(const std::string& node) {
  return node + "-" + kDriver;
}

json::object gpu_slice(const json::object& node) {
  std::string name = meta_string(node, "name");
  int64_t count = 1;
  std::string gpus = string_at(labels_of(node), "sim.planter.io/gpus");
  if (!gpus.empty() && gpus.find_first_not_of("0123456789") == std::string::npos && gpus.size() < 4)
    count = std::max<int64_t>(1, std::stoll(gpus));
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
  return json::object{{"apiVersion", "resource.k8s.io/v1"},
                      {"kind", "ResourceSlice"},
                      {"metadata", {{"name", slice_name(name)}}},
                      {"spec",
                       {{"driver", kDriver},
                        {"nodeName", name},
                        {"pool", {{"name", name}, {"generation", 1}, {"resourceSliceCount", 1}}},
                        {"devices", std::move(devices)}}}};
}

class GpuDraDriver : public WorkloadController {
 public:
  explicit GpuDraDriver(ControllerKit& kit) : kit_(kit) {
    for (const char* key : {kGpuClusters, "/nodes", kSlices})
      kit_.watch(key, [this](const Change&) { soon(); });
    soon();
  }

 private:
  void soon() {
    if (scheduled_) return;
    scheduled_ = true;
    kit_.after(std::chrono::milliseconds(0), [this] {
      scheduled_ = false;
      step();
    });
  }

  bool running() { return !kit_.store().bucket(kGpuClusters).empty(); }

  void step() {
    if (!running()) return;
    ensure_class();
    report();
    // The next GPU node without its slice publishes it after the delay, one at a time.
    if (publishing_) return;
    for (const auto& [_, node] : kit_.store().bucket("/nodes")) {
      if (!gpu_node(*node)) continue;
      std::string name = meta_string(*node, "name");
      if (kit_.store().get(kSlices, "", slice_name(name))) continue;
      publishing_ = true;
      kit_.after(kit_.cluster().options().configure_delay, [this, name] {
        publishing_ = false;
        StoredObject n = kit_.store().get("/nodes", "", name);
        if (n && running() && !kit_.store().get(kSlices, "", slice_name(name)))
          kit_.write("POST", "/apis/resource.k8s.io/v1/resourceslices", "application/json",
                     gpu_slice(*n), kComponent);
        soon();
      });
      return;
    }
  }

  void ensure_class() {
    if (kit_.store().get("resource.k8s.io/deviceclasses", "", kDriver)) return;
    json::object cls{
        {"apiVersion", "resource.k8s.io/v1"},
        {"kind", "DeviceClass"},
        {"metadata", {{"name", kDriver}}},
        {"spec",
         {{"selectors",
           json::array{json::object{{"cel",
                                     {{"expression",
                                       "device.driver == 'gpu.nvidia.com' && "
                                       "device.attributes['gpu.nvidia.com'].type == 'gpu'"}}}}}},
          // A pod asking nvidia.com/gpu in its requests is served by the driver's devices on
          // nodes no device plugin lists it on (KEP-5004).
          {"extendedResourceName", "nvidia.com/gpu"}}}};
    kit_.write("POST", "/apis/resource.k8s.io/v1/deviceclasses", "application/json", cls,
               kComponent);
  }

  void report() {
    int64_t gpu_nodes = 0, published = 0;
    for (const auto& [_, node] : kit_.store().bucket("/nodes")) {
      if (!gpu_node(*node)) continue;
      ++gpu_nodes;
      published += kit_.store().get(kSlices, "", slice_name(meta_string(*node, "name"))) ? 1 : 0;
    }
    bool ready = gpu_nodes > 0 && published == gpu_nodes;
    for (const auto& [_, gc] : kit_.store().bucket(kGpuClusters)) {
      const json::object* old = object_at(*gc, "status");
      json::object st = old ? *old : json::object{};
      st["state"] = ready ? "ready" : "notReady";
      st["conditions"] = json::array{kit_.condition(
          old, "Ready", ready ? "True" : "False", ready ? "Reconciled" : "OperandNotReady",
          ready ? ""
                : std::to_string(published) + " of " + std::to_string(gpu_nodes) +
                      " GPU nodes published their devices")};
      kit_.put_status(object_path(kGpuClusters, *gc), *gc, std::move(st), "gpu-operator");
    }
  }

  ControllerKit& kit_;
  bool scheduled_ = false;
  bool publishing_ = false;
};

}  // namespace

std::unique_ptr<WorkloadController> start_dra_drivers(ControllerKit& kit) {
  return std::make_unique<GpuDraDriver>(kit);
}

}  // namespace planter::sim
