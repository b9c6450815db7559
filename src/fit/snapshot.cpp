#include "fit/snapshot.h"

#include <algorithm>
#include <array>
#include <boost/json.hpp>

#include "fit/json_fields.h"
#include "model/well_known_labels.h"

namespace planter::fit {

namespace json = boost::json;

double room_left(const NodeInfo& n, const Resources& extra) {
  auto share = [](int64_t all, int64_t used) {
    return all > 0 ? static_cast<double>(all - used) / static_cast<double>(all) : 0.0;
  };
  return (share(n.allocatable.milli_cpu, add_sat(n.requested.milli_cpu, extra.milli_cpu)) +
          share(n.allocatable.memory, add_sat(n.requested.memory, extra.memory))) /
         2;
}

Resources free_of(const NodeInfo& n) {
  Resources out = n.allocatable;
  out -= n.requested;
  out.milli_cpu = std::max<int64_t>(0, out.milli_cpu);
  out.memory = std::max<int64_t>(0, out.memory);
  out.ephemeral_storage = std::max<int64_t>(0, out.ephemeral_storage);
  std::erase_if(out.scalar, [](const auto& p) { return p.second <= 0; });
  return out;
}

namespace {

// A Node as the filters read it, without pods.
NodeInfo node_info(const json::object& node) {
  NodeInfo n;
  const json::object* meta = object_in(&node, "metadata");
  n.name = text_in(meta, "name");
  n.labels = labels_of(object_in(meta, "labels"));
  const json::object* spec = object_in(&node, "spec");
  if (spec) {
    if (const json::value* ts = spec->if_contains("taints"); ts && ts->is_array())
      for (const json::value& t : ts->as_array())
        if (const json::object* o = t.if_object())
          n.taints.push_back({text_in(o, "key"), text_in(o, "value"), text_in(o, "effect")});
    if (const json::value* u = spec->if_contains("unschedulable"); u && u->is_bool())
      n.unschedulable = u->as_bool();
  }
  const json::object* status = object_in(&node, "status");
  const json::object* alloc = object_in(status, "allocatable");
  if (!alloc) alloc = object_in(status, "capacity");
  n.allocatable = resources_of(alloc);
  n.allowed_pods = allowed_pods(alloc);
  return n;
}

}  // namespace

void keep_what_the_fit_reads(json::object& node) {
  struct Part {
    std::string_view name;
    std::array<std::string_view, 4> fields;  // empty ones are none
  };
  static constexpr Part kKept[] = {
      {"metadata", {"name", "uid", "resourceVersion", "labels"}},
      {"spec", {"taints", "unschedulable"}},
      {"status", {"allocatable", "capacity"}},
  };
  auto move_field = [](json::object& from, json::object& to, std::string_view key) {
    if (auto it = from.find(key); it != from.end()) to.emplace(key, std::move(it->value()));
  };
  // Built afresh rather than erased in place: the object's storage shrinks to what is kept.
  json::object kept;
  move_field(node, kept, "apiVersion");
  move_field(node, kept, "kind");
  for (const Part& part : kKept) {
    json::value* from = node.if_contains(part.name);
    if (!from || !from->is_object()) continue;
    json::object out;
    for (std::string_view f : part.fields)
      if (!f.empty()) move_field(from->as_object(), out, f);
    kept.emplace(part.name, std::move(out));
  }
  node = std::move(kept);
}

void Snapshot::add_node(const json::object& node) {
  NodeInfo n = node_info(node);
  if (n.name.empty() || by_name_.contains(n.name)) return;
  by_name_.emplace(n.name, nodes_.size());
  nodes_.push_back(std::move(n));
}

void Snapshot::add_pod(const json::object& pod, const std::set<std::string>& uncounted) {
  const json::object* spec = object_in(&pod, "spec");
  auto it = by_name_.find(text_in(spec, "nodeName"));
  if (it == by_name_.end()) return;
  std::string phase = text_in(object_in(&pod, "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") return;
  // A pod of an uncounted stack only says the stack is there: the stack being fitted, or the
  // held ones' placements, stand for it whole (requests, labels, ports, anti-affinity).
  const json::value* stack = nullptr;
  if (const json::object* labels = object_in(object_in(&pod, "metadata"), "labels"))
    stack = labels->if_contains(kStackLabel);
  if (stack && stack->is_string() && uncounted.contains(std::string(stack->as_string()))) {
    nodes_[it->second].stacks.insert(std::string(stack->as_string()));
    devices_.give_back(pod);
    return;
  }
  place(it->second, std::make_shared<PodInfo>(PodInfo::from(pod)), 1, true);
}

void Snapshot::place(size_t n, std::shared_ptr<const PodInfo> pod, int64_t copies, bool counted) {
  NodeInfo& node = nodes_[n];
  if (counted) {
    node.requested += copies == 1 ? pod->requests : pod->requests.times(copies);
    node.pod_count = add_sat(node.pod_count, copies);
  }
  if (!pod->stack.empty()) node.stacks.insert(pod->stack);
  if (!pod->group.empty()) node.groups.insert(pod->ns + "/" + pod->group);
  node.used_ports.insert(node.used_ports.end(), pod->host_ports.begin(), pod->host_ports.end());
  if (counted)
    for (const std::string& c : pod->claims)
      claim_users_[pod->ns + "/" + c] = add_sat(claim_users_[pod->ns + "/" + c], copies);
  if (!pod->anti_affinity.empty()) anti_pods_.emplace_back(n, node.pods.size());
  node.pods.push_back({std::move(pod), copies});
}

void Snapshot::assume(size_t n, std::shared_ptr<const PodInfo> pod, int64_t copies) {
  device_marks_.push_back(devices_.mark());
  if (devices_.takes_devices(*pod))
    for (int64_t i = 0; i < copies; ++i) {
      PodDevices claims = devices_.resolve(*pod);
      auto got = devices_.allocate(claims, nodes_[n].name, nodes_[n].labels, nodes_[n].allocatable);
      if (!got) break;  // a held decision the cluster has changed under: it takes what is left
      devices_.take(claims, *got, nodes_[n].name);
    }
  place(n, std::move(pod), copies, true);
  assumed_.push_back(n);
}

void Snapshot::forget(size_t count) {
  for (; count > 0 && !assumed_.empty(); --count) {
    size_t n = assumed_.back();
    assumed_.pop_back();
    devices_.release(device_marks_.back());
    device_marks_.pop_back();
    NodeInfo& node = nodes_[n];
    PlacedPod placed = std::move(node.pods.back());
    node.pods.pop_back();
    node.used_ports.resize(node.used_ports.size() - placed->host_ports.size());
    if (!placed->anti_affinity.empty()) anti_pods_.pop_back();
    unplace(node, placed);
  }
}

// What a pod taken off `node` counted there, its ports and anti_pods_ entries excepted.
void Snapshot::unplace(NodeInfo& node, const PlacedPod& placed) {
  const std::shared_ptr<const PodInfo>& pod = placed.info;
  node.requested -= placed.copies == 1 ? pod->requests : pod->requests.times(placed.copies);
  node.pod_count = add_sat(node.pod_count, -placed.copies);
  for (const std::string& c : pod->claims) {
    auto users = claim_users_.find(pod->ns + "/" + c);
    if (users != claim_users_.end() && (users->second -= placed.copies) <= 0)
      claim_users_.erase(users);
  }
  // Sets are rebuilt from what is left: another pod of the same stack or group may remain.
  auto still = [&](auto pred) {
    for (const auto& p : node.pods)
      if (pred(*p)) return true;
    return false;
  };
  if (!pod->stack.empty() && !still([&](const PodInfo& p) { return p.stack == pod->stack; }))
    node.stacks.erase(pod->stack);
  if (!pod->group.empty() &&
      !still([&](const PodInfo& p) { return p.ns == pod->ns && p.group == pod->group; }))
    node.groups.erase(pod->ns + "/" + pod->group);
}

void Snapshot::index_anti_pods(size_t n) {
  std::erase_if(anti_pods_, [&](const auto& e) { return e.first == n; });
  const NodeInfo& node = nodes_[n];
  for (size_t i = 0; i < node.pods.size(); ++i)
    if (!node.pods[i]->anti_affinity.empty()) anti_pods_.emplace_back(n, i);
}

void Snapshot::set_node(const json::object& node) {
  NodeInfo now = node_info(node);
  auto it = by_name_.find(now.name);
  if (it == by_name_.end()) {
    add_node(node);
    return;
  }
  // What the Node says; its pods, and what they take, stay.
  NodeInfo& was = nodes_[it->second];
  was.labels = std::move(now.labels);
  was.taints = std::move(now.taints);
  was.unschedulable = now.unschedulable;
  was.allocatable = std::move(now.allocatable);
  was.allowed_pods = now.allowed_pods;
}

void Snapshot::remove_node(const std::string& name) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return;
  size_t n = it->second;
  NodeInfo& node = nodes_[n];
  while (!node.pods.empty()) {
    PlacedPod placed = std::move(node.pods.back());
    node.pods.pop_back();
    unplace(node, placed);
  }
  nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(n));
  by_name_.erase(it);
  for (auto& [_, index] : by_name_)
    if (index > n) --index;
  std::erase_if(anti_pods_, [&](const auto& e) { return e.first == n; });
  for (auto& [node_index, _] : anti_pods_)
    if (node_index > n) --node_index;
}

void Snapshot::add_pod(size_t n, std::shared_ptr<const PodInfo> pod) {
  place(n, std::move(pod), 1, true);
}

bool Snapshot::remove_pod(size_t n, const std::string& uid) {
  NodeInfo& node = nodes_[n];
  auto it = std::find_if(node.pods.begin(), node.pods.end(),
                         [&](const PlacedPod& p) { return p->uid == uid; });
  if (it == node.pods.end()) return false;
  PlacedPod placed = std::move(*it);
  node.pods.erase(it);
  node.used_ports.clear();
  for (const PlacedPod& p : node.pods)
    node.used_ports.insert(node.used_ports.end(), p->host_ports.begin(), p->host_ports.end());
  unplace(node, placed);
  if (!placed->anti_affinity.empty() || std::any_of(anti_pods_.begin(), anti_pods_.end(),
                                                    [&](const auto& e) { return e.first == n; }))
    index_anti_pods(n);
  return true;
}

void Snapshot::clear_volumes() {
  devices_ = DeviceInventory();
  if (volumes_complete_) devices_.set_complete();
  claims_.clear();
  volumes_.clear();
  volume_index_.clear();
  classes_.clear();
  claim_undo_.clear();
}

void Snapshot::select_claim(const std::string& ns, const std::string& name, const std::string& node,
                            const std::string& volume) {
  auto c = claims_.find(ns + "/" + name);
  if (c == claims_.end()) return;
  ClaimUndo undo{c->first, c->second, "", "", ""};
  if (volume.empty()) {
    c->second.selected_node = node;
  } else if (auto v = volume_index_.find(volume); v != volume_index_.end()) {
    Volume& vol = volumes_[v->second];
    undo.volume = volume;
    undo.claim_ns = vol.claim_ns;
    undo.claim_name = vol.claim_name;
    vol.claim_ns = ns;
    vol.claim_name = name;
    c->second.volume = volume;
  }
  claim_undo_.push_back(std::move(undo));
}

void Snapshot::unselect_claims(size_t mark) {
  while (claim_undo_.size() > mark) {
    ClaimUndo& u = claim_undo_.back();
    claims_[u.key] = std::move(u.before);
    if (auto v = volume_index_.find(u.volume); !u.volume.empty() && v != volume_index_.end()) {
      volumes_[v->second].claim_ns = u.claim_ns;
      volumes_[v->second].claim_name = u.claim_name;
    }
    claim_undo_.pop_back();
  }
}

namespace {

std::vector<std::string> strings_in(const json::object* o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o ? o->if_contains(key) : nullptr;
  if (v && v->is_array())
    for (const json::value& e : v->as_array())
      if (e.is_string()) out.emplace_back(e.as_string());
  return out;
}

int64_t storage_of(const json::object* list) {
  return resources_of(list).get("storage");
}

}  // namespace

bool Claim::read_write_once_pod() const {
  return std::find(access_modes.begin(), access_modes.end(), "ReadWriteOncePod") !=
         access_modes.end();
}

void Snapshot::add_volume_object(const json::object& o) {
  if (devices_.add(o)) return;
  std::string kind = text_in(&o, "kind");
  const json::object* meta = object_in(&o, "metadata");
  const json::object* spec = object_in(&o, "spec");
  if (kind == "PersistentVolumeClaim") {
    Claim c;
    c.ns = text_in(meta, "namespace");
    c.name = text_in(meta, "name");
    c.volume = text_in(spec, "volumeName");
    if (const json::object* a = object_in(meta, "annotations"))
      c.selected_node = text_in(a, "volume.kubernetes.io/selected-node");
    c.class_name = text_in(spec, "storageClassName");
    c.class_given = spec && spec->contains("storageClassName");
    c.created = meta && meta->contains("uid");
    c.deleting = meta && meta->contains("deletionTimestamp");
    c.access_modes = strings_in(spec, "accessModes");
    if (std::string mode = text_in(spec, "volumeMode"); !mode.empty()) c.volume_mode = mode;
    c.request = storage_of(object_in(object_in(spec, "resources"), "requests"));
    if (const json::value* sel = spec ? spec->if_contains("selector") : nullptr;
        sel && sel->is_object()) {
      c.has_selector = true;
      if (auto parsed = LabelSelector::from_json(*sel)) c.selector = std::move(*parsed);
    }
    std::string key = c.ns + "/" + c.name;
    claims_[key] = std::move(c);
  } else if (kind == "PersistentVolume") {
    Volume v;
    v.name = text_in(meta, "name");
    if (v.name.empty() || volume_index_.contains(v.name)) return;
    if (const json::object* required = object_in(object_in(spec, "nodeAffinity"), "required")) {
      v.has_terms = true;
      const json::value* t = required->if_contains("nodeSelectorTerms");
      v.node_affinity = NodeTerms(t && t->is_array() ? t->as_array() : json::array{});
    }
    v.class_name = text_in(spec, "storageClassName");
    v.access_modes = strings_in(spec, "accessModes");
    if (std::string mode = text_in(spec, "volumeMode"); !mode.empty()) v.volume_mode = mode;
    v.capacity = storage_of(object_in(spec, "capacity"));
    const json::object* ref = object_in(spec, "claimRef");
    v.claim_ns = text_in(ref, "namespace");
    v.claim_name = text_in(ref, "name");
    v.labels = labels_of(object_in(meta, "labels"));
    v.deleting = meta && meta->contains("deletionTimestamp");
    volume_index_.emplace(v.name, volumes_.size());
    volumes_.push_back(std::move(v));
  } else if (kind == "StorageClass") {
    StorageClass c;
    c.name = text_in(meta, "name");
    c.wait_for_first_consumer = text_in(&o, "volumeBindingMode") == "WaitForFirstConsumer";
    c.provisioner = text_in(&o, "provisioner");
    c.is_default = text_in(object_in(meta, "annotations"),
                           "storageclass.kubernetes.io/is-default-class") == "true";
    json::array allowed;  // allowedTopologies as nodeSelectorTerms
    if (const json::value* t = o.if_contains("allowedTopologies"); t && t->is_array())
      for (const json::value& term : t->as_array()) {
        json::array exprs;  // an empty term matches no node, as an empty nodeSelectorTerm
        if (const json::object* to = term.if_object())
          if (const json::value* es = to->if_contains("matchLabelExpressions");
              es && es->is_array())
            for (const json::value& e : es->as_array())
              if (const json::object* eo = e.if_object())
                exprs.push_back(json::object{
                    {"key", eo->contains("key") ? eo->at("key") : ""},
                    {"operator", "In"},
                    {"values", eo->contains("values") ? eo->at("values") : json::array{}}});
        allowed.push_back(json::object{{"matchExpressions", std::move(exprs)}});
      }
    c.allowed = NodeTerms(allowed);
    classes_[c.name] = c;
  }
}

const Claim* Snapshot::claim(const std::string& ns, const std::string& name) const {
  auto it = claims_.find(ns + "/" + name);
  return it == claims_.end() ? nullptr : &it->second;
}

const Volume* Snapshot::volume(const std::string& name) const {
  auto it = volume_index_.find(name);
  return it == volume_index_.end() ? nullptr : &volumes_[it->second];
}

const StorageClass* Snapshot::storage_class(const std::string& name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

const StorageClass* Snapshot::class_of(const Claim& claim) const {
  if (claim.class_given)
    return claim.class_name.empty() ? nullptr : storage_class(claim.class_name);
  for (const auto& [_, c] : classes_)
    if (c.is_default) return &c;
  return nullptr;
}

int64_t Snapshot::claim_users(const std::string& ns, const std::string& name) const {
  auto it = claim_users_.find(ns + "/" + name);
  return it == claim_users_.end() ? 0 : it->second;
}

const NodeInfo* Snapshot::node(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &nodes_[it->second];
}

std::optional<size_t> Snapshot::index(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

}  // namespace planter::fit
