// ReplicaSets: as many pods as spec.replicas, made from the template (<rs>-<5 chars>) and
// owned by the ReplicaSet; extra pods go, those not yet scheduled or running first, then the
// newest. Status counts the pods (replicas, fullyLabeledReplicas, readyReplicas,
// availableReplicas).
#include <algorithm>
#include <boost/json/object.hpp>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kReplicaSetController = "replicaset-controller";

class ReplicaSetController : public WorkloadController {
 public:
  explicit ReplicaSetController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow_owned("/pods", "ReplicaSet");
    queue_.follow("apps/replicasets");
  }

 private:
  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject rs = kit_.store().get("apps/replicasets", ns, name);
    if (!rs || !meta_string(*rs, "deletionTimestamp").empty()) return;
    std::vector<StoredObject> active;
    for (auto& pod : pods_owned_by(kit_.store(), meta_string(*rs, "uid")))
      if (!pod_deleting(*pod) && !pod_terminal(*pod)) active.push_back(pod);
    int64_t want = desired_replicas(kit_, *rs);
    int64_t have = static_cast<int64_t>(active.size());
    const json::object* spec = object_at(*rs, "spec");
    const json::object* tmpl = object_at(spec, "template");
    if (have < want && tmpl) {
      for (int64_t i = have; i < want; ++i)
        create_pod(kit_, *rs, pod_from_template(*tmpl, *rs, {}, "", name + "-"),
                   kReplicaSetController);
    } else if (have > want) {
      // Unscheduled before scheduled, pending before running, unready before ready, newest
      // first.
      auto rank = [](const json::object& p) {
        int r = 0;
        if (string_at(object_at(p, "spec"), "nodeName").empty()) return r;
        ++r;
        if (string_at(object_at(p, "status"), "phase") != "Running") return r;
        ++r;
        if (!pod_ready(p)) return r;
        return ++r;
      };
      std::stable_sort(
          active.begin(), active.end(), [&](const StoredObject& a, const StoredObject& b) {
            int ra = rank(*a), rb = rank(*b);
            if (ra != rb) return ra < rb;
            return meta_string(*a, "creationTimestamp") > meta_string(*b, "creationTimestamp");
          });
      for (int64_t i = 0; i < have - want; ++i)
        delete_pod(kit_, *rs, *active[size_t(i)], kReplicaSetController);
    }
    update_status(ns, name);
  }

  void update_status(const std::string& ns, const std::string& name) {
    StoredObject rs = kit_.store().get("apps/replicasets", ns, name);
    if (!rs) return;
    const json::object* spec = object_at(*rs, "spec");
    const json::object* tmpl = object_at(spec, "template");
    const json::object* tmpl_labels = object_at(object_at(tmpl, "metadata"), "labels");
    // Fully labelled: a pod carrying every label of the template.
    json::value template_labels = json::object{
        {"matchLabels", tmpl_labels ? json::value(*tmpl_labels) : json::value(json::object{})}};
    sched::CompiledSelector fully_labelled(&template_labels);
    int64_t replicas = 0, labelled = 0, ready = 0;
    for (const auto& pod : pods_owned_by(kit_.store(), meta_string(*rs, "uid"))) {
      if (pod_deleting(*pod) || pod_terminal(*pod)) continue;
      ++replicas;
      if (fully_labelled.matches(object_at(object_at(*pod, "metadata"), "labels"))) ++labelled;
      if (pod_ready(*pod)) ++ready;
    }
    json::object st{{"replicas", replicas}};
    if (labelled) st["fullyLabeledReplicas"] = labelled;
    if (ready) st["readyReplicas"] = ready;
    if (ready) st["availableReplicas"] = ready;
    st["observedGeneration"] = generation_of(*rs);
    kit_.put_status("/apis/apps/v1/namespaces/" + ns + "/replicasets/" + name, *rs, std::move(st),
                    kReplicaSetController);
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_replicaset_controller(ControllerKit& kit) {
  return std::make_unique<ReplicaSetController>(kit);
}

}  // namespace planter::sim
