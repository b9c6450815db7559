// `planter scheduler`'s /metrics, through prometheus-cpp: its own families
// (planter_scheduler_schedule_attempts_total{result}, planter_scheduler_pending_pods,
// planter_scheduler_gangs_released_total, planter_scheduler_e2e_scheduling_duration_seconds),
// kube-scheduler's scheduler_schedule_attempts_total{profile,result} that its dashboards read, and
// the process collector's with planter_build_info (daemon/process_metrics.h).
//
// Threads: render() may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "scheduler/scheduler.h"

namespace planter::scheduler {

class Metrics {
 public:
  // `profile`: the scheduler's name, as kube-scheduler labels its profiles.
  Metrics(std::string profile, const std::string& version);
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // The text exposition of `stats` now.
  std::string render(const SchedulerStats& stats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::scheduler
