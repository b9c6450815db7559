// Deployments: a ReplicaSet per pod template (<deploy>-<pod-template-hash>, labelled and
// selected by pod-template-hash, with the deployment.kubernetes.io/revision annotation); the
// current one gets spec.replicas, older ones are scaled to zero once it is ready (at once for
// the Recreate strategy). Status sums the ReplicaSets; Available follows maxUnavailable
// (25% by default), Progressing says whether the new ReplicaSet has progressed, as
// `kubectl rollout status` reads them.
#include <boost/json/object.hpp>
#include <cmath>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kDeploymentController = "deployment-controller";
constexpr const char* kRevision = "deployment.kubernetes.io/revision";

std::string rs_path(const std::string& ns, const std::string& name = "") {
  return "/apis/apps/v1/namespaces/" + ns + "/replicasets" + (name.empty() ? "" : "/" + name);
}

int64_t spec_replicas(const json::object& rs) {
  return int_at(object_at(rs, "spec"), "replicas", 1);
}
int64_t status_count(const json::object& obj, const char* key) {
  return int_at(object_at(obj, "status"), key);
}

// maxUnavailable of a RollingUpdate strategy (25% of the replicas, rounded down, by default);
// 0 for Recreate.
int64_t max_unavailable(const json::object& deploy, int64_t replicas) {
  const json::object* strategy = object_at(object_at(deploy, "spec"), "strategy");
  if (string_at(strategy, "type") == "Recreate") return 0;
  const json::object* rolling = object_at(strategy, "rollingUpdate");
  auto* v = rolling ? rolling->if_contains("maxUnavailable") : nullptr;
  if (v && v->is_int64()) return std::min(v->as_int64(), replicas);
  double percent = 25;
  if (v && v->is_string()) {
    std::string s(v->as_string());
    if (!s.empty() && s.back() == '%') percent = std::strtod(s.c_str(), nullptr);
  }
  return static_cast<int64_t>(std::floor(static_cast<double>(replicas) * percent / 100));
}

class DeploymentController : public WorkloadController {
 public:
  explicit DeploymentController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow_owned("apps/replicasets", "Deployment");
    queue_.follow("apps/deployments");
  }

 private:
  std::vector<StoredObject> owned_replicasets(const json::object& deploy) {
    std::vector<StoredObject> out;
    std::string uid = meta_string(deploy, "uid");
    for (const auto& [key, obj] : kit_.store().dependents(uid))
      if (key == "apps/replicasets" && controller_of(*obj).first == "Deployment" &&
          meta_string(*obj, "deletionTimestamp").empty())
        out.push_back(obj);
    return out;
  }

  void scale(const json::object& deploy, const json::object& rs, int64_t to) {
    int64_t from = spec_replicas(rs);
    if (from == to) return;
    std::string ns = meta_string(rs, "namespace"), name = meta_string(rs, "name");
    Response r = kit_.write("PATCH", rs_path(ns, name), "application/merge-patch+json",
                            json::object{{"spec", {{"replicas", to}}}}, kDeploymentController);
    if (r.status < 300)
      kit_.events(kDeploymentController)
          .record(deploy, "Normal", "ScalingReplicaSet",
                  std::string(to > from ? "Scaled up" : "Scaled down") + " replica set " + name +
                      " from " + std::to_string(from) + " to " + std::to_string(to));
  }

  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject deploy = kit_.store().get("apps/deployments", ns, name);
    if (!deploy || !meta_string(*deploy, "deletionTimestamp").empty()) return;
    const json::object* spec = object_at(*deploy, "spec");
    const json::object* tmpl = object_at(spec, "template");
    if (!tmpl) return;
    int64_t want = desired_replicas(kit_, *deploy);
    std::string hash = template_hash(*tmpl);
    auto replicasets = owned_replicasets(*deploy);
    StoredObject current;
    int64_t revision = 0;
    for (const auto& rs : replicasets) {
      const json::object* labels = object_at(object_at(*rs, "metadata"), "labels");
      if (string_at(labels, "pod-template-hash") == hash) current = rs;
      const json::object* annotations = object_at(object_at(*rs, "metadata"), "annotations");
      revision = std::max<int64_t>(revision, std::atoll(string_at(annotations, kRevision).c_str()));
    }
    if (!current) {
      current = create_replicaset(*deploy, *tmpl, hash, want, revision + 1);
      if (!current) return;
    } else {
      scale(*deploy, *current, want);
    }
    bool recreate = string_at(object_at(spec, "strategy"), "type") == "Recreate";
    bool current_ready = status_count(*current, "readyReplicas") >= want;
    for (const auto& rs : replicasets)
      if (rs != current && spec_replicas(*rs) > 0 && (recreate || current_ready))
        scale(*deploy, *rs, 0);
    update_status(ns, name, meta_string(*current, "name"));
  }

  StoredObject create_replicaset(const json::object& deploy, const json::object& tmpl,
                                 const std::string& hash, int64_t replicas, int64_t revision) {
    std::string ns = meta_string(deploy, "namespace");
    std::string name = meta_string(deploy, "name") + "-" + hash;
    json::object pod_template = tmpl;
    auto& tmeta = pod_template["metadata"];
    if (!tmeta.is_object()) tmeta = json::object{};
    auto& tlabels = tmeta.as_object()["labels"];
    if (!tlabels.is_object()) tlabels = json::object{};
    tlabels.as_object()["pod-template-hash"] = hash;
    json::object selector;
    if (const json::object* s = object_at(object_at(deploy, "spec"), "selector")) selector = *s;
    auto& ml = selector["matchLabels"];
    if (!ml.is_object()) ml = json::object{};
    ml.as_object()["pod-template-hash"] = hash;
    json::object rs{{"apiVersion", "apps/v1"},
                    {"kind", "ReplicaSet"},
                    {"metadata",
                     {{"name", name},
                      {"namespace", ns},
                      {"labels", tlabels},
                      {"annotations",
                       {{kRevision, std::to_string(revision)},
                        {"deployment.kubernetes.io/desired-replicas", std::to_string(replicas)},
                        {"deployment.kubernetes.io/max-replicas", std::to_string(replicas)}}},
                      {"ownerReferences", json::array{controller_reference(deploy)}}}},
                    {"spec",
                     {{"replicas", replicas},
                      {"minReadySeconds", int_at(object_at(deploy, "spec"), "minReadySeconds")},
                      {"selector", std::move(selector)},
                      {"template", std::move(pod_template)}}}};
    Response r = kit_.write("POST", rs_path(ns), "application/json", rs, kDeploymentController);
    if (r.status != 201) return nullptr;
    kit_.events(kDeploymentController)
        .record(deploy, "Normal", "ScalingReplicaSet",
                "Scaled up replica set " + name + " from 0 to " + std::to_string(replicas));
    return kit_.store().get("apps/replicasets", ns, name);
  }

  void update_status(const std::string& ns, const std::string& name, const std::string& current) {
    StoredObject deploy = kit_.store().get("apps/deployments", ns, name);
    if (!deploy) return;
    int64_t want = desired_replicas(kit_, *deploy);
    int64_t replicas = 0, spec_total = 0, ready = 0, available = 0, updated = 0;
    for (const auto& rs : owned_replicasets(*deploy)) {
      replicas += status_count(*rs, "replicas");
      spec_total += spec_replicas(*rs);
      ready += status_count(*rs, "readyReplicas");
      available += status_count(*rs, "availableReplicas");
      if (meta_string(*rs, "name") == current) updated = status_count(*rs, "replicas");
    }
    const json::object* old = object_at(*deploy, "status");
    int64_t gen = generation_of(*deploy);
    json::object st{{"observedGeneration", gen}};
    auto set_count = [&](const char* key, int64_t v) {
      if (v != 0) st[key] = v;  // the API omits zero counts
    };
    set_count("replicas", replicas);
    set_count("updatedReplicas", updated);
    set_count("readyReplicas", ready);
    set_count("availableReplicas", available);
    set_count("unavailableReplicas", std::max<int64_t>(0, spec_total - available));
    bool minimum = available >= want - max_unavailable(*deploy, want);
    bool complete = updated == want && replicas == want && available == want;
    json::array conds;
    if (minimum)
      conds.push_back(kit_.condition(old, "Available", "True", "MinimumReplicasAvailable",
                                     "Deployment has minimum availability.", true));
    else
      conds.push_back(kit_.condition(old, "Available", "False", "MinimumReplicasUnavailable",
                                     "Deployment does not have minimum availability.", true));
    if (complete)
      conds.push_back(kit_.condition(old, "Progressing", "True", "NewReplicaSetAvailable",
                                     "ReplicaSet \"" + current + "\" has successfully progressed.",
                                     true));
    else
      conds.push_back(kit_.condition(old, "Progressing", "True", "ReplicaSetUpdated",
                                     "ReplicaSet \"" + current + "\" is progressing.", true));
    st["conditions"] = std::move(conds);
    bool was_complete = int_at(old, "observedGeneration", -1) == gen &&
                        int_at(old, "updatedReplicas") == want && int_at(old, "replicas") == want &&
                        int_at(old, "availableReplicas") == want;
    kit_.put_status("/apis/apps/v1/namespaces/" + ns + "/deployments/" + name, *deploy,
                    std::move(st), kDeploymentController);
    if (complete && !was_complete)
      kit_.ready_event(audit_id("apps/v1", "Deployment", ns, name), "available");
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_deployment_controller(ControllerKit& kit) {
  return std::make_unique<DeploymentController>(kit);
}

}  // namespace planter::sim
