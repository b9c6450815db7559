// With `planter plant --sim`: planter's second scheduler for the simulated management cluster,
// so that a seed with a stack co-scheduled by `mode: scheduler` plants without extra steps
// (docs/coscheduling.md). It applies the PodGroup CRD, takes the scheduler's Lease and schedules
// in this process until planting (and --keep) ends. The sim stays the judge: this is planter's
// scheduler talking to it over the API, as a separate `planter scheduler` would.
#pragma once

#include <memory>

#include "kube/kubeconfig.h"
#include "plan/plan.h"

namespace planter::cli {

class EmbeddedScheduler {
 public:
  // Null when the plan has no stack co-scheduled by planter's scheduler on the management
  // cluster; a message on stderr when it cannot start (planting then waits and says why).
  static std::unique_ptr<EmbeddedScheduler> start_if_needed(const Plan& plan,
                                                            const kube::RestConfig& self);
  ~EmbeddedScheduler();

  struct Impl;

 private:
  explicit EmbeddedScheduler(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace planter::cli
