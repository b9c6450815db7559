// A node as the sim's scheduler keeps it: its taints, room and what its bound pods request,
// and its labels found by key.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/kube_scheduler/node_match.h"
#include "sim/kube_scheduler/pod_resources.h"
#include "sim/store.h"

namespace planter::sim::sched {

struct PodInfo;
class Cache;

struct NodeInfo {
  std::string name;
  StoredObject node;
  std::vector<Taint> taints;
  bool unschedulable = false;
  Resources allocatable;
  int64_t allocatable_pods = 0;
  Resources requested;
  NonZeroRequests nonzero_requested;
  std::map<std::string, std::shared_ptr<PodInfo>> pods;  // by pod key

  const boost::json::object* labels() const;
  // The node's label `key`, or nullptr when it has none.
  const std::string* label(const std::string& key) const;
  // Its string-valued labels.
  const NodeLabels& label_values() const { return label_values_; }

 private:
  friend class Cache;
  NodeLabels label_values_;
};

}  // namespace planter::sim::sched
