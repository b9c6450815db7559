// The sim scheduler's view of its cluster: every node with what its bound pods request, kept
// current from the store's changes (as kube-scheduler's cache is from its informers). Pods that
// finished (Succeeded, Failed) no longer hold their node's resources.
//
// Not thread-safe: runs on the server's event loop with the store that feeds it.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/kube_scheduler/affinity_groups.h"
#include "sim/kube_scheduler/node_info.h"
#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/pod_resources.h"
#include "sim/store.h"

namespace planter::sim::sched {

// A pod that holds a place on a node.
struct PodInfo {
  std::string key;  // "namespace/name"
  std::string ns;
  std::string node;
  NodeInfo* where = nullptr;  // the node's entry while the cache knows the node
  StoredObject pod;
  Resources requests;
  NonZeroRequests nonzero;
  std::vector<HostPortClaim> host_ports;
  std::shared_ptr<AffinityGroup> group;  // the pods inter-pod affinity cannot tell from it

  const boost::json::object* labels_ = nullptr;  // metadata.labels of `pod`, or null

  const boost::json::object& spec() const;
  const boost::json::object* labels() const { return labels_; }
};

class Cache {
 public:
  // What a change did, as far as a pending pod could care.
  enum Effect : unsigned {
    kNothing = 0,
    kNodeChanged = 1,       // a node came or changed
    kPodRemoved = 2,        // a pod left its node (deleted, finished)
    kPodAdded = 4,          // a pod was placed on a node
    kPodLabelsChanged = 8,  // a placed pod's labels changed
  };
  // Applies a change of /nodes or /pods.
  unsigned apply(const Change& change);
  // A pod taken as placed on `node` until forgotten: the pods a pod group's cycle has placed so
  // far, seen by the filters of the next (kube-scheduler's assumed pods).
  void assume(const StoredObject& pod, const std::string& node);
  void forget(const std::string& key);

  // Every node, in the order they came.
  const std::vector<NodeInfo*>& nodes() const { return order_; }
  const NodeInfo* node(const std::string& name) const;
  NodeInfo* node(const std::string& name);
  size_t node_count() const { return order_.size(); }
  // Every pod that holds a place on a node.
  const std::unordered_map<std::string, std::shared_ptr<PodInfo>>& pods() const { return pods_; }
  // The pods that hold a place, grouped for inter-pod affinity.
  const AffinityGroups& affinity_groups() const { return groups_; }

 private:
  unsigned apply_node(const Change& change);
  unsigned apply_pod(const Change& change);
  void add_pod(std::shared_ptr<PodInfo> info);
  // The pod now counts on node `n` (null: on none).
  void locate(PodInfo& info, NodeInfo* n);
  bool remove_pod(const std::string& key);

  std::unordered_map<std::string, NodeInfo> nodes_;
  std::vector<NodeInfo*> order_;  // entries of nodes_ (stable: a node-based map)
  std::unordered_map<std::string, std::shared_ptr<PodInfo>> pods_;
  AffinityGroups groups_;
};

// True for pods whose phase says they will not run again.
bool pod_finished(const boost::json::object& pod);

}  // namespace planter::sim::sched
