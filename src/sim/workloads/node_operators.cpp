#include "sim/workloads/node_operators.h"

#include <boost/json.hpp>
#include <charconv>
#include <vector>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kProfiles = "performance.openshift.io/performanceprofiles";
constexpr const char* kPools = "machineconfiguration.openshift.io/machineconfigpools";
constexpr const char* kPolicies = "sriovnetwork.openshift.io/sriovnetworknodepolicies";
constexpr const char* kNodeStates = "sriovnetwork.openshift.io/sriovnetworknodestates";
constexpr const char* kNetworks = "sriovnetwork.openshift.io/sriovnetworks";
constexpr const char* kAttachments = "k8s.cni.cncf.io/network-attachment-definitions";
constexpr const char* kClusterPolicies = "nvidia.com/clusterpolicies";
constexpr const char* kModules = "kmm.sigs.x-k8s.io/modules";

constexpr const char* kSriovCapable = "feature.node.kubernetes.io/network-sriov.capable";
constexpr const char* kNvidiaDevice = "feature.node.kubernetes.io/pci-10de.present";

// Every key=value of `selector` is a label of the node (an absent selector selects every node).
bool selects(const json::object* selector, const json::object& node) {
  if (!selector) return true;
  const json::object* labels = labels_of(node);
  for (const auto& [k, v] : *selector) {
    const json::value* have = labels ? labels->if_contains(k) : nullptr;
    if (!have || !have->is_string() || !v.is_string() || have->as_string() != v.as_string())
      return false;
  }
  return true;
}

// A page size as the node's resource names it, and its size in MiB: "1G" -> {"1Gi", 1024}.
std::pair<std::string, int64_t> page_size(std::string size) {
  if (!size.empty() && (size.back() == 'G' || size.back() == 'M')) size += 'i';
  int64_t n = 0;
  auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n);
  std::string_view unit(end, size.data() + size.size() - end);
  if (ec != std::errc() || n <= 0 || n > 1024) return {"", 0};
  if (unit == "Gi") return {size, n * 1024};
  if (unit == "Mi") return {size, n};
  return {"", 0};
}

std::string mib_text(int64_t mib) {
  return mib % 1024 == 0 ? std::to_string(mib / 1024) + "Gi" : std::to_string(mib) + "Mi";
}

std::vector<StoredObject> all(ControllerKit& kit, const char* key) {
  std::vector<StoredObject> out;
  for (const auto& [_, o] : kit.store().bucket(key))
    if (meta_string(*o, "deletionTimestamp").empty()) out.push_back(o);
  return out;
}

NodeWants profile_wants(const json::object& profile, const json::object& node) {
  NodeWants w;
  const json::object* spec = object_at(profile, "spec");
  if (!selects(object_at(spec, "nodeSelector"), node)) return w;
  std::map<std::string, int64_t> mib;
  const json::object* hp = object_at(spec, "hugepages");
  if (auto* pages = hp ? hp->if_contains("pages") : nullptr; pages && pages->is_array())
    for (const json::value& p : pages->as_array()) {
      if (!p.is_object()) continue;
      auto [name, size] = page_size(string_at(p.as_object(), "size"));
      int64_t count = int_at(&p.as_object(), "count");
      if (!name.empty() && count > 0 && count <= 65536) mib["hugepages-" + name] += size * count;
    }
  for (const auto& [name, total] : mib) w.resources[name] = mib_text(total);
  const json::object* rt = object_at(spec, "realTimeKernel");
  if (rt && rt->contains("enabled") && rt->at("enabled").is_bool() && rt->at("enabled").as_bool())
    w.kernel_version = "5.14.0-rt-planter-sim";
  // Something for the pool to roll out even without pages: the tuned profile's label.
  w.labels["sim.planter.io/performance-profile"] = meta_string(profile, "name");
  return w;
}

NodeWants policy_wants(const json::object& policy, const json::object& node) {
  NodeWants w;
  const json::object* spec = object_at(policy, "spec");
  std::string resource = string_at(spec, "resourceName");
  int64_t vfs = int_at(spec, "numVfs");
  if (resource.empty() || vfs <= 0 || string_at(labels_of(node), kSriovCapable) != "true" ||
      !selects(object_at(spec, "nodeSelector"), node))
    return w;
  w.resources["openshift.io/" + resource] = std::to_string(std::min<int64_t>(vfs, 256));
  return w;
}

NodeWants gpu_wants(const json::object& node) {
  NodeWants w;
  if (string_at(labels_of(node), kNvidiaDevice) != "true") return w;
  std::string gpus = string_at(labels_of(node), "sim.planter.io/gpus");
  w.resources["nvidia.com/gpu"] = gpus.empty() ? "1" : gpus;
  w.labels["nvidia.com/gpu.present"] = "true";
  return w;
}

NodeWants module_wants(const json::object& module, const json::object& node) {
  NodeWants w;
  if (!selects(object_at(object_at(module, "spec"), "selector"), node)) return w;
  w.labels["kmm.node.kubernetes.io/" + meta_string(module, "namespace") + "." +
           meta_string(module, "name") + ".ready"] = "";
  return w;
}

bool ready(const json::object& node) {
  const json::object* c = find_condition(object_at(node, "status"), "Ready");
  return c && string_at(c, "status") == "True";
}

void report_profiles(ControllerKit& kit) {
  for (const StoredObject& p : all(kit, kProfiles)) {
    const json::object* old = object_at(*p, "status");
    json::object st = old ? *old : json::object{};
    st["conditions"] = json::array{
        kit.condition(old, "Available", "True", "AsExpected", "cluster is available"),
        kit.condition(old, "Upgradeable", "True", "AsExpected", "cluster is upgradeable"),
        kit.condition(old, "Progressing", "False", "", ""),
        kit.condition(old, "Degraded", "False", "", "")};
    kit.put_status(object_path(kProfiles, *p), *p, std::move(st), "performance-operator");
  }
}

void report_pools(ControllerKit& kit, const std::vector<StoredObject>& nodes) {
  std::vector<StoredObject> pools = all(kit, kPools);
  if (pools.empty()) return;
  // Whether each node has what the operators want of it, found once for every pool.
  std::vector<bool> configured;
  configured.reserve(nodes.size());
  for (const StoredObject& n : nodes) configured.push_back(node_has(*n, operators_want(kit, *n)));
  for (const StoredObject& pool : pools) {
    const json::object* sel =
        object_at(object_at(object_at(*pool, "spec"), "nodeSelector"), "matchLabels");
    int64_t machines = 0, updated = 0, ready_count = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!sel || !selects(sel, *nodes[i])) continue;
      ++machines;
      ready_count += ready(*nodes[i]) ? 1 : 0;
      updated += configured[i] ? 1 : 0;
    }
    bool done = updated == machines;
    const json::object* old = object_at(*pool, "status");
    json::object st = old ? *old : json::object{};
    st["machineCount"] = machines;
    st["updatedMachineCount"] = updated;
    st["readyMachineCount"] = ready_count;
    st["unavailableMachineCount"] = machines - ready_count;
    st["degradedMachineCount"] = 0;
    if (auto* meta = object_at(*pool, "metadata"); meta && meta->contains("generation"))
      st["observedGeneration"] = meta->at("generation");
    std::string name = meta_string(*pool, "name");
    st["conditions"] = json::array{
        kit.condition(old, "Updated", done ? "True" : "False", "",
                      done ? "All nodes are updated with MachineConfig rendered-" + name : ""),
        kit.condition(old, "Updating", done ? "False" : "True", "",
                      done ? "" : "All nodes are updating to MachineConfig rendered-" + name),
        kit.condition(old, "Degraded", "False", "", "")};
    kit.put_status(object_path(kPools, *pool), *pool, std::move(st), "machine-config-controller");
  }
}

void report_sriov(ControllerKit& kit, const std::vector<StoredObject>& nodes) {
  for (const StoredObject& policy : all(kit, kPolicies)) {
    std::string ns = meta_string(*policy, "namespace");
    for (const StoredObject& n : nodes) {
      NodeWants w = policy_wants(*policy, *n);
      if (w.empty()) continue;
      std::string name = meta_string(*n, "name");
      StoredObject state = kit.store().get(kNodeStates, ns, name);
      if (!state) {
        json::object body{{"apiVersion", "sriovnetwork.openshift.io/v1"},
                          {"kind", "SriovNetworkNodeState"},
                          {"metadata", {{"name", name}, {"namespace", ns}}},
                          {"spec", json::object{}}};
        kit.write("POST",
                  "/apis/sriovnetwork.openshift.io/v1/namespaces/" + ns + "/sriovnetworknodestates",
                  "application/json", body, "sriov-network-operator");
        state = kit.store().get(kNodeStates, ns, name);
        if (!state) continue;  // its CRD is not installed
      }
      const json::object* old = object_at(*state, "status");
      json::object st = old ? *old : json::object{};
      st["syncStatus"] = node_has(*n, w) ? "Succeeded" : "InProgress";
      kit.put_status(object_path(kNodeStates, *state), *state, std::move(st),
                     "sriov-network-config-daemon");
    }
  }
  for (const StoredObject& net : all(kit, kNetworks)) {
    const json::object* spec = object_at(*net, "spec");
    std::string target = string_at(spec, "networkNamespace");
    if (target.empty()) target = meta_string(*net, "namespace");
    std::string name = meta_string(*net, "name"), resource = string_at(spec, "resourceName");
    if (kit.store().get(kAttachments, target, name)) continue;
    json::object config{{"cniVersion", "1.0.0"}, {"name", name}, {"type", "sriov"}};
    if (spec && spec->contains("vlan")) config["vlan"] = spec->at("vlan");
    json::object body{
        {"apiVersion", "k8s.cni.cncf.io/v1"},
        {"kind", "NetworkAttachmentDefinition"},
        {"metadata",
         {{"name", name},
          {"namespace", target},
          {"annotations", {{"k8s.v1.cni.cncf.io/resourceName", "openshift.io/" + resource}}}}},
        {"spec", {{"config", json::serialize(config)}}}};
    kit.write("POST",
              "/apis/k8s.cni.cncf.io/v1/namespaces/" + target + "/network-attachment-definitions",
              "application/json", body, "sriov-network-operator");
  }
}

void report_gpus(ControllerKit& kit, const std::vector<StoredObject>& nodes) {
  for (const StoredObject& policy : all(kit, kClusterPolicies)) {
    int64_t gpu_nodes = 0, done = 0;
    for (const StoredObject& n : nodes) {
      NodeWants w = gpu_wants(*n);
      if (w.empty()) continue;
      ++gpu_nodes;
      done += node_has(*n, w) ? 1 : 0;
    }
    const json::object* old = object_at(*policy, "status");
    json::object st = old ? *old : json::object{};
    bool all_ready = gpu_nodes > 0 && done == gpu_nodes;
    st["state"] = all_ready ? "ready" : "notReady";
    st["conditions"] = json::array{
        kit.condition(
            old, "Ready", all_ready ? "True" : "False",
            all_ready ? "Reconciled" : "OperandNotReady",
            all_ready ? "" : "ClusterPolicy is not ready, states not ready: [state-driver]"),
        kit.condition(old, "Error", "False", "", "")};
    kit.put_status(object_path(kClusterPolicies, *policy), *policy, std::move(st), "gpu-operator");
  }
}

}  // namespace

NodeWants kernel_config_wants(const json::object& k) {
  NodeWants w;
  const json::object* spec = object_at(k, "spec");
  w.labels["planter.nephio.org/kernel-config"] = meta_string(k, "name");
  bool realtime = spec && spec->contains("realtime") && spec->at("realtime").is_bool() &&
                  spec->at("realtime").as_bool();
  if (realtime) w.labels["planter.nephio.org/realtime-kernel"] = "true";
  w.kernel_version = realtime ? "6.1.0-rt-planter-sim" : "6.1.0-planter-sim";
  return w;
}

NodeWants memory_config_wants(const json::object& m) {
  NodeWants w;
  const json::object* spec = object_at(m, "spec");
  w.labels["planter.nephio.org/memory-config"] = meta_string(m, "name");
  if (spec && spec->contains("numa") && spec->at("numa").is_bool() && spec->at("numa").as_bool())
    w.labels["planter.nephio.org/numa"] = "true";
  auto [name, size] = page_size(string_at(spec, "hugePages"));
  int64_t count = spec && spec->contains("hugePagesCount") ? int_at(spec, "hugePagesCount") : 4;
  if (!name.empty() && count > 0 && count <= 4096)
    w.resources["hugepages-" + name] = mib_text(size * count);
  return w;
}

NodeWants operators_want(ControllerKit& kit, const json::object& node) {
  NodeWants w;
  for (const StoredObject& p : all(kit, kProfiles)) w.merge(profile_wants(*p, node));
  for (const StoredObject& p : all(kit, kPolicies)) w.merge(policy_wants(*p, node));
  if (!all(kit, kClusterPolicies).empty()) w.merge(gpu_wants(node));
  for (const StoredObject& m : all(kit, kModules)) w.merge(module_wants(*m, node));
  return w;
}

const std::initializer_list<const char*>& operator_kinds() {
  static const std::initializer_list<const char*> kinds = {kProfiles, kPools,           kPolicies,
                                                           kNetworks, kClusterPolicies, kModules};
  return kinds;
}

bool node_has(const json::object& node, const NodeWants& wants) {
  const json::object* labels = labels_of(node);
  for (const auto& [k, v] : wants.labels)
    if (!labels || !labels->contains(k) || string_at(labels, k) != v) return false;
  const json::object* allocatable = object_at(object_at(node, "status"), "allocatable");
  for (const auto& [k, v] : wants.resources)
    if (string_at(allocatable, k) != v) return false;
  if (!wants.kernel_version.empty() && string_at(object_at(object_at(node, "status"), "nodeInfo"),
                                                 "kernelVersion") != wants.kernel_version)
    return false;
  return ready(node);
}

void report_operators(ControllerKit& kit) {
  bool any = false;
  for (const char* key : operator_kinds()) any = any || !kit.store().bucket(key).empty();
  if (!any) return;
  std::vector<StoredObject> nodes = all(kit, "/nodes");
  report_profiles(kit);
  report_pools(kit, nodes);
  report_sriov(kit, nodes);
  report_gpus(kit, nodes);
}

}  // namespace planter::sim
