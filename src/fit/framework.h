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
#include <vector>

#include "fit/plugin.h"
#include "fit/pod_info.h"
#include "fit/snapshot.h"

namespace planter::fit {

// kube-scheduler's default filters that planter models, in kube-scheduler's order.
const std::vector<FilterPlugin>& default_filters();

// The plugins that decide from the pod and the node alone (no PreFilter, no other pod).
Status filter_node_only(const PodInfo& pod, const NodeInfo& node);

// Whether the node has each amount at all (its allocatable, whatever its pods use; with
// `devices`, an extended resource it does not list counts the devices that serve it there): a
// node capability, not room. The first it lacks, in NodeResourcesFit's words ("Insufficient
// nvidia.com/gpu"); empty when it has them all.
std::string lacks_capacity(const NodeInfo& node,
                           const std::vector<std::pair<std::string, int64_t>>& amounts,
                           const DeviceInventory* devices = nullptr);

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
