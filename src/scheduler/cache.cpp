#include "scheduler/cache.h"

#include <boost/json.hpp>

#include "model/object.h"

namespace planter::scheduler {

namespace json = boost::json;

namespace {

bool terminal(const json::object& pod) {
  std::string phase = string_field(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

bool deleting(const json::object& pod) {
  return find_path(pod, {"metadata", "deletionTimestamp"}) != nullptr;
}

std::string node_of(const json::object& pod) {
  return string_field(pod, {"spec", "nodeName"});
}

const json::value* labels_of(const json::object& pod) {
  return find_path(pod, {"metadata", "labels"});
}

bool same(const json::value* a, const json::value* b) {
  return a == b || (a && b && *a == *b);
}

std::string uid_of(const json::object& pod) {
  return string_field(pod, {"metadata", "uid"});
}

std::string gang_of(const fit::PodInfo& p) {
  return p.group.empty() ? "" : p.ns + "/" + p.group;
}

}  // namespace

void ClusterCache::push(Delta d) {
  std::lock_guard lock(inbox_mu_);
  inbox_.push_back(std::move(d));
}

void ClusterCache::node_changed(const json::object& node) {
  Delta d{Delta::kNode, node, string_field(node, {"metadata", "name"}), nullptr, false};
  push(std::move(d));
}

void ClusterCache::node_deleted(const json::object& node) {
  push({Delta::kNodeGone, {}, string_field(node, {"metadata", "name"}), nullptr, false});
}

void ClusterCache::pod_changed(const json::object* before, const json::object& pod) {
  std::string uid = uid_of(pod);
  if (terminal(pod)) {
    push({Delta::kGone, {}, uid, nullptr, false});
    return;
  }
  std::string node = node_of(pod);
  if (!node.empty()) {
    // Status written by the kubelet changes nothing the view counts.
    if (before && !terminal(*before) && node_of(*before) == node &&
        deleting(*before) == deleting(pod) && same(labels_of(*before), labels_of(pod)))
      return;
    push({Delta::kBound,
          {},
          uid,
          std::make_shared<fit::PodInfo>(fit::PodInfo::from(pod)),
          deleting(pod)});
    return;
  }
  const json::string* scheduler = find_string(pod, {"spec", "schedulerName"});
  if (!scheduler || *scheduler != name_) return;
  if (deleting(pod)) {
    push({Delta::kGone, {}, uid, nullptr, false});
    return;
  }
  // Its PodScheduled condition, written by this scheduler, is no new pod to place; the claims
  // the ResourceClaim controller made for it (status.resourceClaimStatuses) are.
  if (before && node_of(*before).empty() && !deleting(*before) &&
      same(find_path(*before, {"spec"}), find_path(pod, {"spec"})) &&
      same(labels_of(*before), labels_of(pod)) &&
      same(find_path(*before, {"status", "resourceClaimStatuses"}),
           find_path(pod, {"status", "resourceClaimStatuses"})))
    return;
  push({Delta::kPending, {}, uid, std::make_shared<fit::PodInfo>(fit::PodInfo::from(pod)), false});
}

void ClusterCache::pod_deleted(const json::object& pod) {
  push({Delta::kGone, {}, uid_of(pod), nullptr, false});
}

void ClusterCache::volumes_changed() {
  push({Delta::kVolumes, {}, "", nullptr, false});
}

void ClusterCache::groups_changed() {
  push({Delta::kGroups, {}, "", nullptr, false});
}

bool ClusterCache::unbind(const std::string& uid) {
  auto it = bound_.find(uid);
  if (it == bound_.end()) return false;
  if (auto n = view_.index(it->second.node)) view_.remove_pod(*n, uid);
  if (std::string g = gang_of(*it->second.info); !g.empty()) {
    auto members = gangs_.find(g);
    if (members != gangs_.end() && members->second.erase(uid) && members->second.empty())
      gangs_.erase(members);
  }
  auto on = by_node_.find(it->second.node);
  if (on != by_node_.end() && on->second.erase(uid) && on->second.empty()) by_node_.erase(on);
  for (const ClaimChoice& c : it->second.claims) assumed_claims_.erase({c.ns, c.claim});
  for (const DeviceClaimChoice& c : it->second.devices)
    assumed_devices_.erase(c.ns + "/" + c.claim);
  bound_.erase(it);
  return true;
}

void ClusterCache::place(const std::string& uid, BoundPod p) {
  if (auto n = view_.index(p.node)) view_.add_pod(*n, p.info);
  if (std::string g = gang_of(*p.info); !g.empty() && !p.deleting) gangs_[g].insert(uid);
  by_node_[p.node].insert(uid);
  bound_.emplace(uid, std::move(p));
}

void ClusterCache::allocate_assumed_devices() {
  for (auto it = assumed_devices_.begin(); it != assumed_devices_.end();) {
    auto slash = it->first.find('/');
    const fit::DeviceClaim* c =
        view_.devices().claim(it->first.substr(0, slash), it->first.substr(slash + 1));
    if (!c || c->allocated) {
      it = assumed_devices_.erase(it);  // the watch shows it (or it is gone)
      continue;
    }
    view_.add_volume_object(it->second);
    ++it;
  }
}

void ClusterCache::select_assumed_claims() {
  for (auto it = assumed_claims_.begin(); it != assumed_claims_.end();) {
    const auto& [ns, name] = it->first;
    const fit::Claim* c = view_.claim(ns, name);
    if (!c || !c->volume.empty() || !c->selected_node.empty()) {
      it = assumed_claims_.erase(it);  // the watch shows it (or it is gone)
      continue;
    }
    view_.select_claim(ns, name, it->second.first, it->second.second);
    ++it;
  }
}

bool ClusterCache::apply(const VolumeReader& read_volumes) {
  std::vector<Delta> deltas;
  {
    std::lock_guard lock(inbox_mu_);
    deltas.swap(inbox_);
  }
  bool more_room = false, volumes = false;
  for (Delta& d : deltas) {
    switch (d.kind) {
      case Delta::kNode: {
        bool known = view_.index(d.name).has_value();
        view_.set_node(d.object);
        // Pods bound to it before it was seen (or while it was gone) count again.
        if (!known)
          if (auto on = by_node_.find(d.name); on != by_node_.end())
            if (auto n = view_.index(d.name))
              for (const std::string& uid : on->second) view_.add_pod(*n, bound_.at(uid).info);
        more_room = true;
        break;
      }
      case Delta::kNodeGone:
        view_.remove_node(d.name);
        more_room = true;
        break;
      case Delta::kBound: {
        pending_.erase(d.name);
        auto it = bound_.find(d.name);
        if (it != bound_.end() && it->second.assumed && it->second.node == d.pod->node_name &&
            !d.deleting) {
          it->second.assumed = false;  // our binding, confirmed
          break;
        }
        if (it != bound_.end()) {
          more_room = more_room || d.deleting || it->second.node != d.pod->node_name;
          unbind(d.name);
        }
        place(d.name, {d.pod, d.pod->node_name, false, d.deleting, {}});
        // A pod that another pod's affinity may be waiting for.
        more_room = more_room || !d.pod->labels.empty();
        break;
      }
      case Delta::kPending:
        if (!bound_.contains(d.name)) {
          // Its claims made since (the ResourceClaim controller named them): it may fit now.
          auto was = pending_.find(d.name);
          auto names = [](const fit::PodInfo& p) {
            std::vector<std::string> out;
            for (const auto& c : p.device_claims) out.push_back(c.claim);
            return out;
          };
          if (was != pending_.end() && names(*was->second) != names(*d.pod)) more_room = true;
          pending_[d.name] = d.pod;
        }
        break;
      case Delta::kGone:
        pending_.erase(d.name);
        if (unbind(d.name)) more_room = true;
        break;
      case Delta::kVolumes:
        volumes = true;
        break;
      case Delta::kGroups:
        more_room = true;
        break;
    }
  }
  if (volumes) {
    view_.clear_volumes();
    read_volumes([&](const json::object& o) { view_.add_volume_object(o); });
    select_assumed_claims();
    allocate_assumed_devices();
    more_room = true;
  }
  return more_room;
}

std::vector<const BoundPod*> ClusterCache::members(const std::string& gang) const {
  std::vector<const BoundPod*> out;
  if (auto it = gangs_.find(gang); it != gangs_.end())
    for (const std::string& uid : it->second) out.push_back(&bound_.at(uid));
  return out;
}

void ClusterCache::assume(const Binding& b) {
  auto it = pending_.find(b.pod->uid);
  if (it == pending_.end()) return;
  std::shared_ptr<const fit::PodInfo> info = it->second;
  pending_.erase(it);
  for (const ClaimChoice& c : b.claims) {
    assumed_claims_[{c.ns, c.claim}] = {b.node, c.volume};
    view_.select_claim(c.ns, c.claim, b.node, c.volume);
  }
  // The claims' devices are taken until the watch shows them allocated (an allocated claim's
  // spec is not read again: only its allocation).
  for (const DeviceClaimChoice& c : b.devices) {
    if (c.allocated_before) continue;
    json::object claim{{"apiVersion", "resource.k8s.io/v1"},
                       {"kind", "ResourceClaim"},
                       {"metadata", {{"namespace", c.ns}, {"name", c.claim}}},
                       {"status", {{"allocation", allocation_of(c, b.node)}}}};
    view_.add_volume_object(claim);
    assumed_devices_[c.ns + "/" + c.claim] = std::move(claim);
  }
  std::string uid = info->uid;
  place(uid, {std::move(info), b.node, true, false, b.claims, b.devices});
}

void ClusterCache::forget(const std::string& uid) {
  auto it = bound_.find(uid);
  if (it == bound_.end() || !it->second.assumed) return;
  std::shared_ptr<const fit::PodInfo> info = it->second.info;
  bool had_claims = !it->second.claims.empty() || !it->second.devices.empty();
  unbind(uid);
  pending_[uid] = std::move(info);
  // The view's claims are read again as the watch has them.
  if (had_claims) volumes_changed();
}

}  // namespace planter::scheduler
