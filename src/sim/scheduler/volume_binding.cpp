#include "sim/scheduler/volume_binding.h"

#include "sim/json_access.h"
#include "sim/scheduler/node_match.h"

namespace planter::sim::sched {

namespace json = boost::json;

VolumeBindingCheck::VolumeBindingCheck(const json::object& pod, const Store& store) {
  std::string ns = meta_string(pod, "namespace");
  const json::object* spec = object_at(pod, "spec");
  auto* volumes = spec ? spec->if_contains("volumes") : nullptr;
  if (!volumes || !volumes->is_array()) return;
  bool unbound_immediate = false;
  for (const auto& v : volumes->as_array()) {
    const json::object* claim_ref =
        v.is_object() ? object_at(v.as_object(), "persistentVolumeClaim") : nullptr;
    if (!claim_ref) continue;
    std::string name = string_at(claim_ref, "claimName");
    StoredObject pvc = store.get("/persistentvolumeclaims", ns, name);
    if (!pvc) {
      prefilter_failure_ = "persistentvolumeclaim \"" + name + "\" not found";
      return;
    }
    if (!meta_string(*pvc, "deletionTimestamp").empty()) {
      prefilter_failure_ = "persistentvolumeclaim \"" + name + "\" is being deleted";
      return;
    }
    std::string volume = string_at(object_at(*pvc, "spec"), "volumeName");
    if (!volume.empty()) {
      if (StoredObject pv = store.get("/persistentvolumes", "", volume))
        bound_volumes_.push_back(pv);
      continue;
    }
    std::string class_name = string_at(object_at(*pvc, "spec"), "storageClassName");
    StoredObject sc = store.get("storage.k8s.io/storageclasses", "", class_name);
    if (sc && string_at(*sc, "volumeBindingMode") == "WaitForFirstConsumer")
      delayed_.push_back(pvc);
    else
      unbound_immediate = true;
  }
  if (unbound_immediate) prefilter_failure_ = "pod has unbound immediate PersistentVolumeClaims";
}

std::optional<VolumeBindingCheck::Failure> VolumeBindingCheck::filter(const NodeInfo& node) const {
  for (const auto& pv : bound_volumes_) {
    const json::object* affinity = object_at(object_at(*pv, "spec"), "nodeAffinity");
    const json::object* required = object_at(affinity, "required");
    if (!required) continue;
    bool admitted = false;
    if (auto* terms = required->if_contains("nodeSelectorTerms"); terms && terms->is_array())
      for (const auto& t : terms->as_array())
        if (t.is_object() && node_selector_term_matches(t.as_object(), *node.node)) admitted = true;
    if (!admitted) return Failure{kConflictReason, false};
  }
  for (const auto& pvc : delayed_) {
    std::string selected =
        string_at(object_at(object_at(*pvc, "metadata"), "annotations"), kSelectedNode);
    if (!selected.empty() && selected != node.name) return Failure{kBindConflictReason, false};
  }
  return std::nullopt;
}

}  // namespace planter::sim::sched
