// Whether one pending pod may go on a node, with everything kube-scheduler's default filters
// check that planter's scheduler implements: the node filters (node_filter.h), room (cpu,
// memory, pod slots), required inter-pod affinity and anti-affinity of the pod, and the required
// anti-affinity of the pods already there. Pods placed earlier in the same decision count as
// bound. Read from the Kubernetes documentation ("Assigning Pods to Nodes", "Inter-pod affinity
// and anti-affinity"); shares nothing with the sim's scheduler.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <vector>

#include "plan/label_selector.h"
#include "schedule/cluster_view.h"
#include "schedule/node_filter.h"

namespace planter::schedule {

// A pod waiting for a scheduler, as the filters need it.
struct PendingPod {
  std::string ns, name, uid, group, created;  // group: its pod-group label; created: timestamp
  Labels labels;
  Usage requests;
  boost::json::array tolerations, node_terms;
  std::vector<PodTerm> affinity_terms, anti_terms;
  boost::json::object node_selector;

  static PendingPod from(const boost::json::object& pod);
  PodConstraints constraints() const { return {&tolerations, &node_selector, &node_terms}; }
  std::string id() const { return ns + "/" + name; }
};

// A pod placed in the decision being made.
struct Tentative {
  size_t node;
  const PendingPod* pod;
};

// One pod's view of the cluster, prepared once and asked per node.
class PodFit {
 public:
  PodFit(const ClusterView& view, const std::vector<Tentative>& placed, const PendingPod& pod);
  // "" when the pod may go on node `n` (with `taken` more of it used by this decision); else why
  // not, in kube-scheduler's words.
  std::string refuses(size_t n, const Usage& taken) const;

 private:
  struct Term {
    std::string key;
    std::set<std::string> domains;  // values of `key` on nodes with a matching pod
  };
  const ClusterView& view_;
  const PendingPod& pod_;
  std::vector<Term> affinity_, anti_, existing_anti_;
  bool affinity_alone_ = false;  // no pod matches its affinity anywhere, and it matches itself
};

}  // namespace planter::schedule
