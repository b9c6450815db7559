// The sim's kube-scheduler, the judge of everything planter does to pods (src/scheduler is
// planter's own second scheduler, judged by this one): what kube-scheduler's default profile does
// for pods whose spec.schedulerName is empty or "default-scheduler". Pods of any other scheduler
// stay Pending, untouched, until someone binds them (POST .../pods/<name>/binding).
//
// One pod at a time from an active queue: filters (node_plugins.h, topology_spread.h,
// inter_pod_affinity.h) over the nodes, starting where the last attempt stopped and stopping
// once enough feasible nodes are found (percentageOfNodesToScore's adaptive default); scores
// weighted as the default profile weighs them; ties broken by a random draw from
// `seed`, so a run repeats. The pod is bound through the binding subresource, and a
// "Scheduled" Event says where. A pod that fits nowhere gets PodScheduled=False
// (Unschedulable) with kube-scheduler's message and a "FailedScheduling" Event, and waits in an
// unschedulable set until something that could change the answer happens, as kube-scheduler's
// queueing hints decide: a node comes or changes, or a placed pod goes (for every pod); a pod is
// placed or a placed pod's labels change (for pods refused by pod affinity or topology spread).
// No timer retries it.
//
// Pods of a scheduling.k8s.io PodGroup (pod_groups.h) wait in PreEnqueue until their group may
// be tried; a gang is then placed in one PodGroup cycle (pod_group_cycle.cpp): its waiting pods in
// order (priority, then first seen), each filtered and scored as above with the pods placed
// before it assumed on their nodes; all are bound when at least minCount of the group are placed,
// none otherwise. A group with a topology constraint is placed within one domain of its key.
//
// Not thread-safe: runs on the server's event loop, fed by the cluster's store.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "sim/events.h"
#include "sim/kube_scheduler/cache.h"
#include "sim/kube_scheduler/device_allocator.h"
#include "sim/kube_scheduler/pod_groups.h"

namespace planter::sim {
class Cluster;
}

namespace planter::sim::sched {

class DynamicResourcesCheck;
class VolumeBindingCheck;

// What filtering and scoring chose for a pod: a node, or why none (the FailedScheduling message
// and the plugin families that refused). The checks that filtered it, for Reserve and PreBind.
struct Verdict {
  Verdict();
  Verdict(Verdict&&) noexcept;
  Verdict& operator=(Verdict&&) noexcept;
  ~Verdict();
  const NodeInfo* node = nullptr;
  std::string message;
  unsigned rejected = 0;
  std::unique_ptr<VolumeBindingCheck> volumes;
  std::unique_ptr<DynamicResourcesCheck> devices;
};

class Scheduler {
 public:
  Scheduler(Cluster& cluster, uint64_t seed);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  static constexpr const char* kName = "default-scheduler";
  // Who it writes as: its user, and its user agent.
  static constexpr const char* kUser = "system:kube-scheduler";
  static constexpr const char* kAgent =
      "kube-scheduler/v1.32.0 (linux/amd64) kubernetes/planter-sim";

 private:
  void on_change(const Change& change);
  void enqueue(const std::string& key);
  // Rejections by plugin family, to know which changes could help.
  enum Rejected : unsigned { kByNode = 1, kByPods = 2, kByDevices = 4 };
  void retry_unschedulable(unsigned effect);
  void on_claim_change(const Change& change);
  void retry_for_devices(const std::string& claim);
  void flush();
  void schedule(const std::string& key);
  Verdict select_node(const boost::json::object& pod, const std::vector<NodeInfo*>& nodes);
  void commit(const std::string& key, const boost::json::object& pod, Verdict& verdict);
  void bind(const boost::json::object& pod, const std::string& node);
  // PodGroups (pod_group_cycle.cpp).
  void on_pod_group_change(const Change& change);
  void release_group(const std::string& group_key);
  void schedule_group(const std::string& group_key);
  void record_group_condition(const StoredObject& group, bool scheduled,
                              const std::string& message);
  void unschedulable(const boost::json::object& pod, const std::string& message, unsigned rejected);
  int64_t nodes_to_find(int64_t all) const;

  Cluster& cluster_;
  Cache cache_;
  CelCache cel_;           // DeviceClass and request selectors, compiled once
  DeviceCatalog devices_;  // published devices and which are allocated
  PodGroups groups_;
  bool gangs_ = false;                        // the API serves PodGroups
  std::map<std::string, std::string> gated_;  // pod key -> why PreEnqueue holds it back
  EventRecorder events_;
  std::mt19937_64 random_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::vector<uint64_t> watches_;
  std::deque<std::string> active_;
  std::set<std::string> queued_;                   // keys in active_
  std::map<std::string, unsigned> unschedulable_;  // keys waiting for a change -> Rejected bits
  bool flush_scheduled_ = false;
  size_t next_start_ = 0;
};

// True for pods the sim's scheduler places: schedulerName empty or "default-scheduler".
bool ours(const boost::json::object& pod);
// True for its pods still to be placed: not bound, not being deleted, not finished.
bool waiting_for_us(const boost::json::object& pod);

}  // namespace planter::sim::sched
