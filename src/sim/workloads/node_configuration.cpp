// Node configuration, as node-configuration operators do it. What a node is to have comes from
// its pool's configuration (a planter Cluster's kernelConfig and memoryConfig, read by the
// provisioner into NodePool::Configuration; such nodes register cordoned) and from the operators'
// objects in the cluster (node_operators.h: PerformanceProfile, SriovNetworkNodePolicy,
// ClusterPolicy, KMM Module). After --configure-delay the first node that lacks some of it goes
// NotReady as it reboots, then comes back after --reboot-time with the labels, allocatable and
// capacity and kernel, Ready and uncordoned; then the next one, one node at a time, as a
// MachineConfigPool rolls out with maxUnavailable 1. The operators' status follows each step.
// Level-based: a node counts as configured when it has all of it, so a cluster restored from
// --state-dir goes on where it stopped, and an operator object that changes is rolled out again.
//
// It also plays the proof of concept's network providers: a WAN or a Network is Ready once it
// exists (docs/node-configuration.md says what a real implementation would do).
#include <algorithm>
#include <boost/json/object.hpp>

#include "sim/audit.h"
#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/node_operators.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kNodeConfigurator = "node-configuration";
constexpr const char* kRebootReason = "KubeletNotReady";
constexpr const char* kRebootMessage = "node is rebooting into its configuration";

json::array without_taints(const json::object& spec, std::initializer_list<std::string_view> keys) {
  json::array kept;
  if (auto* taints = spec.if_contains("taints"); taints && taints->is_array())
    for (const json::value& t : taints->as_array()) {
      std::string key = t.is_object() ? string_at(t.as_object(), "key") : "";
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) kept.push_back(t);
    }
  return kept;
}

class NodeConfiguration : public WorkloadController {
 public:
  explicit NodeConfiguration(ControllerKit& kit) : kit_(kit) {
    for (const auto& [pool, name] : pool_nodes(kit_.cluster())) pools_[name] = pool;
    soon();
    for (const char* key : operator_kinds())
      kit_.watch(key, [this](const Change&) {
        soon();
        report_soon();
      });
    // A node that changes may change what the pools say (a node added, or Ready again).
    kit_.watch("/nodes", [this](const Change&) { report_soon(); });
    for (const char* key : {"planter.nephio.org/wans", "planter.nephio.org/networks"}) {
      kit_.watch(key, [this, key](const Change& ch) {
        if (ch.type == EventType::kDeleted) return;
        std::string ns = ch.ns, name = meta_string(*ch.object, "name");
        kit_.after(std::chrono::milliseconds(0), [this, key, ns, name] { ready(key, ns, name); });
      });
      std::vector<std::pair<std::string, std::string>> existing;
      for (const auto& [_, o] : kit_.store().bucket(key))
        existing.emplace_back(meta_string(*o, "namespace"), meta_string(*o, "name"));
      for (const auto& object : existing)
        kit_.after(std::chrono::milliseconds(0),
                   [this, key, object] { ready(key, object.first, object.second); });
    }
  }

 private:
  // What `node` is to have: its pool's configuration and what the operators want of it.
  NodeWants wants(const json::object& node) {
    NodeWants w = operators_want(kit_, node);
    if (auto it = pools_.find(meta_string(node, "name")); it != pools_.end())
      w.merge(it->second->configuration);
    return w;
  }

  // The rollout goes on after --configure-delay, unless it is going on already.
  void soon() {
    if (rolling_) return;
    rolling_ = true;
    kit_.after(kit_.cluster().options().configure_delay, [this] { next(); });
  }

  void report_soon() {
    if (report_posted_) return;
    report_posted_ = true;
    kit_.after(std::chrono::milliseconds(0), [this] {
      report_posted_ = false;
      report_operators(kit_);
    });
  }

  // Reboots the first node that lacks what it is to have; then, after a pause, the next.
  void next() {
    std::vector<std::string> names;
    for (const auto& [_, node] : kit_.store().bucket("/nodes"))
      names.push_back(meta_string(*node, "name"));
    for (const std::string& name : names) {
      StoredObject node = kit_.store().get("/nodes", "", name);
      if (!node) continue;
      NodeWants w = wants(*node);
      if (w.empty() || node_has(*node, w)) continue;
      reboot(name);  // the node's changes report the operators' status (the /nodes watch)
      kit_.after(kit_.cluster().options().reboot_time, [this, name] {
        come_back(name);
        kit_.after(kit_.cluster().options().configure_delay, [this] { next(); });
      });
      return;
    }
    rolling_ = false;
  }

  // NotReady, with the taint the node lifecycle controller adds for it.
  void reboot(const std::string& name) {
    StoredObject node = kit_.store().get("/nodes", "", name);
    if (!node) return;
    json::object cur = *node;
    json::object& spec =
        cur["spec"].is_object() ? cur["spec"].as_object() : cur["spec"].emplace_object();
    json::array taints = without_taints(spec, {"node.kubernetes.io/not-ready"});
    taints.push_back(json::object{{"key", "node.kubernetes.io/not-ready"},
                                  {"effect", "NoSchedule"},
                                  {"timeAdded", kit_.now()}});
    spec["unschedulable"] = true;
    spec["taints"] = std::move(taints);
    if (!write_node(name, cur)) return;
    set_ready(name, "False", kRebootReason, kRebootMessage, nullptr);
  }

  // Back from the reboot, as a kubelet comes back: Ready with its new allocatable first, then
  // its labels, and uncordoned last (never schedulable before it has what it was rebooted for).
  void come_back(const std::string& name) {
    StoredObject node = kit_.store().get("/nodes", "", name);
    if (!node) return;
    NodeWants c = wants(*node);
    set_ready(name, "True", "KubeletReady", "kubelet is posting ready status", &c);
    node = kit_.store().get("/nodes", "", name);
    if (!node) return;
    json::object cur = *node;
    json::object& meta = cur["metadata"].as_object();
    json::object& labels =
        meta["labels"].is_object() ? meta["labels"].as_object() : meta["labels"].emplace_object();
    for (const auto& [k, v] : c.labels) labels[k] = v;
    json::object& spec =
        cur["spec"].is_object() ? cur["spec"].as_object() : cur["spec"].emplace_object();
    spec.erase("unschedulable");
    json::array taints =
        without_taints(spec, {"node.kubernetes.io/not-ready", "node.kubernetes.io/unschedulable"});
    if (taints.empty())
      spec.erase("taints");
    else
      spec["taints"] = std::move(taints);
    if (!write_node(name, cur)) return;
    kit_.ready_event(audit_id("v1", "Node", "", name), "configured");
  }

  bool write_node(const std::string& name, const json::object& body) {
    Response r =
        kit_.write("PUT", "/api/v1/nodes/" + name, "application/json", body, kNodeConfigurator);
    return r.status < 300;
  }

  void set_ready(const std::string& name, std::string_view status, std::string_view reason,
                 std::string_view message, const NodeWants* c) {
    StoredObject node = kit_.store().get("/nodes", "", name);
    if (!node) return;
    const json::object* old = object_at(*node, "status");
    json::object st = old ? *old : json::object{};
    json::array conditions;
    if (auto* list = st.if_contains("conditions"); list && list->is_array())
      for (const json::value& cond : list->as_array()) {
        if (cond.is_object() && string_at(cond.as_object(), "type") == "Ready") {
          json::object ready = kit_.condition(old, "Ready", status, reason, message);
          ready["lastHeartbeatTime"] = kit_.now();
          conditions.push_back(std::move(ready));
        } else {
          conditions.push_back(cond);
        }
      }
    st["conditions"] = std::move(conditions);
    if (c) {
      for (const char* which : {"allocatable", "capacity"}) {
        json::object& list =
            st[which].is_object() ? st[which].as_object() : st[which].emplace_object();
        for (const auto& [k, v] : c->resources) list[k] = v;
      }
      if (!c->kernel_version.empty())
        if (auto* info = st.if_contains("nodeInfo"); info && info->is_object()) {
          info->as_object()["kernelVersion"] = c->kernel_version;
          info->as_object()["bootID"] = safe_hash(name + c->kernel_version, 16);
        }
    }
    kit_.put_status("/api/v1/nodes/" + name, *node, std::move(st), "kubelet");
  }

  // A WAN or Network: Ready once it exists.
  void ready(const char* key, const std::string& ns, const std::string& name) {
    StoredObject o = kit_.store().get(key, ns, name);
    if (!o || !meta_string(*o, "deletionTimestamp").empty()) return;
    const json::object* old = object_at(*o, "status");
    json::object st = old ? *old : json::object{};
    bool wan = std::string_view(key).ends_with("wans");
    st["conditions"] =
        json::array{kit_.condition(old, "Ready", "True", wan ? "Attached" : "Provisioned",
                                   wan ? "the cluster's site is attached (planter sim)"
                                       : "the network's attachment is defined (planter sim)")};
    if (auto* meta = object_at(*o, "metadata"); meta && meta->contains("generation"))
      st["observedGeneration"] = meta->at("generation");
    kit_.put_status(object_path(key, *o), *o, std::move(st),
                    wan ? "wan-controller" : "network-controller");
  }

  ControllerKit& kit_;
  std::map<std::string, const NodePool*> pools_;  // node name -> its pool
  bool rolling_ = false;
  bool report_posted_ = false;
};

}  // namespace

std::unique_ptr<WorkloadController> start_node_configuration(ControllerKit& kit) {
  return std::make_unique<NodeConfiguration>(kit);
}

}  // namespace planter::sim
