#include "sim/kube_scheduler/cache.h"

#include <algorithm>

#include "sim/json_access.h"
#include "sim/kube_scheduler/quantity.h"

namespace planter::sim::sched {

namespace json = boost::json;

namespace {

const json::object kEmpty;

std::shared_ptr<PodInfo> pod_info(StoredObject pod, const std::string& node) {
  auto info = std::make_shared<PodInfo>();
  info->ns = meta_string(*pod, "namespace");
  info->key = info->ns + "/" + meta_string(*pod, "name");
  info->node = node;
  const json::object* spec = object_at(*pod, "spec");
  if (spec) {
    info->requests = pod_requests(*spec);
    info->nonzero = pod_nonzero_requests(*spec);
    info->host_ports = host_ports(*spec);
  }
  info->pod = std::move(pod);
  info->labels_ = object_at(object_at(*info->pod, "metadata"), "labels");
  return info;
}

}  // namespace

const json::object& PodInfo::spec() const {
  const json::object* s = object_at(*pod, "spec");
  return s ? *s : kEmpty;
}

bool pod_finished(const json::object& pod) {
  std::string phase = string_at(object_at(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

const NodeInfo* Cache::node(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

NodeInfo* Cache::node(const std::string& name) {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

unsigned Cache::apply(const Change& change) {
  if (change.storage_key == "/nodes") return apply_node(change);
  if (change.storage_key == "/pods") return apply_pod(change);
  return kNothing;
}

unsigned Cache::apply_node(const Change& ch) {
  std::string name = meta_string(*ch.object, "name");
  if (ch.type == EventType::kDeleted) {
    if (NodeInfo* gone = node(name)) {
      for (auto& [_, info] : gone->pods) locate(*info, nullptr);
      order_.erase(std::remove(order_.begin(), order_.end(), gone), order_.end());
    }
    nodes_.erase(name);
    return kNothing;
  }
  auto [it, fresh] = nodes_.try_emplace(name);
  NodeInfo& n = it->second;
  if (fresh) {
    n.name = name;
    order_.push_back(&n);
    // Pods bound to the node before it was seen.
    for (const auto& [key, info] : pods_)
      if (info->node == name) {
        n.requested.add(info->requests);
        n.nonzero_requested.cpu_milli += info->nonzero.cpu_milli;
        n.nonzero_requested.memory += info->nonzero.memory;
        n.pods[key] = info;
        locate(*info, &n);
      }
  }
  bool changed = !n.node || *n.node != *ch.object;
  n.node = ch.object;
  n.taints = taints_of(*ch.object);
  const json::object* spec = object_at(*ch.object, "spec");
  auto* u = spec ? spec->if_contains("unschedulable") : nullptr;
  n.unschedulable = u && u->is_bool() && u->as_bool();
  const json::object* allocatable = object_at(object_at(*ch.object, "status"), "allocatable");
  n.allocatable = Resources::from_list(allocatable);
  n.allocatable_pods = whole_units(
      parse_milli(allocatable ? allocatable->if_contains("pods") : nullptr).value_or(0));
  NodeLabels label_values;
  if (const json::object* labels = n.labels())
    for (const auto& [k, v] : *labels)
      if (v.is_string()) label_values.emplace(std::string(k), std::string(v.as_string()));
  if (label_values != n.label_values_) {
    n.label_values_ = std::move(label_values);
    groups_.forget_domains();
  }
  return changed ? kNodeChanged : kNothing;
}

unsigned Cache::apply_pod(const Change& ch) {
  std::string key = ch.ns + "/" + meta_string(*ch.object, "name");
  const json::object* spec = object_at(*ch.object, "spec");
  std::string node = string_at(spec, "nodeName");
  bool holds = ch.type != EventType::kDeleted && !node.empty() && !pod_finished(*ch.object);
  if (!holds) return remove_pod(key) ? kPodRemoved : kNothing;
  auto it = pods_.find(key);
  unsigned effect = kPodAdded;
  if (it != pods_.end()) {
    const json::object* before = it->second->labels();
    const json::object* after = object_at(object_at(*ch.object, "metadata"), "labels");
    bool labels_changed =
        (before == nullptr) != (after == nullptr) || (before && *before != *after);
    effect = labels_changed ? kPodLabelsChanged : kNothing;
    remove_pod(key);
  }
  add_pod(pod_info(ch.object, node));
  return effect;
}

void Cache::assume(const StoredObject& pod, const std::string& node) {
  auto placed = std::make_shared<json::object>(*pod);
  json::value& spec = (*placed)["spec"];
  if (!spec.is_object()) spec = json::object{};
  spec.as_object()["nodeName"] = node;
  add_pod(pod_info(std::move(placed), node));
}

void Cache::forget(const std::string& key) {
  remove_pod(key);
}

void Cache::locate(PodInfo& info, NodeInfo* n) {
  if (info.where) groups_.place(*info.group, info.where, -1);
  info.where = n;
  if (n) groups_.place(*info.group, n, 1);
}

void Cache::add_pod(std::shared_ptr<PodInfo> info) {
  info->group = groups_.join(info->ns, *info->pod);
  if (NodeInfo* n = node(info->node)) {
    n->requested.add(info->requests);
    n->nonzero_requested.cpu_milli += info->nonzero.cpu_milli;
    n->nonzero_requested.memory += info->nonzero.memory;
    n->pods[info->key] = info;
    locate(*info, n);
  }
  pods_[info->key] = std::move(info);
}

bool Cache::remove_pod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return false;
  std::shared_ptr<PodInfo> info = it->second;
  pods_.erase(it);
  locate(*info, nullptr);
  groups_.leave(info->group);
  if (NodeInfo* n = node(info->node)) {
    n->requested.subtract(info->requests);
    n->nonzero_requested.cpu_milli -= info->nonzero.cpu_milli;
    n->nonzero_requested.memory -= info->nonzero.memory;
    n->pods.erase(key);
  }
  return true;
}

}  // namespace planter::sim::sched
