// StatefulSets: pods <sts>-0..N-1 with stable names, hostnames and, from volumeClaimTemplates,
// PVCs <template>-<sts>-<i> that stay when the pods go. OrderedReady (the default) makes pod i
// only once pods 0..i-1 are Running and Ready and removes the highest ordinal first, one at a
// time; Parallel makes and removes them all at once. A template change rolls the pods from the
// highest ordinal down (RollingUpdate, above spec.updateStrategy.rollingUpdate.partition), each
// once the others are ready; OnDelete waits for the user to delete them.
#include <algorithm>
#include <boost/json/object.hpp>
#include <map>

#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/pods.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kStatefulSetController = "statefulset-controller";

// The ordinal of a pod named <sts>-<i>, or -1.
int64_t ordinal_of(const std::string& sts, const std::string& pod) {
  if (pod.size() <= sts.size() + 1 || !pod.starts_with(sts + "-")) return -1;
  std::string digits = pod.substr(sts.size() + 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), ::isdigit) || digits.size() > 9)
    return -1;
  return std::stoll(digits);
}

class StatefulSetController : public WorkloadController {
 public:
  explicit StatefulSetController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    queue_.follow_owned("/pods", "StatefulSet");
    queue_.follow("apps/statefulsets");
  }

 private:
  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject sts = kit_.store().get("apps/statefulsets", ns, name);
    if (!sts || !meta_string(*sts, "deletionTimestamp").empty()) return;
    const json::object* spec = object_at(*sts, "spec");
    const json::object* tmpl = object_at(spec, "template");
    if (!tmpl) return;
    int64_t want = desired_replicas(kit_, *sts);
    std::string revision = name + "-" + template_hash(*tmpl);
    bool parallel = string_at(spec, "podManagementPolicy") == "Parallel";
    const json::object* strategy = object_at(spec, "updateStrategy");
    bool on_delete = string_at(strategy, "type") == "OnDelete";
    int64_t partition = int_at(object_at(strategy, "rollingUpdate"), "partition");

    std::map<int64_t, StoredObject> pods;  // by ordinal
    std::vector<StoredObject> condemned;
    for (auto& pod : pods_owned_by(kit_.store(), meta_string(*sts, "uid"))) {
      int64_t i = ordinal_of(name, meta_string(*pod, "name"));
      if (i < 0) continue;
      if (i >= want)
        condemned.push_back(pod);
      else
        pods[i] = pod;
    }
    // Make the missing pods, in order unless Parallel.
    bool all_ready = true;
    for (int64_t i = 0; i < want; ++i) {
      auto it = pods.find(i);
      if (it == pods.end()) {
        ensure_claims(*sts, i);
        create_pod(kit_, *sts, pod_for(*sts, *tmpl, i, revision), kStatefulSetController);
        all_ready = false;
        if (!parallel) break;
        continue;
      }
      if (pod_deleting(*it->second) || !pod_ready(*it->second)) {
        all_ready = false;
        if (!parallel) break;
      }
    }
    // Scale down, highest ordinal first.
    std::sort(condemned.begin(), condemned.end(),
              [&](const StoredObject& a, const StoredObject& b) {
                return ordinal_of(name, meta_string(*a, "name")) >
                       ordinal_of(name, meta_string(*b, "name"));
              });
    for (const auto& pod : condemned) {
      if (pod_deleting(*pod)) {
        if (!parallel) break;
        continue;
      }
      if (!parallel && !all_ready) break;
      delete_pod(kit_, *sts, *pod, kStatefulSetController);
      if (!parallel) break;
    }
    // Roll outdated pods from the highest ordinal down, one at a time.
    if (!on_delete && all_ready && condemned.empty())
      for (auto it = pods.rbegin(); it != pods.rend(); ++it) {
        if (it->first < partition) break;
        const json::object* labels = object_at(object_at(*it->second, "metadata"), "labels");
        if (string_at(labels, "controller-revision-hash") == revision) continue;
        delete_pod(kit_, *sts, *it->second, kStatefulSetController);
        break;
      }
    update_status(ns, name, revision);
  }

  json::object pod_for(const json::object& sts, const json::object& tmpl, int64_t i,
                       const std::string& revision) {
    std::string name = meta_string(sts, "name") + "-" + std::to_string(i);
    json::object extra{{"controller-revision-hash", revision},
                       {"statefulset.kubernetes.io/pod-name", name},
                       {"apps.kubernetes.io/pod-index", std::to_string(i)}};
    json::object pod = pod_from_template(tmpl, sts, extra, name, "");
    json::object& spec = pod["spec"].as_object();
    spec["hostname"] = name;
    std::string service = string_at(object_at(sts, "spec"), "serviceName");
    if (!service.empty()) spec["subdomain"] = service;
    // Each claim template becomes the volume of the same name.
    auto* claims = object_at(sts, "spec")->if_contains("volumeClaimTemplates");
    if (claims && claims->is_array()) {
      auto& volumes = spec["volumes"];
      if (!volumes.is_array()) volumes = json::array{};
      for (const auto& c : claims->as_array()) {
        if (!c.is_object()) continue;
        std::string tpl = meta_string(c.as_object(), "name");
        auto& vs = volumes.as_array();
        vs.erase(std::remove_if(vs.begin(), vs.end(),
                                [&](const json::value& v) {
                                  return v.is_object() && string_at(v.as_object(), "name") == tpl;
                                }),
                 vs.end());
        vs.push_back(json::object{
            {"name", tpl},
            {"persistentVolumeClaim",
             {{"claimName", tpl + "-" + meta_string(sts, "name") + "-" + std::to_string(i)}}}});
      }
    }
    return pod;
  }

  // The PVCs of pod i from the volumeClaimTemplates, made once and kept.
  void ensure_claims(const json::object& sts, int64_t i) {
    auto* claims = object_at(sts, "spec")->if_contains("volumeClaimTemplates");
    if (!claims || !claims->is_array()) return;
    std::string ns = meta_string(sts, "namespace");
    for (const auto& c : claims->as_array()) {
      if (!c.is_object()) continue;
      std::string claim = meta_string(c.as_object(), "name") + "-" + meta_string(sts, "name") +
                          "-" + std::to_string(i);
      if (kit_.store().get("/persistentvolumeclaims", ns, claim)) continue;
      json::object pvc{{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}};
      json::object meta{{"name", claim}, {"namespace", ns}};
      const json::object* selector = object_at(object_at(sts, "spec"), "selector");
      if (const json::object* ml = object_at(selector, "matchLabels")) meta["labels"] = *ml;
      pvc["metadata"] = std::move(meta);
      if (const json::object* spec = object_at(c.as_object(), "spec")) pvc["spec"] = *spec;
      Response r = kit_.write("POST", "/api/v1/namespaces/" + ns + "/persistentvolumeclaims",
                              "application/json", pvc, kStatefulSetController);
      if (r.status == 201)
        kit_.events(kStatefulSetController)
            .record(sts, "Normal", "SuccessfulCreate",
                    "create Claim " + claim + " Pod " + meta_string(sts, "name") + "-" +
                        std::to_string(i) + " in StatefulSet " + meta_string(sts, "name") +
                        " success");
    }
  }

  void update_status(const std::string& ns, const std::string& name, const std::string& revision) {
    StoredObject sts = kit_.store().get("apps/statefulsets", ns, name);
    if (!sts) return;
    int64_t want = desired_replicas(kit_, *sts);
    int64_t replicas = 0, ready = 0, updated = 0, current = 0;
    const json::object* old = object_at(*sts, "status");
    std::string current_revision = string_at(old, "currentRevision");
    if (current_revision.empty()) current_revision = revision;
    for (const auto& pod : pods_owned_by(kit_.store(), meta_string(*sts, "uid"))) {
      if (pod_deleting(*pod) || ordinal_of(name, meta_string(*pod, "name")) < 0) continue;
      ++replicas;
      if (pod_ready(*pod)) ++ready;
      std::string hash =
          string_at(object_at(object_at(*pod, "metadata"), "labels"), "controller-revision-hash");
      if (hash == revision) ++updated;
      if (hash == current_revision) ++current;
    }
    // Every pod at the new revision: it is the current one.
    if (updated == want && replicas == want) {
      current_revision = revision;
      current = updated;
    }
    int64_t gen = generation_of(*sts);
    json::object st{{"observedGeneration", gen}, {"replicas", replicas}};
    auto set_count = [&](const char* key, int64_t v) {
      if (v != 0) st[key] = v;
    };
    set_count("readyReplicas", ready);
    set_count("currentReplicas", current);
    set_count("updatedReplicas", updated);
    set_count("availableReplicas", ready);
    st["currentRevision"] = current_revision;
    st["updateRevision"] = revision;
    st["collisionCount"] = 0;
    bool done = ready == want && updated == want && replicas == want;
    bool was_done =
        int_at(old, "observedGeneration", -1) == gen && int_at(old, "readyReplicas") == want &&
        int_at(old, "updatedReplicas") == want && string_at(old, "updateRevision") == revision;
    kit_.put_status("/apis/apps/v1/namespaces/" + ns + "/statefulsets/" + name, *sts, std::move(st),
                    kStatefulSetController);
    if (done && !was_done)
      kit_.ready_event(audit_id("apps/v1", "StatefulSet", ns, name), "available");
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_statefulset_controller(ControllerKit& kit) {
  return std::make_unique<StatefulSetController>(kit);
}

}  // namespace planter::sim
