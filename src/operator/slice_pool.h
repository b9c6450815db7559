// A fixed number of workers that run long jobs a slice at a time (the operator's plantings: one
// Seed's engine runs for at most a slice, then yields its worker if it still waits for something,
// and is run again after a pause). Planting again resumes where it stood, since applying is
// idempotent, so slicing costs only the re-applies of what was declared. This is controller-
// runtime's bounded MaxConcurrentReconciles with a per-key requeue delay, for jobs that wait; the
// pauses wait in the same delay queue as the controller's requeues (delay_queue.h).
//
// Fair between tenants: each job belongs to a tenant (a Seed's namespace), and a free worker
// takes the next job of the next tenant in turn (round robin over the tenants with jobs waiting),
// so a tenant with many Seeds cannot keep another's one Seed waiting behind them; within a tenant,
// jobs go first in, first out.
//
// Threads: submit(), cancel() and the gauges may be called from any thread; slices run on the
// workers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "operator/delay_queue.h"

namespace planter::op {

class SlicePool {
 public:
  using Clock = std::chrono::steady_clock;
  // Runs one slice: nullopt when the job is over, else how long to wait before the next slice.
  using Slice = std::function<std::optional<std::chrono::milliseconds>()>;

  struct Job;

  explicit SlicePool(size_t workers);
  ~SlicePool();
  SlicePool(const SlicePool&) = delete;
  SlicePool& operator=(const SlicePool&) = delete;

  // Queues a job behind its tenant's others; its first slice runs when a worker is free and its
  // tenant's turn has come.
  std::shared_ptr<Job> submit(std::string tenant, Slice slice);
  // The job runs no further slice; returns once none is running.
  void cancel(const std::shared_ptr<Job>& job);
  // A job pausing between slices has its next one now (behind its tenant's others); one whose
  // slice is running has its next one without a pause.
  void wake(const std::shared_ptr<Job>& job);
  // Cancels every job and stops the workers.
  void stop();

  struct Gauges {
    size_t running = 0;  // slices running now
    size_t queued = 0;   // jobs waiting for a worker
    size_t resting = 0;  // jobs pausing between slices
  };
  Gauges gauges() const;

 private:
  void work();
  // With mu_ held: queues `job` behind its tenant's jobs; pops the next job in turn (or null).
  void ready(std::shared_ptr<Job> job);
  std::shared_ptr<Job> next();

  mutable std::mutex mu_;
  std::condition_variable cv_;                                     // work for the workers
  std::condition_variable settled_;                                // a slice ended
  std::map<std::string, std::deque<std::shared_ptr<Job>>> ready_;  // by tenant
  std::deque<std::string> turns_;             // tenants with jobs in ready_, the next one first
  DelayQueue<std::shared_ptr<Job>> resting_;  // pausing between slices
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace planter::op
