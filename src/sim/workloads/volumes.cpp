// Storage: every cluster has the StorageClass `standard` (the default class, Immediate binding)
// and `local` (WaitForFirstConsumer: a claim is provisioned on the node of the first pod that
// uses it, and its volume can then be used on that node only). A class whose provisioner is
// kubernetes.io/no-provisioner provisions nothing: its claims bind to volumes made by hand (the
// scheduler binds them). The persistent volume
// controller provisions a PersistentVolume pvc-<claim uid> for each claim of these classes (at
// once for `standard`, once the scheduler has chosen a node for `local`), binds the two, and
// deletes the volume when its claim goes (reclaim policy Delete). A volume whose claimRef names an
// unbound claim (a scheduler chose it for a WaitForFirstConsumer claim) is bound to that claim,
// as the persistent volume controller completes a pre-bound volume.
#include <boost/json/object.hpp>
#include <set>
#include <string>

#include "sim/audit.h"
#include "sim/cluster.h"
#include "sim/controller_kit.h"
#include "sim/json_access.h"
#include "sim/workloads/workload_controllers.h"

namespace planter::sim {

namespace json = boost::json;

namespace {

constexpr const char* kVolumeBinder = "persistent-volume-binder";
constexpr const char* kSelectedNode = "volume.kubernetes.io/selected-node";

class VolumeController : public WorkloadController {
 public:
  explicit VolumeController(ControllerKit& kit)
      : kit_(kit), queue_(kit, [this](const std::string& ns, const std::string& name) {
          reconcile(ns, name);
        }) {
    ensure_classes();
    kit_.watch("/persistentvolumeclaims", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted)
        release(meta_string(*ch.object, "uid"));
      else
        queue_.add(ch.ns, meta_string(*ch.object, "name"));
    });
    kit_.watch("/persistentvolumes", [this](const Change& ch) {
      if (ch.type == EventType::kDeleted) return;
      const json::object* ref = object_at(object_at(*ch.object, "spec"), "claimRef");
      if (ref) queue_.add(string_at(ref, "namespace"), string_at(ref, "name"));
    });
    for (const auto& [_, pvc] : kit_.store().bucket("/persistentvolumeclaims"))
      queue_.add(meta_string(*pvc, "namespace"), meta_string(*pvc, "name"));
  }

 private:
  void ensure_classes() {
    struct Class {
      const char* name;
      const char* mode;
      bool is_default;
    };
    for (const Class& c :
         {Class{"standard", "Immediate", true}, Class{"local", "WaitForFirstConsumer", false}}) {
      if (kit_.store().get("storage.k8s.io/storageclasses", "", c.name)) continue;
      json::object meta{{"name", c.name}};
      if (c.is_default)
        meta["annotations"] = {{"storageclass.kubernetes.io/is-default-class", "true"}};
      json::object sc{{"apiVersion", "storage.k8s.io/v1"},
                      {"kind", "StorageClass"},
                      {"metadata", std::move(meta)},
                      {"provisioner", std::string("sim.planter.io/") + c.name},
                      {"reclaimPolicy", "Delete"},
                      {"volumeBindingMode", c.mode}};
      kit_.write("POST", "/apis/storage.k8s.io/v1/storageclasses", "application/json", sc,
                 "kube-apiserver");
    }
  }

  static std::string pvc_path(const std::string& ns, const std::string& name) {
    return "/api/v1/namespaces/" + ns + "/persistentvolumeclaims/" + name;
  }

  void reconcile(const std::string& ns, const std::string& name) {
    StoredObject pvc = kit_.store().get("/persistentvolumeclaims", ns, name);
    if (!pvc || !meta_string(*pvc, "deletionTimestamp").empty()) return;
    const json::object* spec = object_at(*pvc, "spec");
    std::string volume = string_at(spec, "volumeName");
    if (!volume.empty()) {
      if (StoredObject pv = kit_.store().get("/persistentvolumes", "", volume))
        mark_bound(*pvc, *pv);
      return;
    }
    if (StoredObject pv = pre_bound(*pvc)) {
      json::object patch{{"metadata",
                          {{"annotations",
                            {{"pv.kubernetes.io/bind-completed", "yes"},
                             {"pv.kubernetes.io/bound-by-controller", "yes"}}}}},
                         {"spec", {{"volumeName", meta_string(*pv, "name")}}}};
      kit_.write("PATCH", pvc_path(ns, name), "application/merge-patch+json", patch, kVolumeBinder);
      if (StoredObject now = kit_.store().get("/persistentvolumeclaims", ns, name))
        mark_bound(*now, *pv);
      return;
    }
    std::string class_name = string_at(spec, "storageClassName");
    if (class_name.empty()) return;  // static binding only: the sim has no unclaimed volumes
    StoredObject sc = kit_.store().get("storage.k8s.io/storageclasses", "", class_name);
    if (!sc) {
      kit_.events(kVolumeBinder)
          .record(*pvc, "Warning", "ProvisioningFailed",
                  "storageclass.storage.k8s.io \"" + class_name + "\" not found");
      pending(*pvc);
      return;
    }
    std::string node =
        string_at(object_at(object_at(*pvc, "metadata"), "annotations"), kSelectedNode);
    bool delayed = string_at(*sc, "volumeBindingMode") == "WaitForFirstConsumer";
    if (delayed && node.empty()) {
      kit_.events(kVolumeBinder)
          .record(*pvc, "Normal", "WaitForFirstConsumer",
                  "waiting for first consumer to be created before binding");
      pending(*pvc);
      return;
    }
    if (string_at(*sc, "provisioner") == "kubernetes.io/no-provisioner") {
      // Local volumes an administrator makes: a claim binds to one of them (the scheduler
      // chooses it for a WaitForFirstConsumer claim), never to a volume made for it.
      pending(*pvc);
      return;
    }
    // A slow backend (--volume-delay): the claim is provisioned once the delay has passed.
    std::chrono::milliseconds delay = kit_.cluster().options().volume_delay;
    std::string key = ns + "/" + name;
    if (delay.count() > 0 && !due_.contains(key)) {
      if (waiting_.insert(key).second)
        kit_.after(delay, [this, ns, name, key] {
          waiting_.erase(key);
          due_.insert(key);
          reconcile(ns, name);
          due_.erase(key);
        });
      pending(*pvc);
      return;
    }
    provision(*pvc, *sc, delayed ? node : "");
  }

  std::set<std::string> waiting_, due_;  // claims ("ns/name") waiting out --volume-delay

  // A volume whose claimRef names this claim (its uid too, when the reference has one).
  StoredObject pre_bound(const json::object& pvc) {
    std::string ns = meta_string(pvc, "namespace"), name = meta_string(pvc, "name");
    std::string uid = meta_string(pvc, "uid");
    for (const auto& [_, pv] : kit_.store().bucket("/persistentvolumes")) {
      const json::object* ref = object_at(object_at(*pv, "spec"), "claimRef");
      if (!ref || string_at(ref, "namespace") != ns || string_at(ref, "name") != name) continue;
      std::string ref_uid = string_at(ref, "uid");
      if (ref_uid.empty() || ref_uid == uid) return pv;
    }
    return nullptr;
  }

  void pending(const json::object& pvc) {
    kit_.put_status(pvc_path(meta_string(pvc, "namespace"), meta_string(pvc, "name")), pvc,
                    json::object{{"phase", "Pending"}}, kVolumeBinder);
  }

  void provision(const json::object& pvc, const json::object& sc, const std::string& node) {
    std::string ns = meta_string(pvc, "namespace"), name = meta_string(pvc, "name");
    std::string uid = meta_string(pvc, "uid");
    std::string pv_name = "pvc-" + uid;
    const json::object* spec = object_at(pvc, "spec");
    std::string size = string_at(object_at(object_at(spec, "resources"), "requests"), "storage");
    if (size.empty()) size = "1Gi";
    json::array modes;
    if (auto* m = spec->if_contains("accessModes"); m && m->is_array()) modes = m->as_array();
    if (modes.empty()) modes.push_back("ReadWriteOnce");
    std::string mode = string_at(spec, "volumeMode");
    std::string reclaim = string_at(sc, "reclaimPolicy");
    json::object pv_spec{{"capacity", {{"storage", size}}},
                         {"accessModes", modes},
                         {"claimRef",
                          {{"kind", "PersistentVolumeClaim"},
                           {"namespace", ns},
                           {"name", name},
                           {"uid", uid},
                           {"apiVersion", "v1"}}},
                         {"persistentVolumeReclaimPolicy", reclaim.empty() ? "Delete" : reclaim},
                         {"storageClassName", meta_string(sc, "name")},
                         {"volumeMode", mode.empty() ? "Filesystem" : mode}};
    if (node.empty()) {
      pv_spec["hostPath"] = {{"path", "/var/lib/planter-sim/" + pv_name}, {"type", ""}};
    } else {
      pv_spec["local"] = {{"path", "/mnt/planter-sim/" + pv_name}};
      pv_spec["nodeAffinity"] = {
          {"required",
           {{"nodeSelectorTerms",
             json::array{json::object{
                 {"matchExpressions",
                  json::array{json::object{{"key", "kubernetes.io/hostname"},
                                           {"operator", "In"},
                                           {"values", json::array{json::value(node)}}}}}}}}}}};
    }
    json::object pv{
        {"apiVersion", "v1"},
        {"kind", "PersistentVolume"},
        {"metadata",
         {{"name", pv_name},
          {"annotations", {{"pv.kubernetes.io/provisioned-by", string_at(sc, "provisioner")}}}}},
        {"spec", std::move(pv_spec)}};
    if (!kit_.store().get("/persistentvolumes", "", pv_name)) {
      Response r =
          kit_.write("POST", "/api/v1/persistentvolumes", "application/json", pv, kVolumeBinder);
      if (r.status != 201) return;
      kit_.events(kVolumeBinder)
          .record(pvc, "Normal", "ProvisioningSucceeded",
                  "Successfully provisioned volume " + pv_name);
    }
    StoredObject stored = kit_.store().get("/persistentvolumes", "", pv_name);
    if (!stored) return;
    kit_.put_status("/api/v1/persistentvolumes/" + pv_name, *stored,
                    json::object{{"phase", "Bound"}}, kVolumeBinder);
    json::object patch{
        {"metadata",
         {{"annotations",
           {{"pv.kubernetes.io/bind-completed", "yes"},
            {"pv.kubernetes.io/bound-by-controller", "yes"},
            {"volume.kubernetes.io/storage-provisioner", string_at(sc, "provisioner")}}}}},
        {"spec", {{"volumeName", pv_name}}}};
    kit_.write("PATCH", pvc_path(ns, name), "application/merge-patch+json", patch, kVolumeBinder);
  }

  void mark_bound(const json::object& pvc, const json::object& pv) {
    const json::object* pv_spec = object_at(pv, "spec");
    if (string_at(object_at(pv, "status"), "phase") != "Bound")  // a volume bound statically
      kit_.put_status("/api/v1/persistentvolumes/" + meta_string(pv, "name"), pv,
                      json::object{{"phase", "Bound"}}, kVolumeBinder);
    json::object st{{"phase", "Bound"}};
    if (auto* m = pv_spec ? pv_spec->if_contains("accessModes") : nullptr) st["accessModes"] = *m;
    if (const json::object* cap = object_at(pv_spec, "capacity")) st["capacity"] = *cap;
    bool was_bound = string_at(object_at(pvc, "status"), "phase") == "Bound";
    kit_.put_status(pvc_path(meta_string(pvc, "namespace"), meta_string(pvc, "name")), pvc,
                    std::move(st), kVolumeBinder);
    // The audit log's word that the claim is Bound: tests order pod bindings after it.
    if (!was_bound)
      kit_.ready_event(audit_id("v1", "PersistentVolumeClaim", meta_string(pvc, "namespace"),
                                meta_string(pvc, "name")),
                       "bound");
  }

  // A claim went: its provisioned volume goes too (reclaim policy Delete).
  void release(const std::string& claim_uid) {
    StoredObject pv = kit_.store().get("/persistentvolumes", "", "pvc-" + claim_uid);
    if (!pv) return;
    std::string policy = string_at(object_at(*pv, "spec"), "persistentVolumeReclaimPolicy");
    if (policy != "Delete") return;
    kit_.write("DELETE", "/api/v1/persistentvolumes/pvc-" + claim_uid, "application/json",
               json::object{}, kVolumeBinder);
  }

  ControllerKit& kit_;
  WorkQueue queue_;
};

}  // namespace

std::unique_ptr<WorkloadController> start_volume_controller(ControllerKit& kit) {
  return std::make_unique<VolumeController>(kit);
}

}  // namespace planter::sim
