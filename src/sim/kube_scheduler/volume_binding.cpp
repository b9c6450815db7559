#include "sim/kube_scheduler/volume_binding.h"

#include <algorithm>
#include <set>

#include "sim/json_access.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

constexpr const char* kNoProvisioner = "kubernetes.io/no-provisioner";

std::set<std::string> strings_of(const json::object* o, std::string_view key) {
  std::set<std::string> out;
  const json::value* v = o ? o->if_contains(key) : nullptr;
  if (v && v->is_array())
    for (const auto& e : v->as_array())
      if (e.is_string()) out.emplace(e.as_string());
  return out;
}

std::string mode_of(const json::object* spec) {
  std::string m = string_at(spec, "volumeMode");
  return m.empty() ? "Filesystem" : m;
}

int64_t storage_milli(const json::object* list) {
  return parse_milli(list ? list->if_contains("storage") : nullptr).value_or(0);
}

// Whether the available volume `pv` may bind `pvc`, its node aside (the persistent volume
// controller's matching: claimRef, class, volume mode, access modes, size, selector).
bool matches(const json::object& pvc, const json::object& pv) {
  if (!meta_string(pv, "deletionTimestamp").empty()) return false;
  const json::object* claim = object_at(pvc, "spec");
  const json::object* vol = object_at(pv, "spec");
  if (const json::object* ref = object_at(vol, "claimRef");
      ref && (string_at(ref, "namespace") != meta_string(pvc, "namespace") ||
              string_at(ref, "name") != meta_string(pvc, "name")))
    return false;
  if (string_at(vol, "storageClassName") != string_at(claim, "storageClassName")) return false;
  if (mode_of(vol) != mode_of(claim)) return false;
  std::set<std::string> offered = strings_of(vol, "accessModes");
  for (const std::string& m : strings_of(claim, "accessModes"))
    if (!offered.contains(m)) return false;
  if (storage_milli(object_at(vol, "capacity")) <
      storage_milli(object_at(object_at(claim, "resources"), "requests")))
    return false;
  if (const json::value* sel = claim ? claim->if_contains("selector") : nullptr;
      sel && !sel->is_null() &&
      !label_selector_matches(sel, object_at(object_at(pv, "metadata"), "labels")))
    return false;
  return true;
}

// One of `terms` (nodeSelectorTerms, ORed) admits the node.
bool terms_admit(const json::value* terms, const json::object& node) {
  if (!terms || !terms->is_array()) return false;
  for (const auto& t : terms->as_array())
    if (t.is_object() && node_selector_term_matches(t.as_object(), node)) return true;
  return false;
}

// A StorageClass's allowedTopologies as the nodeSelectorTerms they amount to: each
// matchLabelExpression an `In` requirement (a term without any matches no node). Null when the
// class names none: every node.
std::optional<json::value> topology_terms(const json::object& sc) {
  const json::value* topologies = sc.if_contains("allowedTopologies");
  if (!topologies || !topologies->is_array() || topologies->as_array().empty()) return std::nullopt;
  json::array terms;
  for (const auto& t : topologies->as_array()) {
    json::array exprs;
    const json::value* es =
        t.is_object() ? t.as_object().if_contains("matchLabelExpressions") : nullptr;
    if (es && es->is_array())
      for (const auto& e : es->as_array())
        if (e.is_object())
          exprs.push_back(
              json::object{{"key", string_at(e.as_object(), "key")},
                           {"operator", "In"},
                           {"values", e.as_object().contains("values") ? e.as_object().at("values")
                                                                       : json::array{}}});
    terms.push_back(json::object{{"matchExpressions", std::move(exprs)}});
  }
  return json::value(std::move(terms));
}

}  // namespace

bool volume_admits(const json::object& pv, const json::object& node) {
  const json::object* required =
      object_at(object_at(object_at(pv, "spec"), "nodeAffinity"), "required");
  return !required || terms_admit(required->if_contains("nodeSelectorTerms"), node);
}

VolumeBindingCheck::VolumeBindingCheck(const json::object& pod, const Store& store) {
  std::string ns = meta_string(pod, "namespace");
  std::string self = meta_string(pod, "uid");
  const json::object* spec = object_at(pod, "spec");
  auto* volumes = spec ? spec->if_contains("volumes") : nullptr;
  if (!volumes || !volumes->is_array()) return;
  bool unbound_immediate = false;
  std::set<std::string> read_write_once_pod;
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
    if (strings_of(object_at(*pvc, "spec"), "accessModes").contains("ReadWriteOncePod"))
      read_write_once_pod.insert(name);
    std::string volume = string_at(object_at(*pvc, "spec"), "volumeName");
    if (!volume.empty()) {
      if (StoredObject pv = store.get("/persistentvolumes", "", volume))
        bound_volumes_.push_back(pv);
      continue;
    }
    std::string class_name = string_at(object_at(*pvc, "spec"), "storageClassName");
    StoredObject sc = store.get("storage.k8s.io/storageclasses", "", class_name);
    if (!sc || string_at(*sc, "volumeBindingMode") != "WaitForFirstConsumer") {
      unbound_immediate = true;
      continue;
    }
    Delayed d{pvc, sc, {}, topology_terms(*sc)};
    for (const auto& [_, pv] : store.bucket("/persistentvolumes"))
      if (matches(*pvc, *pv)) d.volumes.push_back(pv);
    std::stable_sort(d.volumes.begin(), d.volumes.end(), [](const auto& a, const auto& b) {
      return storage_milli(object_at(object_at(*a, "spec"), "capacity")) <
             storage_milli(object_at(object_at(*b, "spec"), "capacity"));
    });
    delayed_.push_back(std::move(d));
  }
  if (unbound_immediate) prefilter_failure_ = "pod has unbound immediate PersistentVolumeClaims";
  if (read_write_once_pod.empty()) return;
  for (const auto& [_, other] : store.bucket("/pods")) {
    if (meta_string(*other, "namespace") != ns || meta_string(*other, "uid") == self ||
        pod_finished(*other))
      continue;
    const json::object* ospec = object_at(*other, "spec");
    if (string_at(ospec, "nodeName").empty()) continue;
    auto* ovolumes = ospec->if_contains("volumes");
    if (!ovolumes || !ovolumes->is_array()) continue;
    for (const auto& v : ovolumes->as_array()) {
      const json::object* ref =
          v.is_object() ? object_at(v.as_object(), "persistentVolumeClaim") : nullptr;
      if (ref && read_write_once_pod.contains(string_at(ref, "claimName")))
        read_write_once_pod_taken_ = true;
    }
  }
}

bool VolumeBindingCheck::delayed_fit(const NodeInfo& node, Placement* out) const {
  std::set<const json::object*> chosen;
  for (const Delayed& d : delayed_) {
    std::string selected =
        string_at(object_at(object_at(*d.claim, "metadata"), "annotations"), kSelectedNode);
    if (!selected.empty()) {
      if (selected != node.name) return false;
      continue;  // being provisioned there already
    }
    auto pv = std::find_if(d.volumes.begin(), d.volumes.end(), [&](const StoredObject& v) {
      return !chosen.contains(v.get()) && volume_admits(*v, *node.node);
    });
    if (pv != d.volumes.end()) {
      chosen.insert(pv->get());
      if (out) out->bind.emplace_back(d.claim, *pv);
      continue;
    }
    std::string provisioner = string_at(*d.storage_class, "provisioner");
    if (provisioner.empty() || provisioner == kNoProvisioner ||
        (d.topology && !terms_admit(&*d.topology, *node.node)))
      return false;
    if (out) out->provision.push_back(d.claim);
  }
  return true;
}

std::optional<VolumeBindingCheck::Failure> VolumeBindingCheck::filter(const NodeInfo& node) const {
  if (read_write_once_pod_taken_) return Failure{kReadWriteOncePodReason, true};
  for (const auto& pv : bound_volumes_)
    if (!volume_admits(*pv, *node.node)) return Failure{kConflictReason, false};
  if (!delayed_fit(node, nullptr)) return Failure{kBindConflictReason, false};
  return std::nullopt;
}

VolumeBindingCheck::Placement VolumeBindingCheck::place_on(const NodeInfo& node) const {
  Placement out;
  delayed_fit(node, &out);
  return out;
}

}  // namespace planter::sim::sched
