// Nodes: the cluster's node pools become Ready nodes once, when the cluster starts (a node
// deleted later stays deleted, a node created through the API is served like these; a node of a
// pool with a configuration registers cordoned, for node_configuration.cpp); when a
// node is deleted, or a pod is bound to a node that does not exist, the pod garbage collector
// deletes the pods bound to it, and their controllers make new ones elsewhere.
#include <boost/json/object.hpp>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

class NodeLifecycle : public WorkloadController {
 public:
  explicit NodeLifecycle(ControllerKit& kit) : kit_(kit) {
    ensure_nodes();
    kit_.watch("/nodes", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted) collect_pods_of(meta_string(*ch.object, "name"));
    });
    // An orphan: a pod bound (pods/binding takes any name) to a node that does not exist. The
    // pod garbage collector deletes it; kube-controller-manager's waits out a quarantine for its
    // informer's lag, which the sim's store does not have.
    kit_.watch("/pods", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted) return;
      std::string node = string_at(object_at(*ch.object, "spec"), "nodeName");
      if (node.empty() || kit_.store().get("/nodes", "", node)) return;
      delete_pod(*ch.object);
    });
  }

 private:
  void ensure_nodes() {
    Cluster& c = kit_.cluster();
    int index = 0;
    for (const auto& [pool, name] : pool_nodes(c)) {
      ++index;
      if (c.store().get("/nodes", "", name)) continue;
      kit_.write("POST", "/api/v1/nodes", "application/json", node(*pool, name, index), "kubelet");
    }
  }

  json::object node(const NodePool& pool, const std::string& name, int index) {
    const ClusterOptions& opts = kit_.cluster().options();
    json::object labels{{"kubernetes.io/hostname", name},
                        {"kubernetes.io/os", "linux"},
                        {"kubernetes.io/arch", "amd64"},
                        {"node.kubernetes.io/instance-type", "planter-sim"}};
    if (index == 1) labels["node-role.kubernetes.io/control-plane"] = "";
    if (opts.zones > 0)
      labels["topology.kubernetes.io/zone"] = "zone-" + std::to_string((index - 1) % opts.zones);
    for (const auto& [k, v] : pool.labels) labels[k] = v;
    std::string ip =
        "172.18." + std::to_string(index / 250) + "." + std::to_string(index % 250 + 1);
    json::object resources{{"cpu", pool.cpu.empty() ? opts.node_cpu : pool.cpu},
                           {"memory", pool.memory.empty() ? opts.node_memory : pool.memory},
                           {"pods", std::to_string(pool.pods > 0 ? pool.pods : opts.node_pods)},
                           {"ephemeral-storage", "100Gi"}};
    for (const auto& [k, v] : opts.node_resources) resources[k] = v;
    for (const auto& [k, v] : pool.resources) resources[k] = v;
    std::string t = kit_.now();
    auto cond = [&](const char* type, const char* status, const char* reason, const char* message) {
      return json::object{{"type", type},           {"status", status},
                          {"lastHeartbeatTime", t}, {"lastTransitionTime", t},
                          {"reason", reason},       {"message", message}};
    };
    std::string cidr = "10.244." + std::to_string(index) + ".0/24";
    json::object spec{{"podCIDR", cidr}, {"podCIDRs", json::array{json::value(cidr)}}};
    json::array taints;
    for (const auto& taint : pool.taints) {
      json::object o{{"key", taint.key}, {"effect", taint.effect}};
      if (!taint.value.empty()) o["value"] = taint.value;
      taints.push_back(std::move(o));
    }
    // A node that is still to be configured registers cordoned, as a provisioner leaves it for
    // its configuration (node_configuration.cpp) to take over.
    if (!pool.configuration.empty()) {
      spec["unschedulable"] = true;
      taints.push_back(json::object{{"key", "node.kubernetes.io/unschedulable"},
                                    {"effect", "NoSchedule"},
                                    {"timeAdded", kit_.now()}});
    }
    if (!taints.empty()) spec["taints"] = std::move(taints);
    return json::object{
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
        {"spec", std::move(spec)},
        {"status",
         {{"capacity", resources},
          {"allocatable", resources},
          {"conditions",
           json::array{cond("MemoryPressure", "False", "KubeletHasSufficientMemory",
                            "kubelet has sufficient memory available"),
                       cond("DiskPressure", "False", "KubeletHasNoDiskPressure",
                            "kubelet has no disk pressure"),
                       cond("PIDPressure", "False", "KubeletHasSufficientPID",
                            "kubelet has sufficient PID available"),
                       cond("Ready", "True", "KubeletReady", "kubelet is posting ready status")}},
          {"addresses", json::array{json::object{{"type", "InternalIP"}, {"address", ip}},
                                    json::object{{"type", "Hostname"}, {"address", name}}}},
          {"nodeInfo",
           {{"architecture", "amd64"},
            {"bootID", safe_hash(name + "boot", 16)},
            {"containerRuntimeVersion", "containerd://1.7.24"},
            {"kernelVersion", "6.1.0-planter-sim"},
            {"kubeProxyVersion", "v1.32.0"},
            {"kubeletVersion", "v1.32.0"},
            {"machineID", safe_hash(name + "machine", 16)},
            {"operatingSystem", "linux"},
            {"osImage", "planter sim"},
            {"systemUUID", safe_hash(name + "uuid", 16)}}}}}};
  }

  void collect_pods_of(const std::string& node) {
    std::vector<StoredObject> victims;
    for (const auto& [_, pod] : kit_.store().bucket("/pods"))
      if (string_at(object_at(*pod, "spec"), "nodeName") == node) victims.push_back(pod);
    for (const auto& pod : victims) delete_pod(*pod);
  }

  void delete_pod(const json::object& pod) {
    if (!meta_string(pod, "deletionTimestamp").empty()) return;
    kit_.write(
        "DELETE",
        "/api/v1/namespaces/" + meta_string(pod, "namespace") + "/pods/" + meta_string(pod, "name"),
        "application/json", json::object{}, "pod-garbage-collector");
  }

  ControllerKit& kit_;
};

}  // namespace

std::vector<std::pair<const NodePool*, std::string>> pool_nodes(Cluster& c) {
  std::vector<std::pair<const NodePool*, std::string>> out;
  int unnamed = 0;
  for (const auto& pool : c.options().nodes)
    for (int i = 1; i <= pool.count; ++i)
      out.emplace_back(&pool, pool.name.empty()
                                  ? c.name() + "-node-" + std::to_string(++unnamed)
                                  : c.name() + "-" + pool.name + "-" + std::to_string(i));
  return out;
}

std::unique_ptr<WorkloadController> start_node_lifecycle(ControllerKit& kit) {
  return std::make_unique<NodeLifecycle>(kit);
}

}  // namespace planter::sim
