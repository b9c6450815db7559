// What a filter plugin of the fit model is, as kube-scheduler's framework interface says it: the
// Status it answers with, the CycleState its PreFilter prepares, and its row in the table. The
// plugins (fit/filters/) include this; the framework that runs them (framework.h) includes both.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "fit/pod_info.h"
#include "fit/snapshot.h"

namespace planter::fit {

struct Status {
  std::string_view plugin;           // the plugin that refused; empty when the pod fits
  std::vector<std::string> reasons;  // empty: the pod fits
  // UnschedulableAndUnresolvable: no change on other nodes would make the pod fit here.
  bool unresolvable = false;
  bool ok() const { return reasons.empty(); }
};

// InterPodAffinity's PreFilter state: per required term, the values of its topology key on
// nodes that have a pod it matches.
struct AffinityState {
  struct Term {
    std::string key;
    std::unordered_set<std::string_view> domains;  // the snapshot's nodes' label values
  };
  std::vector<Term> affinity, anti, existing_anti;
  bool any_affinity_match = false;  // some pod anywhere matches some affinity term
  bool matches_own_affinity = false;
};

// PodTopologySpread's PreFilter state: per DoNotSchedule constraint, matching pods per domain.
struct SpreadState {
  struct Constraint {
    const SpreadConstraint* spec = nullptr;
    std::unordered_map<std::string, int64_t> counts;  // domain value -> matching pods
    int64_t min_count = 0;  // the smallest count over the domains (0 below minDomains)
    bool self_match = false;
  };
  std::vector<Constraint> constraints;
};

// VolumeBinding's and VolumeRestrictions' PreFilter state: where the pod's claims tie it.
struct VolumeState {
  std::vector<const NodeTerms*> terms;  // each bound volume's required node terms
  std::vector<std::string> nodes;       // nodes claims still binding are being provisioned for
  // Claims that wait for their first consumer, with what could bind them: available volumes
  // (smallest first) and their class, to provision one where they cannot.
  struct Unbound {
    const Claim* claim = nullptr;
    std::vector<const Volume*> volumes;
    const StorageClass* storage_class = nullptr;
  };
  std::vector<Unbound> unbound;
  bool missing_volume = false;            // a claim is bound to a volume that is not there
  int64_t read_write_once_pod_users = 0;  // pods using the pod's ReadWriteOncePod claims
};

// How binding a pod to a node binds one of its claims that wait for their first consumer: to an
// available volume, or (none) to one its class provisions on that node.
struct ClaimBinding {
  const Claim* claim = nullptr;
  const Volume* volume = nullptr;
};

// DynamicResources' PreFilter state: the pod's claims, resolved, and the devices they come from.
struct DeviceState {
  const DeviceInventory* inventory = nullptr;  // null: the pod claims no device
  PodDevices claims;
};

struct CycleState {
  // A PreFilter's refusal (UnschedulableAndUnresolvable): no node can take the pod, and no filter
  // is run. Empty when nodes are to be looked at.
  std::string_view refused_by;
  std::string refusal;
  AffinityState affinity;
  SpreadState spread;
  VolumeState volumes;
  DeviceState devices;
};

struct FilterPlugin {
  std::string_view name;
  // Decides from the pod and the node alone: its answer for a kind of pod holds for every pod of
  // the kind, whatever else is placed.
  bool node_only = false;
  void (*prefilter)(CycleState&, const PodInfo&, const Snapshot&) = nullptr;
  Status (*filter)(const CycleState&, const PodInfo&, const NodeInfo&) = nullptr;
};

}  // namespace planter::fit
