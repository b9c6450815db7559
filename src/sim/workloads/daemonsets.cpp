// DaemonSets: one pod on every node whose labels the pod's nodeSelector and required node
// affinity admit and whose NoSchedule and NoExecute taints it tolerates, with the tolerations
// the DaemonSet controller adds (not-ready, unreachable, disk-, memory- and pid-pressure,
// unschedulable, and network-unavailable for host-network pods). Each pod is pinned to its node
// by node affinity on metadata.name and placed by the scheduler, as since Kubernetes 1.12.
// Pods on nodes they may no longer run on go; a template change replaces every pod.
#include <boost/json/object.hpp>
#include <map>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kDaemonSetController = "daemon-set-controller";

// The node a daemon pod is for: where it runs, or the node its affinity pins it to.
std::string node_of(const json::object& pod) {
  std::string node = string_at(object_at(pod, "spec"), "nodeName");
  if (!node.empty()) return node;
  const json::object* na = object_at(object_at(object_at(pod, "spec"), "affinity"), "nodeAffinity");
  const json::object* req = object_at(na, "requiredDuringSchedulingIgnoredDuringExecution");
  auto* terms = req ? req->if_contains("nodeSelectorTerms") : nullptr;
  if (!terms || !terms->is_array()) return "";
  for (const auto& t : terms->as_array()) {
    auto* fields = t.is_object() ? t.as_object().if_contains("matchFields") : nullptr;
    if (!fields || !fields->is_array()) continue;
    for (const auto& f : fields->as_array()) {
      auto* values = f.is_object() ? f.as_object().if_contains("values") : nullptr;
      if (f.is_object() && string_at(f.as_object(), "key") == "metadata.name" && values &&
          values->is_array() && !values->as_array().empty() && values->as_array()[0].is_string())
        return std::string(values->as_array()[0].as_string());
    }
  }
  return "";
}

// The template's pod spec with the tolerations the DaemonSet controller adds.
json::object daemon_spec(const json::object& tmpl) {
  json::object spec;
  if (const json::object* s = object_at(tmpl, "spec")) spec = *s;
  auto& tols_v = spec["tolerations"];
  if (!tols_v.is_array()) tols_v = json::array{};
  json::array& tols = tols_v.as_array();
  auto add = [&](const char* key, const char* effect) {
    for (const auto& t : tols)
      if (t.is_object() && string_at(t.as_object(), "key") == key &&
          string_at(t.as_object(), "effect") == effect)
        return;
    tols.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  auto* host_network = spec.if_contains("hostNetwork");
  if (host_network && host_network->is_bool() && host_network->as_bool())
    add("node.kubernetes.io/network-unavailable", "NoSchedule");
  return spec;
}

class DaemonSetController : public WorkloadController {
 public:
  explicit DaemonSetController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow_owned("/pods", "DaemonSet");
    queue_.follow("apps/daemonsets");
    // A node coming, going or changing may change where every DaemonSet runs.
    kit_.watch("/nodes", [this](const Change&) { all(); });
  }

 private:
  void all() {
    for (const auto& [_, ds] : kit_.store().bucket("apps/daemonsets"))
      queue_.add(meta_string(*ds, "namespace"), meta_string(*ds, "name"));
  }

  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject ds = kit_.store().get("apps/daemonsets", ns, name);
    if (!ds || !meta_string(*ds, "deletionTimestamp").empty()) return;
    const json::object* tmpl = object_at(object_at(*ds, "spec"), "template");
    if (!tmpl) return;
    json::object spec = daemon_spec(*tmpl);
    int64_t gen = generation_of(*ds);
    std::string revision = template_hash(*tmpl);

    std::map<std::string, std::vector<StoredObject>> by_node;
    for (auto& pod : pods_owned_by(kit_.store(), meta_string(*ds, "uid")))
      if (!pod_deleting(*pod) && !pod_terminal(*pod)) by_node[node_of(*pod)].push_back(pod);

    int64_t desired = 0, scheduled = 0, misscheduled = 0, ready = 0, updated = 0;
    const sched::RequiredNodeAffinity required(spec);
    for (const auto& [_, node] : kit_.store().bucket("/nodes")) {
      std::string node_name = meta_string(*node, "name");
      bool should_run =
          required.matches(*node) && !sched::first_untolerated(spec, sched::taints_of(*node));
      auto it = by_node.find(node_name);
      std::vector<StoredObject> pods;
      if (it != by_node.end()) {
        pods = std::move(it->second);
        by_node.erase(it);
      }
      if (!should_run) {
        if (!pods.empty()) ++misscheduled;
        for (const auto& p : pods) delete_pod(kit_, *ds, *p, kDaemonSetController);
        continue;
      }
      ++desired;
      // One pod per node, of the current template.
      for (size_t i = 1; i < pods.size(); ++i)
        delete_pod(kit_, *ds, *pods[i], kDaemonSetController);
      if (!pods.empty()) {
        const json::object* labels = object_at(object_at(*pods[0], "metadata"), "labels");
        if (string_at(labels, "controller-revision-hash") != revision) {
          delete_pod(kit_, *ds, *pods[0], kDaemonSetController);
          pods.clear();
        }
      }
      if (pods.empty()) {
        create_pod(kit_, *ds, pod_for(*ds, *tmpl, spec, node_name, revision, gen),
                   kDaemonSetController);
        continue;
      }
      ++scheduled;
      ++updated;
      if (pod_ready(*pods[0])) ++ready;
    }
    // Pods of nodes that are gone.
    for (const auto& [_, pods] : by_node)
      for (const auto& p : pods) delete_pod(kit_, *ds, *p, kDaemonSetController);

    const json::object* old = object_at(*ds, "status");
    json::object st{{"currentNumberScheduled", scheduled},
                    {"desiredNumberScheduled", desired},
                    {"numberMisscheduled", misscheduled},
                    {"numberReady", ready},
                    {"observedGeneration", gen}};
    if (ready) st["numberAvailable"] = ready;
    if (desired - ready) st["numberUnavailable"] = desired - ready;
    if (updated) st["updatedNumberScheduled"] = updated;
    bool done = ready == desired && scheduled == desired;
    bool was_done = int_at(old, "observedGeneration", -1) == gen &&
                    int_at(old, "numberReady") == desired &&
                    int_at(old, "desiredNumberScheduled") == desired;
    kit_.put_status("/apis/apps/v1/namespaces/" + ns + "/daemonsets/" + name, *ds, std::move(st),
                    kDaemonSetController);
    if (done && !was_done)
      kit_.ready_event(audit_id("apps/v1", "DaemonSet", ns, name), "available");
  }

  json::object pod_for(const json::object& ds, const json::object& tmpl, json::object spec,
                       const std::string& node, const std::string& revision, int64_t gen) {
    json::object extra{{"controller-revision-hash", revision},
                       {"pod-template-generation", std::to_string(gen)}};
    json::object pod = pod_from_template(tmpl, ds, extra, "", meta_string(ds, "name") + "-");
    // Required node affinity replaced by the node's name; preferences kept.
    auto& affinity = spec["affinity"];
    if (!affinity.is_object()) affinity = json::object{};
    auto& na = affinity.as_object()["nodeAffinity"];
    if (!na.is_object()) na = json::object{};
    na.as_object()["requiredDuringSchedulingIgnoredDuringExecution"] = json::object{
        {"nodeSelectorTerms",
         json::array{json::object{
             {"matchFields",
              json::array{json::object{{"key", "metadata.name"},
                                       {"operator", "In"},
                                       {"values", json::array{json::value(node)}}}}}}}}};
    pod["spec"] = std::move(spec);
    return pod;
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_daemonset_controller(ControllerKit& kit) {
  return std::make_unique<DaemonSetController>(kit);
}

}  // namespace planter::sim
