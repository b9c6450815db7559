// With `planter plant --sim`: planter's second scheduler for each simulated cluster a stack
// co-scheduled by `mode: scheduler` goes to, so that such a seed plants without extra steps
// (docs/coscheduling.md). For each it applies the PodGroup CRD, takes the scheduler's Lease and
// schedules in this process until planting (and --keep) ends; a workload cluster the seed creates
// gets its scheduler once the simulated fleet serves it. The sim stays the judge: this is
// planter's scheduler talking to it over the API, as a separate `planter scheduler` would.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "kube/kubeconfig.h"
#include "plan/plan.h"

namespace planter::cli {

class EmbeddedScheduler {
 public:
  // How to reach a simulated cluster by name ("SELF" included): nullopt while it does not exist.
  using Reach = std::function<std::optional<kube::RestConfig>(const std::string& cluster)>;
  // Null when the plan has no stack co-scheduled by planter's scheduler; a message on stderr when
  // one cannot start (planting then waits and says why).
  static std::unique_ptr<EmbeddedScheduler> start_if_needed(const Plan& plan, Reach reach);
  ~EmbeddedScheduler();

  struct Impl;

 private:
  explicit EmbeddedScheduler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::cli
