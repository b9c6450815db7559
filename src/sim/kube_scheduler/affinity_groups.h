// The placed pods as inter-pod affinity reads them: grouped by what its terms can tell apart (the
// namespace, the labels and the pod's own affinity terms), each group with how many of its pods
// sit on each node. kube-scheduler's InterPodAffinity PreFilter reads every placed pod for every
// pod it schedules; replicas share their labels and terms, so the sim matches each group once and
// counts its pods per topology domain, which it keeps current as pods come and go: the same
// counts, at the cost of the groups rather than of the pods.
//
// Not thread-safe: owned by the scheduler's cache, on the server's event loop.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "sim/kube_scheduler/affinity_term.h"

namespace planter::sim::sched {

struct NodeInfo;

// Placed pods of one namespace with the same labels and the same pod affinity terms.
class AffinityGroup {
 public:
  AffinityGroup(std::string ns, const boost::json::object* labels, PodAffinityTerms terms);

  const std::string& ns() const { return ns_; }
  // Their labels (nullptr: none).
  const boost::json::object* labels() const { return has_labels_ ? &labels_ : nullptr; }
  // Their affinity and anti-affinity terms.
  const PodAffinityTerms& terms() const { return terms_; }
  // Members on a node the cache knows.
  int64_t placed() const { return placed_; }

  // Of the members on a node with label `key`: how many per value of it. Kept current per key
  // once asked for, until a node's labels change (AffinityGroups::forget_domains).
  const std::unordered_map<std::string, int64_t>& by_value(const std::string& key) const;

 private:
  friend class AffinityGroups;
  void place(const NodeInfo* node, int64_t by);

  const std::string* key_ = nullptr;  // its identity among the groups (their map's key)
  std::string ns_;
  bool has_labels_;
  boost::json::object labels_;
  PodAffinityTerms terms_;
  int64_t members_ = 0;  // pods of the group the cache holds, placed or not
  int64_t placed_ = 0;
  std::unordered_map<const NodeInfo*, int64_t> on_node_;
  mutable std::unordered_map<std::string, std::unordered_map<std::string, int64_t>> by_key_;
};

class AffinityGroups {
 public:
  // A pod joins its group (made on first use); the returned group is its until it leaves.
  std::shared_ptr<AffinityGroup> join(const std::string& ns, const boost::json::object& pod);
  void leave(const std::shared_ptr<AffinityGroup>& group);
  // A member was put on `node` (or taken off it, by -1).
  void place(AffinityGroup& group, const NodeInfo* node, int64_t by) { group.place(node, by); }
  // A node's labels changed: every group's counts per topology domain are read again when asked.
  void forget_domains();

  const std::unordered_map<std::string, std::shared_ptr<AffinityGroup>>& all() const {
    return groups_;
  }

 private:
  std::unordered_map<std::string, std::shared_ptr<AffinityGroup>> groups_;  // by identity
};

}  // namespace planter::sim::sched
