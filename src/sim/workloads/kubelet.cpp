// The kubelets of every node: a pod bound to a node waits in ContainerCreating for
// --workload-delay, then runs (Running, Ready, a pod IP), or, when it does not restart
// (restartPolicy Never or OnFailure, as Job pods), completes (Succeeded). No container runs:
// the images are not pulled and the commands are not run. As it starts a pod it records what a
// kubelet records for each container (Pulling and Pulled for imagePullPolicy Always, else Pulled:
// the image already present; Created, Started).
//
// A ReadWriteOnce volume without node affinity (StorageClass standard) is attached to one node
// at a time: a pod on another node that uses it waits in ContainerCreating with a
// FailedAttachVolume event ("Multi-Attach error") until the pods using it elsewhere are gone,
// as the attach/detach controller and the kubelet make it wait.
//
// A pod whose claim is not bound to a volume, or is bound to one whose node affinity does not
// admit the pod's node, cannot be mounted: it waits in ContainerCreating with kubelet's
// FailedMount event, and starts once the claim is bound there (a scheduler that bound the pod
// before its WaitForFirstConsumer claims is caught here, as a real kubelet catches it).
#include <algorithm>
#include <boost/json/object.hpp>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/pod_resources.h"
#include "sim/kube_scheduler/volume_binding.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

// A duration as Go's time.Duration prints one truncated to milliseconds: "0s", "250ms", "1.5s",
// "2m0s", as kubelet's messages show it.
std::string go_duration(std::chrono::milliseconds d) {
  int64_t ms = std::max<int64_t>(d.count(), 0);
  if (ms == 0) return "0s";
  if (ms < 1000) return std::to_string(ms) + "ms";
  std::string out;
  if (ms >= 3'600'000) out += std::to_string(ms / 3'600'000) + "h";
  if (ms >= 60'000) out += std::to_string(ms / 60'000 % 60) + "m";
  std::string frac = std::to_string(1000 + ms % 1000).substr(1);
  while (!frac.empty() && frac.back() == '0') frac.pop_back();
  return out + std::to_string(ms / 1000 % 60) + (frac.empty() ? "" : "." + frac) + "s";
}

class Kubelet : public WorkloadController {
 public:
  explicit Kubelet(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    kit_.watch("/pods", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted || pod_terminal(*ch.object)) {
        // Pods waiting for a volume held elsewhere may go now.
        for (const auto& [ns, name] : waiting_for_volume_) queue_.add(ns, name);
        waiting_for_volume_.clear();
      }
      std::string node = string_at(object_at(*ch.object, "spec"), "nodeName");
      if (ch.type == EventType::kDeleted) {
        ips_.erase(meta_string(*ch.object, "uid"));
        if (auto on = on_node_.find(node); on != on_node_.end()) {
          on->second.erase({ch.ns, meta_string(*ch.object, "name")});
          if (on->second.empty()) on_node_.erase(on);
        }
        return;
      }
      if (!node.empty()) on_node_[node].emplace(ch.ns, meta_string(*ch.object, "name"));
      if (!node.empty()) queue_.add(ch.ns, meta_string(*ch.object, "name"));
    });
    // Pods waiting to mount a claim may go once it is bound.
    auto mounts = [this](const Change&) {
      for (const auto& [ns, name] : waiting_for_mount_) queue_.add(ns, name);
      waiting_for_mount_.clear();
    };
    kit_.watch("/persistentvolumeclaims", mounts);
    kit_.watch("/persistentvolumes", mounts);
    for (const auto& [_, pod] : kit_.store().bucket("/pods"))
      queue_.add(meta_string(*pod, "namespace"), meta_string(*pod, "name"));
  }

 private:
  static std::string path(const std::string& ns, const std::string& name) {
    return "/api/v1/namespaces/" + ns + "/pods/" + name;
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
    if (std::string why = unmountable(*pod, node); !why.empty()) {
      waiting_for_mount_.emplace(ns, name);
      kit_.events("kubelet").record(*pod, "Warning", "FailedMount", why);
      return;
    }
    if (auto holder = volume_held_elsewhere(*pod)) {
      waiting_for_volume_.emplace(ns, name);
      kit_.events("attachdetach-controller")
          .record(*pod, "Warning", "FailedAttachVolume",
                  "Multi-Attach error for volume \"" + holder->first +
                      "\" Volume is already used by pod(s) " + holder->second);
      return;
    }
    if (!started_.contains(uid) && refused_for_room(*pod, node)) return;
    if (!started_.insert(uid).second) return;
    kit_.after(kit_.cluster().options().workload_delay, [this, ns, name, uid] {
      started_.erase(uid);
      StoredObject cur = kit_.store().get("/pods", ns, name);
      if (!cur || meta_string(*cur, "uid") != uid || pod_deleting(*cur) || pod_terminal(*cur))
        return;
      bool completes = string_at(object_at(*cur, "spec"), "restartPolicy") != "Always" &&
                       !string_at(object_at(*cur, "spec"), "restartPolicy").empty();
      record_starts(*cur);
      kit_.put_status(path(ns, name), *cur, started_status(*cur, completes), "kubelet");
      if (!completes) kit_.ready_event(audit_id("v1", "Pod", ns, name), "available");
    });
  }

  // What a kubelet records as it starts each container, init containers first: the image pulled
  // (imagePullPolicy Always: the sim fetches nothing, so in the time the kubelet took, 0 bytes)
  // or already present, the container created, then started.
  void record_starts(const json::object& pod) {
    EventRecorder& events = kit_.events("kubelet");
    std::string took = go_duration(kit_.cluster().options().workload_delay);
    for (const char* field : {"initContainers", "containers"})
      for (const json::object* c : containers_in(object_at(pod, "spec"), field)) {
        std::string name = string_at(c, "name");
        std::string image = "\"" + string_at(c, "image") + "\"";
        if (string_at(c, "imagePullPolicy") == "Always") {
          events.record(pod, "Normal", "Pulling", "Pulling image " + image);
          events.record(pod, "Normal", "Pulled",
                        "Successfully pulled image " + image + " in " + took + " (" + took +
                            " including waiting). Image size: 0 bytes.");
        } else {
          events.record(pod, "Normal", "Pulled",
                        "Container image " + image + " already present on machine");
        }
        events.record(pod, "Normal", "Created", "Created container: " + name);
        events.record(pod, "Normal", "Started", "Started container " + name);
      }
  }

  // A kubelet's admission: a pod that requests devices or hugepages, bound to a node that is not
  // Ready (rebooting), fails with UnexpectedAdmissionError; bound to a node that lacks room for
  // them, it is rejected, Failed with reason OutOf<resource>, as a real
  // kubelet rejects one that a scheduler other than the default over-committed. The pods counted
  // are those the node runs or has admitted.
  bool refused_for_room(const json::object& pod, const std::string& node_name) {
    StoredObject node = kit_.store().get("/nodes", "", node_name);
    if (!node) return false;
    sched::Resources want = sched::pod_requests(*object_at(pod, "spec"));
    if (want.scalar.empty()) return false;
    // A node rebooting into its configuration (node_configuration.cpp): its device plugins have
    // not registered again, and the device manager fails the pod as after a reboot.
    const json::object* ready = find_condition(object_at(*node, "status"), "Ready");
    if (ready && string_at(ready, "status") != "True") {
      const std::string& device = want.scalar.begin()->first;
      json::object st = base_status(pod);
      st["phase"] = "Failed";
      st["reason"] = "UnexpectedAdmissionError";
      st["message"] =
          "Allocate failed due to no healthy devices present; cannot allocate "
          "unhealthy devices " +
          device + ", which is unexpected";
      kit_.put_status(path(meta_string(pod, "namespace"), meta_string(pod, "name")), pod, st,
                      "kubelet");
      kit_.events("kubelet").record(pod, "Warning", "UnexpectedAdmissionError",
                                    std::string(st["message"].as_string()));
      return true;
    }
    sched::Resources have =
        sched::Resources::from_list(object_at(object_at(*node, "status"), "allocatable"));
    sched::Resources used;
    std::string uid = meta_string(pod, "uid");
    auto on = on_node_.find(node_name);
    for (const auto& [ns, name] : on == on_node_.end() ? kNone : on->second) {
      StoredObject other = kit_.store().get("/pods", ns, name);
      if (!other || meta_string(*other, "uid") == uid || pod_deleting(*other) ||
          pod_terminal(*other))
        continue;
      if (string_at(object_at(*other, "spec"), "nodeName") != node_name) continue;
      if (string_at(object_at(*other, "status"), "phase") != "Running" &&
          !started_.contains(meta_string(*other, "uid")))
        continue;
      used.add(sched::pod_requests(*object_at(*other, "spec")));
    }
    for (const auto& [name, amount] : want.scalar) {
      if (amount <= 0) continue;
      auto h = have.scalar.find(name);
      // An extended resource the node does not list is the cluster's (served by DRA, or by an
      // extender): the kubelet leaves it out (removeMissingExtendedResources).
      if (h == have.scalar.end()) continue;
      auto u = used.scalar.find(name);
      int64_t capacity = h->second;
      int64_t in_use = u == used.scalar.end() ? 0 : u->second;
      if (amount <= capacity - in_use) continue;
      json::object st = base_status(pod);
      st["phase"] = "Failed";
      st["reason"] = "OutOf" + name;
      st["message"] = "Pod was rejected: Node didn't have enough resource: " + name +
                      ", requested: " + std::to_string(amount) +
                      ", used: " + std::to_string(in_use) +
                      ", capacity: " + std::to_string(capacity);
      kit_.put_status(path(meta_string(pod, "namespace"), meta_string(pod, "name")), pod, st,
                      "kubelet");
      kit_.events("kubelet").record(pod, "Warning", "OutOf" + name,
                                    "Node didn't have enough resource: " + name);
      return true;
    }
    return false;
  }

  // Why the pod's claims cannot be mounted on `node_name` (kubelet's volume manager's words), or
  // "": a claim that is not bound to a volume, a volume that is not there, a volume whose node
  // affinity does not admit the node.
  std::string unmountable(const json::object& pod, const std::string& node_name) {
    std::string ns = meta_string(pod, "namespace");
    auto* volumes = object_at(pod, "spec")->if_contains("volumes");
    if (!volumes || !volumes->is_array()) return "";
    for (const auto& v : volumes->as_array()) {
      const json::object* ref =
          v.is_object() ? object_at(v.as_object(), "persistentVolumeClaim") : nullptr;
      if (!ref) continue;
      std::string volume = string_at(&v.as_object(), "name");
      std::string claim = string_at(ref, "claimName");
      std::string unmounted = "Unable to attach or mount volumes: unmounted volumes=[" + volume +
                              "], unattached volumes=[" + volume + "]: error processing PVC " + ns +
                              "/" + claim + ": ";
      StoredObject pvc = kit_.store().get("/persistentvolumeclaims", ns, claim);
      if (!pvc) return unmounted + "PVC not found";
      std::string bound_to = string_at(object_at(*pvc, "spec"), "volumeName");
      std::string phase = string_at(object_at(*pvc, "status"), "phase");
      if (bound_to.empty() || phase != "Bound") return unmounted + "PVC is not bound";
      StoredObject pv = kit_.store().get("/persistentvolumes", "", bound_to);
      if (!pv) return unmounted + "PV " + bound_to + " not found";
      StoredObject node = kit_.store().get("/nodes", "", node_name);
      if (node && !sched::volume_admits(*pv, *node))
        return "MountVolume.NodeAffinity check failed for volume \"" + bound_to +
               "\" : no matching NodeSelectorTerms";
    }
    return "";
  }

  // A ReadWriteOnce volume of the pod attached to another node: (volume, the pods using it).
  std::optional<std::pair<std::string, std::string>> volume_held_elsewhere(
      const json::object& pod) {
    std::string ns = meta_string(pod, "namespace");
    std::string node = string_at(object_at(pod, "spec"), "nodeName");
    auto* volumes = object_at(pod, "spec")->if_contains("volumes");
    if (!volumes || !volumes->is_array()) return std::nullopt;
    for (const auto& v : volumes->as_array()) {
      const json::object* ref =
          v.is_object() ? object_at(v.as_object(), "persistentVolumeClaim") : nullptr;
      if (!ref) continue;
      std::string claim = string_at(ref, "claimName");
      StoredObject pvc = kit_.store().get("/persistentvolumeclaims", ns, claim);
      std::string volume = pvc ? string_at(object_at(*pvc, "spec"), "volumeName") : "";
      StoredObject pv =
          volume.empty() ? nullptr : kit_.store().get("/persistentvolumes", "", volume);
      if (!pv || object_at(object_at(*pv, "spec"), "nodeAffinity")) continue;
      auto* modes = object_at(*pv, "spec")->if_contains("accessModes");
      bool rwo = modes && modes->is_array() && modes->as_array().size() == 1 &&
                 modes->as_array()[0] == "ReadWriteOnce";
      if (!rwo) continue;
      std::string users;
      for (const auto& [_, other] : kit_.store().bucket("/pods")) {
        if (meta_string(*other, "namespace") != ns || pod_deleting(*other) || pod_terminal(*other))
          continue;
        std::string other_node = string_at(object_at(*other, "spec"), "nodeName");
        if (other_node.empty() || other_node == node) continue;
        // Attached there: it runs, or it is starting.
        if (string_at(object_at(*other, "status"), "phase") != "Running" &&
            !started_.contains(meta_string(*other, "uid")))
          continue;
        auto* ov = object_at(*other, "spec")->if_contains("volumes");
        if (!ov || !ov->is_array()) continue;
        for (const auto& o : ov->as_array()) {
          const json::object* oref =
              o.is_object() ? object_at(o.as_object(), "persistentVolumeClaim") : nullptr;
          if (oref && string_at(oref, "claimName") == claim)
            users += (users.empty() ? "" : ", ") + meta_string(*other, "name");
        }
      }
      if (!users.empty()) return std::make_pair(volume, users);
    }
    return std::nullopt;
  }

  json::object base_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    json::object st;
    st["hostIP"] = node_ip(string_at(object_at(pod, "spec"), "nodeName"));
    st["hostIPs"] = json::array{json::object{{"ip", st["hostIP"]}}};
    st["startTime"] =
        old && old->contains("startTime") ? old->at("startTime") : json::value(kit_.now());
    st["qosClass"] = string_at(old, "qosClass").empty() ? "BestEffort" : string_at(old, "qosClass");
    // Fields others own (the ResourceClaim controller's, the scheduler's) stay as they are: a
    // kubelet patches its own.
    for (const char* theirs :
         {"resourceClaimStatuses", "extendedResourceClaimStatus", "nominatedNodeName"})
      if (old && old->contains(theirs)) st[theirs] = old->at(theirs);
    return st;
  }

  json::object creating_status(const json::object& pod) {
    const json::object* old = object_at(pod, "status");
    json::object st = base_status(pod);
    st["phase"] = "Pending";
    std::string names;
    json::array statuses;
    for (const auto* c : containers_in(object_at(pod, "spec"), "containers")) {
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
    for (const auto* c : containers_in(object_at(pod, "spec"), field)) {
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

  // Running and Ready; or, for a pod that does not restart, Succeeded (its containers exited 0).
  json::object started_status(const json::object& pod, bool completes) {
    const json::object* old = object_at(pod, "status");
    std::string t = kit_.now();
    json::object st = base_status(pod);
    st["phase"] = completes ? "Succeeded" : "Running";
    const char* ready = completes ? "False" : "True";
    const char* why = completes ? "PodCompleted" : "";
    st["conditions"] = json::array{kit_.condition(old, "PodReadyToStartContainers", ready, "", ""),
                                   kit_.condition(old, "Initialized", "True", why, ""),
                                   kit_.condition(old, "Ready", ready, why, ""),
                                   kit_.condition(old, "ContainersReady", ready, why, ""),
                                   kit_.condition(old, "PodScheduled", "True", "", "")};
    std::string ip = pod_ip(meta_string(pod, "uid"));
    st["podIP"] = ip;
    st["podIPs"] = json::array{json::object{{"ip", ip}}};
    auto init = container_statuses(pod, "initContainers", false, t);
    if (!init.empty()) st["initContainerStatuses"] = std::move(init);
    st["containerStatuses"] = container_statuses(pod, "containers", !completes, t);
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
  std::set<std::string> started_;  // uids waiting for --workload-delay
  std::set<std::pair<std::string, std::string>> waiting_for_volume_;
  std::set<std::pair<std::string, std::string>> waiting_for_mount_;
  // The pods bound to each node (namespace, name), so that admission reads one node's pods.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> on_node_;
  static inline const std::set<std::pair<std::string, std::string>> kNone;  // namespace, name
  std::map<std::string, std::string> ips_;                                  // pod uid -> pod IP
  uint64_t next_ip_ = 0;
};

}  // namespace

std::unique_ptr<WorkloadController> start_kubelet(ControllerKit& kit) {
  return std::make_unique<Kubelet>(kit);
}

}  // namespace planter::sim
