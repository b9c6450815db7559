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

namespace planter::sim {
class Cluster;
}

namespace planter::sim::sched {

class Scheduler {
 public:
  Scheduler(Cluster& cluster, uint64_t seed);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  static constexpr const char* kName = "default-scheduler";

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
  void bind(const boost::json::object& pod, const std::string& node);
  void unschedulable(const boost::json::object& pod, const std::string& message, unsigned rejected);
  int64_t nodes_to_find(int64_t all) const;

  Cluster& cluster_;
  Cache cache_;
  CelCache cel_;           // DeviceClass and request selectors, compiled once
  DeviceCatalog devices_;  // published devices and which are allocated
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

}  // namespace planter::sim::sched
