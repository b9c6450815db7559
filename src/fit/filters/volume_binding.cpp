// VolumeBinding, as kube-scheduler's plugin of that name decides from claims, volumes and storage
// classes ("Storage Classes" and "Persistent Volumes" in the Kubernetes documentation):
// - a claim bound to a volume ties the pod to the nodes the volume's required node affinity
//   admits ("node(s) had volume node affinity conflict"); a claim bound to a volume that is not
//   there admits no node;
// - an unbound claim of a class that binds at once (Immediate, or no class) must be bound before
//   the pod can go anywhere ("pod has unbound immediate PersistentVolumeClaims", for every node);
// - an unbound claim of a WaitForFirstConsumer class binds where the pod goes: to an available
//   volume that matches it (class, volume mode, access modes, size, selector) and whose node
//   affinity admits the node, else to one its class provisions there (a provisioner other than
//   kubernetes.io/no-provisioner, and allowedTopologies that admit the node); a claim whose volume
//   a scheduler already asked for on a node (volume.kubernetes.io/selected-node) goes there only
//   ("node(s) didn't find available persistent volumes to bind").
// A claim the seed will create (no uid yet) is read as the cluster will hold it: of the default
// class when it names none; bound at once (tying nothing) when its class binds at once; else as
// above. A claim the snapshot does not hold at all ties nothing, unless the snapshot holds every
// claim of its cluster (a scheduler's cache): then, as a claim being deleted, it is PreFilter's
// refusal (`persistentvolumeclaim "data" not found`). Storage capacity (CSIStorageCapacity) is
// not modelled.
#include <fmt/format.h>

#include <algorithm>

#include "fit/filters/filters.h"

namespace planter::fit::filters {

namespace {

constexpr const char* kNoProvisioner = "kubernetes.io/no-provisioner";
constexpr const char* kVolumeMissing =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

// A volume that may bind the claim (of class `class_name`), wherever the node
// (FindMatchingVolume's checks).
bool may_bind(const Claim& c, const std::string& class_name, const Volume& v) {
  if (v.deleting) return false;
  if (!v.claim_name.empty() && (v.claim_ns != c.ns || v.claim_name != c.name)) return false;
  if (v.class_name != class_name || v.volume_mode != c.volume_mode) return false;
  if (v.capacity < c.request) return false;
  for (const std::string& mode : c.access_modes)
    if (std::find(v.access_modes.begin(), v.access_modes.end(), mode) == v.access_modes.end())
      return false;
  if (c.has_selector && !(c.selector && c.selector->matches(v.labels))) return false;
  return true;
}

}  // namespace

void prefilter_volume_binding(CycleState& state, const PodInfo& pod, const Snapshot& snapshot) {
  VolumeState& out = state.volumes;
  for (const std::string& name : pod.claims) {
    const Claim* claim = snapshot.claim(pod.ns, name);
    if (!claim || claim->deleting) {
      if (!claim && !snapshot.volumes_complete()) continue;
      state.refused_by = "VolumeBinding";
      state.refusal = fmt::format("persistentvolumeclaim \"{}\" {}", name,
                                  claim ? "is being deleted" : "not found");
      return;
    }
    if (!claim->volume.empty()) {
      const Volume* v = snapshot.volume(claim->volume);
      if (!v)
        out.missing_volume = true;
      else if (v->has_terms)
        out.terms.push_back(&v->node_affinity);
      continue;
    }
    const StorageClass* sc = snapshot.class_of(*claim);
    if (!sc || !sc->wait_for_first_consumer) {
      // One the seed will create binds at once, wherever its class provisions.
      if (claim->created) {
        state.refused_by = "VolumeBinding";
        state.refusal = kUnboundImmediate;
      }
      continue;
    }
    if (!claim->selected_node.empty()) {
      out.nodes.push_back(claim->selected_node);
      continue;
    }
    VolumeState::Unbound u;
    u.claim = claim;
    u.storage_class = sc;
    for (const Volume& v : snapshot.volumes())
      if (may_bind(*claim, sc->name, v)) u.volumes.push_back(&v);
    std::stable_sort(u.volumes.begin(), u.volumes.end(),
                     [](const Volume* a, const Volume* b) { return a->capacity < b->capacity; });
    out.unbound.push_back(std::move(u));
  }
}

bool waiting_claims_bind(const VolumeState& in, const NodeInfo& node,
                         std::vector<ClaimBinding>* out) {
  if (!std::all_of(in.nodes.begin(), in.nodes.end(),
                   [&](const std::string& n) { return n == node.name; }))
    return false;
  std::vector<const Volume*> chosen;
  for (const VolumeState::Unbound& u : in.unbound) {
    auto fits = std::find_if(u.volumes.begin(), u.volumes.end(), [&](const Volume* v) {
      return std::find(chosen.begin(), chosen.end(), v) == chosen.end() &&
             (!v->has_terms || v->node_affinity.matches(node.labels, node.name));
    });
    if (fits != u.volumes.end()) {
      chosen.push_back(*fits);
      if (out) out->push_back({u.claim, *fits});
      continue;
    }
    const StorageClass& sc = *u.storage_class;
    if (sc.provisioner.empty() || sc.provisioner == kNoProvisioner ||
        (!sc.allowed.empty() && !sc.allowed.matches(node.labels, node.name)))
      return false;
    if (out) out->push_back({u.claim, nullptr});
  }
  return true;
}

Status volume_binding(const CycleState& state, const PodInfo&, const NodeInfo& node) {
  const VolumeState& in = state.volumes;
  std::vector<std::string> reasons;
  bool bound_ok = std::all_of(in.terms.begin(), in.terms.end(), [&](const auto* terms) {
    return terms->matches(node.labels, node.name);
  });
  if (!bound_ok) reasons.push_back(kVolumeNodeConflict);
  if (!waiting_claims_bind(in, node, nullptr)) reasons.push_back(kVolumeBindConflict);
  if (in.missing_volume) reasons.push_back(kVolumeMissing);
  if (reasons.empty()) return {};
  return {{}, std::move(reasons), true};
}

}  // namespace planter::fit::filters
