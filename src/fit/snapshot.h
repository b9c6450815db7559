// The fit model's view of one cluster, as kube-scheduler's cache snapshot holds it: its nodes
// (labels, taints, cordon, allocatable) and, on each, what the pods bound there request, the host
// ports they take, and the pods themselves for inter-pod affinity and topology spread. Built from
// Node and Pod objects as the API serves them. A decision may assume pods onto nodes (a group's
// pods placed so far) and take them back.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fit/devices.h"
#include "fit/pod_info.h"
#include "fit/resources.h"

namespace planter::fit {

// A pod on a node, or `copies` identical pods placed at once (a share of a kind of a group).
struct PlacedPod {
  std::shared_ptr<const PodInfo> info;
  int64_t copies = 1;
  const PodInfo* operator->() const { return info.get(); }
  const PodInfo& operator*() const { return *info; }
};

struct NodeInfo {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  bool unschedulable = false;
  Resources allocatable;
  int64_t allowed_pods = 0;
  Resources requested;  // by the pods bound or assumed here
  int64_t pod_count = 0;
  std::vector<PlacedPod> pods;  // bound and assumed
  std::vector<HostPort> used_ports;
  // Stacks with pods (bound, assumed or held for a released stack) here, by their stack label.
  std::set<std::string> stacks;
  std::set<std::string> groups;  // "ns/group" of its pods' pod groups

  const std::string* label(const std::string& key) const {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  }
  // What is left of `resource` (by name, "cpu" in millicores).
  int64_t free(std::string_view resource) const {
    return add_sat(allocatable.get(resource), -requested.get(resource));
  }
};

// A PersistentVolumeClaim as the volume filters read it.
struct Claim {
  std::string ns, name;
  std::string volume;         // spec.volumeName: bound (or pre-bound) to this volume
  std::string selected_node;  // volume.kubernetes.io/selected-node: being provisioned there
  std::string class_name;     // spec.storageClassName ("": no class)
  bool class_given = false;   // storageClassName is set (else the default class is meant)
  bool created = true;        // the cluster holds it (a claim the seed will create has no uid)
  bool deleting = false;      // metadata.deletionTimestamp is set
  std::vector<std::string> access_modes;
  std::string volume_mode = "Filesystem";
  int64_t request = 0;  // resources.requests.storage, bytes
  std::optional<LabelSelector> selector;
  bool has_selector = false;
  bool read_write_once_pod() const;
};

// A PersistentVolume as the volume filters read it.
struct Volume {
  std::string name;
  bool has_terms = false;   // spec.nodeAffinity.required is given
  NodeTerms node_affinity;  // its nodeSelectorTerms
  std::string class_name;
  std::vector<std::string> access_modes;
  std::string volume_mode = "Filesystem";
  int64_t capacity = 0;              // bytes
  std::string claim_ns, claim_name;  // spec.claimRef
  Labels labels;
  bool deleting = false;
};

// A StorageClass: how its claims bind.
struct StorageClass {
  std::string name;
  bool wait_for_first_consumer = false;
  bool is_default = false;  // storageclass.kubernetes.io/is-default-class: "true"
  std::string provisioner;
  // allowedTopologies as the nodeSelectorTerms they amount to (each matchLabelExpression an `In`
  // requirement); none: anywhere.
  NodeTerms allowed;
};

// The share of cpu and memory left on `n` after `extra` more, averaged (0..1): kube-scheduler's
// least-allocated score has the same shape.
double room_left(const NodeInfo& n, const Resources& extra);
// What is left on `n`, each amount at least 0.
Resources free_of(const NodeInfo& n);

// What a snapshot is built from, as the API serves it: whoever reads a cluster for the fit model
// (the stack-fits gate's watches, `plan --fit`'s lists) reads these kinds, and hands them to
// add_node, add_pod and add_volume_object by their role (kVolume: what the volume and device
// filters read). A `devices` kind is served since Kubernetes 1.34 (resource.k8s.io/v1): a cluster
// that does not serve it has none, and only pods that claim devices need it read.
struct SnapshotKind {
  enum Role { kNode, kPod, kVolume } role;
  const char* api_version;
  const char* kind;
  bool devices = false;
};
inline constexpr SnapshotKind kSnapshotKinds[] = {
    {SnapshotKind::kNode, "v1", "Node"},
    {SnapshotKind::kPod, "v1", "Pod"},
    {SnapshotKind::kVolume, "v1", "PersistentVolumeClaim"},
    {SnapshotKind::kVolume, "v1", "PersistentVolume"},
    {SnapshotKind::kVolume, "storage.k8s.io/v1", "StorageClass"},
    {SnapshotKind::kVolume, "resource.k8s.io/v1", "ResourceSlice", true},
    {SnapshotKind::kVolume, "resource.k8s.io/v1", "DeviceClass", true},
    {SnapshotKind::kVolume, "resource.k8s.io/v1", "ResourceClaim", true},
    {SnapshotKind::kVolume, "resource.k8s.io/v1", "ResourceClaimTemplate", true},
    {SnapshotKind::kVolume, "resource.k8s.io/v1", "DeviceTaintRule", true},
};

// What add_node reads of a Node, and nothing else: its apiVersion, kind, metadata's name, uid,
// resourceVersion and labels, spec.taints and spec.unschedulable, status.allocatable and
// status.capacity. A watch of Nodes for the fit model keeps `node` as this (a Node's conditions,
// images, addresses and nodeInfo are most of it).
void keep_what_the_fit_reads(boost::json::object& node);

class Snapshot {
 public:
  void add_node(const boost::json::object& node);
  // A pod bound to a node and not finished. A pod of an `uncounted` stack only marks its stack
  // as there: the stack being fitted (or a held stack's placement) stands for it, and the
  // devices its claims hold are free (add claims before pods).
  void add_pod(const boost::json::object& pod, const std::set<std::string>& uncounted = {});
  // `copies` of a pod placed on node `n` by the decision being made (or bound by a scheduler
  // this cycle).
  void assume(size_t n, std::shared_ptr<const PodInfo> pod, int64_t copies = 1);
  size_t assumed() const { return assumed_.size(); }
  // Takes back the last `count` assumed pods, newest first.
  void forget(size_t count);

  // Kept up to date from watches (a scheduler's cache), between decisions, never while pods are
  // assumed: a Node added or changed (its pods stay), a Node gone (with its pods), a pod counted
  // on node `n` and a pod taken off its node by uid.
  void set_node(const boost::json::object& node);
  void remove_node(const std::string& name);
  void add_pod(size_t n, std::shared_ptr<const PodInfo> pod);
  bool remove_pod(size_t n, const std::string& uid);
  // Forgets every claim, volume and class, and every device (they are added again as they are
  // now).
  void clear_volumes();
  // Says the snapshot holds every claim and class its cluster has (a scheduler's cache, read
  // from watches), so that a claim it does not hold does not exist. Else (a plan's snapshot) a
  // claim it does not hold may yet come, and ties nothing.
  void set_volumes_complete() {
    volumes_complete_ = true;
    devices_.set_complete();
  }
  bool volumes_complete() const { return volumes_complete_; }

  // A claim that waits for its first consumer, bound where a pod goes: to `volume`, or (empty)
  // provisioned on `node` (the selected-node annotation). Undone by unselect_claims(mark) back
  // to a claim_mark() taken before, newest first.
  void select_claim(const std::string& ns, const std::string& name, const std::string& node,
                    const std::string& volume);
  size_t claim_mark() const { return claim_undo_.size(); }
  void unselect_claims(size_t mark);
  // A PersistentVolumeClaim, a PersistentVolume or a StorageClass, as VolumeBinding and
  // VolumeRestrictions read them; a ResourceSlice, DeviceClass, ResourceClaim or
  // ResourceClaimTemplate, as DynamicResources reads them.
  void add_volume_object(const boost::json::object& o);
  // The devices and their claims; a pod assumed onto a node takes the devices its claims are
  // allocated there (given back when it is forgotten).
  const DeviceInventory& devices() const { return devices_; }
  const Claim* claim(const std::string& ns, const std::string& name) const;
  const Volume* volume(const std::string& name) const;
  const StorageClass* storage_class(const std::string& name) const;
  // The class a claim binds with: its own, or for one that names none, the default class (as the
  // DefaultStorageClass admission sets it); null when none (it binds to volumes without a class,
  // at once).
  const StorageClass* class_of(const Claim& claim) const;
  const std::vector<Volume>& volumes() const { return volumes_; }
  // Pods bound or assumed that mount the claim "ns/name" (VolumeRestrictions' ReadWriteOncePod).
  int64_t claim_users(const std::string& ns, const std::string& name) const;

  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  const NodeInfo* node(const std::string& name) const;
  std::optional<size_t> index(const std::string& name) const;
  // (node, index in its pods) of the pods that have required anti-affinity terms.
  const std::vector<std::pair<size_t, size_t>>& anti_pods() const { return anti_pods_; }

 private:
  void place(size_t n, std::shared_ptr<const PodInfo> pod, int64_t copies, bool counted);
  void unplace(NodeInfo& node, const PlacedPod& placed);
  // anti_pods_' entries of node `n`, read again from its pods.
  void index_anti_pods(size_t n);

  std::vector<NodeInfo> nodes_;
  std::map<std::string, size_t, std::less<>> by_name_;
  std::vector<std::pair<size_t, size_t>> anti_pods_;
  std::vector<size_t> assumed_;       // nodes of the assumed pods, in order
  std::vector<size_t> device_marks_;  // by assumed pod: devices_.mark() before it took devices
  DeviceInventory devices_;
  std::map<std::string, Claim, std::less<>> claims_;  // "ns/name"
  std::vector<Volume> volumes_;
  std::map<std::string, size_t, std::less<>> volume_index_;
  std::map<std::string, StorageClass, std::less<>> classes_;
  std::map<std::string, int64_t, std::less<>> claim_users_;  // "ns/name" -> pods mounting it
  struct ClaimUndo {
    std::string key;
    Claim before;
    std::string volume;  // the volume whose claimRef was set, and what it was
    std::string claim_ns, claim_name;
  };
  std::vector<ClaimUndo> claim_undo_;
  bool volumes_complete_ = false;
};

}  // namespace planter::fit
