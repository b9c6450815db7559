// The kubelets of every node: a pod bound to a node waits in ContainerCreating for
// --workload-delay, then runs (Running, Ready, a pod IP), or, when it does not restart
// (restartPolicy Never or OnFailure, as Job pods), completes (Succeeded). No container runs:
// the images are not pulled and the commands are not run.
#include <boost/json/object.hpp>
#include <map>
#include <set>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

class Kubelet : public WorkloadController {
 public:
  explicit Kubelet(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    kit_.watch("/pods", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted) {
        ips_.erase(meta_string(*ch.object, "uid"));
        return;
      }
      if (!string_at(object_at(*ch.object, "spec"), "nodeName").empty())
        queue_.add(ch.ns, meta_string(*ch.object, "name"));
    });
    for (const auto& [_, pod] : kit_.store().bucket("/pods"))
      queue_.add(meta_string(*pod, "namespace"), meta_string(*pod, "name"));
  }

 private:
  static std::string path(const std::string& ns, const std::string& name) {
    return "/api/v1/namespaces/" + ns + "/pods/" + name;
  }

  static std::vector<const json::object*> containers(const json::object& pod, const char* field) {
    std::vector<const json::object*> out;
    const json::object* spec = object_at(pod, "spec");
    if (auto* cs = spec ? spec->if_contains(field) : nullptr; cs && cs->is_array())
      for (const auto& c : cs->as_array())
        if (c.is_object()) out.push_back(&c.as_object());
    return out;
  }

  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject pod = kit_.store().get("/pods", ns, name);
    if (!pod || pod_deleting(*pod) || pod_terminal(*pod)) return;
    std::string node = string_at(object_at(*pod, "spec"), "nodeName");
    if (node.empty()) return;
    const json::object* status = object_at(*pod, "status");
    std::string uid = meta_string(*pod, "uid");
    if (string_at(status, "phase") == "Running") return;
    if (!status || !status->contains("containerStatuses")) {
      kit_.put_status(path(ns, name), *pod, creating_status(*pod), "kubelet");
    }
    if (!started_.insert(uid).second) return;
    kit_.after(kit_.cluster().options().workload_delay, [this, ns, name, uid] {
      started_.erase(uid);
      StoredObject cur = kit_.store().get("/pods", ns, name);
      if (!cur || meta_string(*cur, "uid") != uid || pod_deleting(*cur) || pod_terminal(*cur))
        return;
      bool completes = string_at(object_at(*cur, "spec"), "restartPolicy") != "Always" &&
                       !string_at(object_at(*cur, "spec"), "restartPolicy").empty();
      kit_.put_status(path(ns, name), *cur,
                      completes ? succeeded_status(*cur) : running_status(*cur), "kubelet");
      if (!completes) kit_.ready_event(audit_id("v1", "Pod", ns, name), "available");
    });
  }

  json::object base_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    json::object st;
    st["hostIP"] = node_ip(string_at(object_at(pod, "spec"), "nodeName"));
    st["hostIPs"] = json::array{json::object{{"ip", st["hostIP"]}}};
    st["startTime"] =
        old && old->contains("startTime") ? old->at("startTime") : json::value(kit_.now());
    st["qosClass"] = string_at(old, "qosClass").empty() ? "BestEffort" : string_at(old, "qosClass");
    return st;
  }

  json::object creating_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    json::object st = base_status(pod);
    st["phase"] = "Pending";
    std::string names;
    json::array statuses;
    for (const auto* c : containers(pod, "containers")) {
      std::string cname = string_at(c, "name");
      names += (names.empty() ? "" : " ") + cname;
      statuses.push_back(json::object{{"name", cname},
                                      {"image", string_at(c, "image")},
                                      {"imageID", ""},
                                      {"ready", false},
                                      {"started", false},
                                      {"restartCount", 0},
                                      {"state", {{"waiting", {{"reason", "ContainerCreating"}}}}}});
    }
    std::string unready = "containers with unready status: [" + names + "]";
    st["conditions"] =
        json::array{kit_.condition(old, "PodReadyToStartContainers", "False", "", ""),
                    kit_.condition(old, "Initialized", "True", "", ""),
                    kit_.condition(old, "Ready", "False", "ContainersNotReady", unready),
                    kit_.condition(old, "ContainersReady", "False", "ContainersNotReady", unready),
                    kit_.condition(old, "PodScheduled", "True", "", "")};
    st["containerStatuses"] = std::move(statuses);
    return st;
  }

  json::array container_statuses(const json::object& pod, const char* field, bool running,
                                 const std::string& t) {
    json::array out;
    for (const auto* c : containers(pod, field)) {
      std::string cname = string_at(c, "name");
      std::string image = string_at(c, "image");
      json::object state;
      if (running)
        state = {{"running", {{"startedAt", t}}}};
      else
        state = {{"terminated",
                  {{"exitCode", 0}, {"reason", "Completed"}, {"startedAt", t}, {"finishedAt", t}}}};
      out.push_back(json::object{
          {"name", cname},
          {"image", image},
          {"imageID", image},
          {"containerID", "containerd://" + safe_hash(meta_string(pod, "uid") + cname, 24)},
          {"ready", running},
          {"started", running},
          {"restartCount", 0},
          {"state", std::move(state)}});
    }
    return out;
  }

  json::object running_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    std::string t = kit_.now();
    json::object st = base_status(pod);
    st["phase"] = "Running";
    st["conditions"] = json::array{kit_.condition(old, "PodReadyToStartContainers", "True", "", ""),
                                   kit_.condition(old, "Initialized", "True", "", ""),
                                   kit_.condition(old, "Ready", "True", "", ""),
                                   kit_.condition(old, "ContainersReady", "True", "", ""),
                                   kit_.condition(old, "PodScheduled", "True", "", "")};
    std::string ip = pod_ip(meta_string(pod, "uid"));
    st["podIP"] = ip;
    st["podIPs"] = json::array{json::object{{"ip", ip}}};
    auto init = container_statuses(pod, "initContainers", false, t);
    if (!init.empty()) st["initContainerStatuses"] = std::move(init);
    st["containerStatuses"] = container_statuses(pod, "containers", true, t);
    return st;
  }

  json::object succeeded_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    std::string t = kit_.now();
    json::object st = base_status(pod);
    st["phase"] = "Succeeded";
    st["conditions"] =
        json::array{kit_.condition(old, "PodReadyToStartContainers", "False", "", ""),
                    kit_.condition(old, "Initialized", "True", "PodCompleted", ""),
                    kit_.condition(old, "Ready", "False", "PodCompleted", ""),
                    kit_.condition(old, "ContainersReady", "False", "PodCompleted", ""),
                    kit_.condition(old, "PodScheduled", "True", "", "")};
    std::string ip = pod_ip(meta_string(pod, "uid"));
    st["podIP"] = ip;
    st["podIPs"] = json::array{json::object{{"ip", ip}}};
    st["containerStatuses"] = container_statuses(pod, "containers", false, t);
    return st;
  }

  std::string node_ip(const std::string& node) {
    StoredObject n = kit_.store().get("/nodes", "", node);
    const json::object* st = n ? object_at(*n, "status") : nullptr;
    if (auto* a = st ? st->if_contains("addresses") : nullptr; a && a->is_array())
      for (const auto& addr : a->as_array())
        if (addr.is_object() && string_at(addr.as_object(), "type") == "InternalIP")
          return string_at(addr.as_object(), "address");
    return "";
  }

  std::string pod_ip(const std::string& uid) {
    auto [it, fresh] = ips_.try_emplace(uid);
    if (fresh) {
      uint64_t n = next_ip_++;
      it->second =
          "10.244." + std::to_string(1 + (n / 250) % 250) + "." + std::to_string(2 + n % 250);
    }
    return it->second;
  }

  ControllerKit& kit_;
  WorkQueue queue_;
  std::set<std::string> started_;           // uids waiting for --workload-delay
  std::map<std::string, std::string> ips_;  // pod uid -> pod IP
  uint64_t next_ip_ = 0;
};

}  // namespace

std::unique_ptr<WorkloadController> start_kubelet(ControllerKit& kit) {
  return std::make_unique<Kubelet>(kit);
}

}  // namespace planter::sim
