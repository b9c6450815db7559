// `planter scheduler`: a second scheduler for the pods whose spec.schedulerName is its name.
// It places single pods, gangs of scheduler-plugins' PodGroup API (scheduling.x-k8s.io/v1alpha1:
// minMember, all or nothing) and same-node groups (gang.h), binds through pods/binding, and says
// what it did as kube-scheduler does: PodScheduled=False with the reason on pods it cannot place,
// Scheduled and FailedScheduling Events, and each PodGroup's status (phase, scheduled).
//
// Event-driven: informers on Pods, Nodes and PodGroups; any change makes one scheduling cycle over
// everything pending (a burst of changes is one cycle). Nothing is reserved between cycles.
// A gang left partly bound (a scheduler killed between two bindings of it) is finished when the
// rest fits; when it does not for the PodGroup's scheduleTimeoutSeconds, its bound pods are
// deleted (their controllers make them again), so that no gang stays half-placed.
//
// Threads: run() blocks on the calling thread until the stop token is requested; informer
// callbacks only mark work, on the client's transport thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

#include "kube/client.h"
#include "model/well_known_labels.h"

namespace planter::scheduler {

// PodGroup annotations planter writes for a co-scheduled stack (docs/coscheduling.md).
inline constexpr std::string_view kPodGroupApiVersion = kPodGroupApiVersionText;
inline constexpr std::string_view kSameNodeAnnotation = kSameNodeAnnotationKey;
inline constexpr std::string_view kIsolateAnnotation = kIsolateAnnotationKey;

struct SchedulerOptions {
  std::string name = "planter";
  // A pause between two bindings of one group, to let tests stop the scheduler in the middle of
  // a gang (fault injection; 0 in use).
  std::chrono::milliseconds bind_interval{0};
  std::function<void(const std::string& message)> log;
};

// Counters for /metrics.
struct SchedulerStats {
  std::atomic<uint64_t> scheduled{0}, unschedulable{0}, errors{0}, cycles{0}, gangs_released{0};
  // e2e: from when a pod was first seen pending to its binding; bucket upper bounds in seconds.
  static constexpr double kBuckets[] = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10};
  std::atomic<uint64_t> bucket_counts[std::size(kBuckets) + 1] = {};
  std::atomic<uint64_t> e2e_micros_sum{0};
  std::atomic<int64_t> pending{0};
};

class Scheduler {
 public:
  Scheduler(kube::Client& client, SchedulerOptions options);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Watches and schedules until `stop` is requested.
  void run(std::stop_token stop);
  // True once its Pods and Nodes are listed.
  bool synced() const;
  // What scheduler/metrics.h exposes.
  const SchedulerStats& stats() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::scheduler
