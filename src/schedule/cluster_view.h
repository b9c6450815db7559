// planter's view of a cluster for fitting: its nodes (allocatable, labels, taints, cordon) and
// what the pods bound to them ask. Built from Node and Pod objects as the API serves them; the
// requests of a pod are computed here, by planter's own reading of the Kubernetes documentation
// (the sim's scheduler has its own: each is the other's test).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plan/label_selector.h"
#include "plan/stacks/stack_policy.h"

namespace planter::schedule {

struct Usage {
  double cpu = 0, memory = 0;  // cores, bytes
  int64_t pods = 0;

  Usage& operator+=(const Usage& o) {
    cpu += o.cpu;
    memory += o.memory;
    pods += o.pods;
    return *this;
  }
};

// A required pod (anti-)affinity term of a pod, read once: which pods it matches (namespaces and
// label selector) and over which node label.
struct PodTerm {
  std::string topology_key;
  std::string owner_ns;        // the namespace of the pod that has the term
  bool any_namespace = false;  // a namespaceSelector is given (planter's scheduler does not read
                               // Namespaces: any selector is taken as every namespace)
  std::vector<std::string> namespaces;
  std::optional<LabelSelector> selector;  // none: the term matches no pod

  bool matches(const std::string& ns, const Labels& labels) const;
  static std::vector<PodTerm> read(const boost::json::array& terms, const std::string& owner_ns);
};

// A pod bound to a node, as inter-pod (anti-)affinity sees it (kept only when asked for).
struct BoundPod {
  std::string ns;
  Labels labels;
  std::string group;                // its scheduling.x-k8s.io/pod-group label, if any
  std::vector<PodTerm> anti_terms;  // its required podAntiAffinity terms
};

struct NodeView {
  std::string name;
  std::map<std::string, std::string> labels;
  boost::json::array taints;
  bool unschedulable = false;
  Usage allocatable;
  Usage used;  // by the pods bound to it (and by reservations)
  // Stacks with pods (or reservations) on it, by the pods' planter.nephio.org/stack label.
  std::set<std::string> stacks;
  std::vector<BoundPod> pods;    // with ClusterView(true) only
  std::set<std::string> groups;  // "ns/group" of its pods' pod groups (ditto)

  Usage free() const {
    return {allocatable.cpu - used.cpu, allocatable.memory - used.memory,
            allocatable.pods - used.pods};
  }
};

// The label that puts a pod in a gang (scheduler-plugins' PodGroup API).
inline constexpr std::string_view kPodGroupLabel = kPodGroupLabelKey;

BoundPod bound_pod(const boost::json::object& pod);

// True when `free` holds `need` (quantities are sums of decimals: a hair of slack).
bool holds(const Usage& free, const Usage& need);
// How much room a node would have left after `taken`, as a share of what it has (0..1 per
// resource, averaged); kube-scheduler's least-allocated score has the same shape.
double room_left(const NodeView& n, const Usage& taken);

// What a pod asks of its node for scheduling: the sum of its containers' requests and of its
// sidecars' (restartable init containers), or the biggest init container with the sidecars
// started before it, whichever is more; plus the pod's overhead. One pod slot.
Usage pod_requests(const boost::json::object& pod);

class ClusterView {
 public:
  // `keep_pods`: remember each bound pod's namespace, labels and anti-affinity (for a scheduler's
  // inter-pod affinity); a fit decision needs only the sums.
  explicit ClusterView(bool keep_pods = false) : keep_pods_(keep_pods) {}

  void add_node(const boost::json::object& node);
  // A pod bound to a node and not finished. The pods of `uncounted` stacks are recorded on their
  // node but use nothing: their stack's reservation (or the stack being fitted) stands for them.
  void add_pod(const boost::json::object& pod, const std::set<std::string>& uncounted);
  // A pod bound in this decision, with what it requests (ClusterView(true)).
  void add_bound(const std::string& node, BoundPod pod, const Usage& requests);
  // The bound pods that have required anti-affinity terms, with their node's index.
  const std::vector<std::pair<size_t, size_t>>& anti_pods() const { return anti_pods_; }
  // Room held for a stack that planter released but whose pods are not all bound yet.
  void reserve(const std::string& stack, const std::map<std::string, Usage>& on_nodes);

  const std::vector<NodeView>& nodes() const { return nodes_; }

 private:
  void keep(size_t node, BoundPod pod);

  std::vector<NodeView> nodes_;
  bool keep_pods_ = false;
  std::vector<std::pair<size_t, size_t>> anti_pods_;  // node index, index in its pods
  std::map<std::string, size_t> by_name_;
};

}  // namespace planter::schedule
