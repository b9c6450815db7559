// kube-controller-manager's PodGroup protection controller (kubernetes.io, "PodGroup Lifecycle",
// Deletion protection), as the sim plays it wherever it serves the gang API: a PodGroup that pods
// of its namespace join (spec.schedulingGroup.podGroupName) and that are not terminal (neither
// Succeeded nor Failed) gets the finalizer scheduling.k8s.io/podgroup-protection; once it is being
// deleted and no such pod is left, the finalizer goes and with it the PodGroup. A PodGroup no
// active pod joins is not given the finalizer. The writes are Updates with the object's
// resourceVersion, as the controller's are; a conflict is reconciled again.
#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kProtectedGroups = "scheduling.k8s.io/podgroups";
constexpr const char* kPodGroupProtection = "scheduling.k8s.io/podgroup-protection";
constexpr const char* kProtectionController = "podgroup-protection-controller";

std::string joined_group(const json::object& pod) {
  return string_at(object_at(object_at(pod, "spec"), "schedulingGroup"), "podGroupName");
}

bool terminal(const json::object& pod) {
  std::string phase = string_at(object_at(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

bool has_finalizer(const json::object& group) {
  if (const json::array* f = array_at(object_at(group, "metadata"), "finalizers"))
    for (const json::value& v : *f)
      if (v.is_string() && v.get_string() == kPodGroupProtection) return true;
  return false;
}

class PodGroupProtection : public WorkloadController {
 public:
  explicit PodGroupProtection(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow(kProtectedGroups);
    // A pod that joins a group (its schedulingGroup is immutable) comes, ends or goes: its group
    // is looked at again. A bound pod that still runs changes nothing here, as upstream's filter.
    kit_.watch("/pods", [this](const Change& ch) {
      const json::object& pod = *ch.object;  // a deletion's: the last state
      std::string group = joined_group(pod);
      if (group.empty()) return;
      bool bound = !string_at(object_at(pod, "spec"), "nodeName").empty();
      if (ch.type == EventType::kModified && bound && !terminal(pod)) return;
      queue_.add(ch.ns, group);
    });
  }

 private:
  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject group = kit_.store().get(kProtectedGroups, ns, name);
    if (!group) return;
    bool deleting = !meta_string(*group, "deletionTimestamp").empty();
    bool protected_now = has_finalizer(*group);
    if (deleting != protected_now) return;  // deleting without it, or kept as it should be
    bool used = in_use(ns, name);
    if (deleting && !used) return write_finalizers(*group, false);
    if (!deleting && used) write_finalizers(*group, true);
  }

  bool in_use(const std::string& ns, const std::string& name) {
    const Store::Bucket& pods = kit_.store().bucket("/pods");
    std::string prefix = ns + "/";
    for (auto it = pods.lower_bound(prefix); it != pods.end() && it->first.starts_with(prefix);
         ++it)
      if (joined_group(*it->second) == name && !terminal(*it->second)) return true;
    return false;
  }

  void write_finalizers(const json::object& group, bool add) {
    json::object updated = group;
    json::object& meta = updated["metadata"].as_object();
    json::array kept;
    if (const json::array* f = array_at(&meta, "finalizers"))
      for (const json::value& v : *f)
        if (!(v.is_string() && v.get_string() == kPodGroupProtection)) kept.push_back(v);
    if (add) kept.emplace_back(kPodGroupProtection);
    if (kept.empty())
      meta.erase("finalizers");
    else
      meta["finalizers"] = std::move(kept);
    Response r = kit_.write("PUT", object_path(kProtectedGroups, group), "application/json",
                            updated, kProtectionController);
    if (r.status == 409)
      kit_.after(std::chrono::milliseconds(100),
                 [this, ns = meta_string(group, "namespace"), name = meta_string(group, "name")] {
                   queue_.add(ns, name);
                 });
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_pod_group_protection(ControllerKit& kit) {
  return std::make_unique<PodGroupProtection>(kit);
}

}  // namespace planter::sim
