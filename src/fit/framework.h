// The fit model's framework, shaped like kube-scheduler's: a table of filter plugins with
// kube-scheduler's names, run in its default order, each answering for one pod and one node with a
// Status that carries kube-scheduler's reason strings. Plugins that look at other pods
// (InterPodAffinity, PodTopologySpread) prepare per pod what they need, once (PreFilter), in a
// CycleState. A Diagnosis counts the reasons over the nodes and words them as kube-scheduler's
// FitError does: "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: only}, 2
// Insufficient nvidia.com/gpu."
#pragma once

#include <boost/json/array.hpp>
#include <map>
#include <set>
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

struct CycleState {
  // A PreFilter's refusal (UnschedulableAndUnresolvable): no node can take the pod, and no filter
  // is run. Empty when nodes are to be looked at.
  std::string_view refused_by;
  std::string refusal;
  AffinityState affinity;
  SpreadState spread;
  VolumeState volumes;
};

struct FilterPlugin {
  std::string_view name;
  // Decides from the pod and the node alone: its answer for a kind of pod holds for every pod of
  // the kind, whatever else is placed.
  bool node_only = false;
  void (*prefilter)(CycleState&, const PodInfo&, const Snapshot&) = nullptr;
  Status (*filter)(const CycleState&, const PodInfo&, const NodeInfo&) = nullptr;
};

// kube-scheduler's default filters that planter models, in kube-scheduler's order.
const std::vector<FilterPlugin>& default_filters();

// The plugins that decide from the pod and the node alone (no PreFilter, no other pod).
Status filter_node_only(const PodInfo& pod, const NodeInfo& node);

// Whether the node has each amount at all (its allocatable, whatever its pods use): a node
// capability, not room. The first it lacks, in NodeResourcesFit's words ("Insufficient
// nvidia.com/gpu"); empty when it has them all.
std::string lacks_capacity(const NodeInfo& node,
                           const std::vector<std::pair<std::string, int64_t>>& amounts);

// One pod's scheduling cycle against a snapshot: PreFilter once, then Filter per node.
class PodCycle {
 public:
  PodCycle(const Snapshot& snapshot, const PodInfo& pod);
  // The first refusal in table order, or an ok Status. `node_only`: run only the plugins that
  // decide from the pod and the node alone.
  Status filter(const NodeInfo& node, bool node_only = false) const;
  // The plugins that look beyond the node (ports, resources, inter-pod, spread).
  Status filter_dynamic(const NodeInfo& node) const;
  // One plugin of the table, by name.
  Status filter_only(std::string_view plugin, const NodeInfo& node) const;
  // What binding the pod to `node` (which passed VolumeBinding) binds its waiting claims to, as
  // kube-scheduler's volume binder chooses (the smallest volume that fits, else provisioning).
  std::vector<ClaimBinding> claim_bindings(const NodeInfo& node) const;
  // Why no node can take the pod, decided before looking at nodes (PreFilter's
  // UnschedulableAndUnresolvable); empty when nodes are to be looked at.
  const std::string& prefilter_refusal() const { return state_.refusal; }

 private:
  const PodInfo& pod_;
  CycleState state_;
};

// Reasons counted per node, said as kube-scheduler's FitError says them.
class Diagnosis {
 public:
  void add(const Status& s);
  void add(const std::string& reason) { ++counts_[reason]; }
  void add(const Diagnosis& other) {
    for (const auto& [reason, n] : other.counts_) counts_[reason] += n;
  }
  bool empty() const { return counts_.empty(); }
  // "1 node(s) had untolerated taint {gpu: only}, 2 Insufficient nvidia.com/gpu" (sorted as
  // kube-scheduler sorts them: as strings).
  std::string reasons() const;
  // "0/3 nodes are available: <reasons>."
  std::string message(size_t nodes) const;

 private:
  std::map<std::string, int> counts_;
};

}  // namespace planter::fit
