// `plant --wait`: after every unit is declared, wait until each object of the plan is Current
// (kstatus.h), or satisfies its own `planter.nephio.org/ready-when` when it has one, as Helm's
// --wait, kapp and Flux's `wait: true` gate a release on health. Each round lists, per cluster and
// kind, the seed's objects (label planter.nephio.org/seed=<seed>), all clusters at once; rounds
// come every half second, slower while nothing changes, up to two seconds apart.
//
// Threads: runs on the calling thread; the lists answer on transport threads.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "kube/client.h"
#include "plan/plan.h"
#include "plant/readiness_check.h"

namespace planter::plant {

struct HealthWaitOptions {
  std::string seed_name;
  kube::ClientOptions client;
  std::chrono::steady_clock::time_point deadline;
  std::stop_token stop;
  // A unit became healthy, or (`holds` false) why it is not, each time that changes.
  std::function<void(size_t unit, const Readiness&)> on_change;
};

struct HealthOutcome {
  std::vector<Readiness> units;  // parallel to Plan::units; `why` says what is missing
  std::chrono::microseconds elapsed{0};
  bool timed_out = false;
  bool stopped = false;

  size_t healthy() const;
  bool all_healthy() const { return healthy() == units.size(); }
};

// Units on clusters not in `clusters` are not healthy ("its cluster cannot be reached").
HealthOutcome wait_healthy(const Plan& plan,
                           const std::map<std::string, kube::RestConfig>& clusters,
                           const HealthWaitOptions& options);

// "3 of 4 objects healthy", then a line per object that is not, with why.
std::string render_health_summary(const Plan& plan, const HealthOutcome& outcome);

}  // namespace planter::plant
