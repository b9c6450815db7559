#include "cli/embedded_scheduler.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/manifests.h"
#include "daemon/leader.h"
#include "operator/seed_resource.h"
#include "plan/stacks/stack_policy.h"
#include "scheduler/scheduler.h"

namespace planter::cli {

namespace {

// Planter's scheduler on one cluster: its client, the Lease it leads by, and the thread it runs
// on while it leads.
struct OneScheduler {
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<daemon::LeaderElector> elector;
  std::unique_ptr<scheduler::Scheduler> scheduler;
  std::jthread leading;
};

void say(const std::string& cluster, const std::string& what) {
  fmt::print(stderr, "the simulated fleet's planter scheduler on {}: {}\n", cluster, what);
}

// Applies the PodGroup CRD and starts leading and scheduling on `cluster`; null (and a message)
// when it cannot.
std::unique_ptr<OneScheduler> start_on(const std::string& cluster, const kube::RestConfig& config) {
  kube::ClientOptions options;
  options.transport.qps = 0;
  auto client = kube::Client::create(config, options);
  if (!client) {
    say(cluster, client.error().message);
    return nullptr;
  }
  auto crd = op::plan_seed_text(
      op::SeedText::one(std::string(scheduler_manifests()[0]), "deploy/scheduler"), "", {});
  if (!crd || crd->plan.objects.empty()) {
    say(cluster, "cannot read the PodGroup CRD");
    return nullptr;
  }
  if (auto applied = client.value()->apply(crd->plan.objects.front().body); !applied) {
    say(cluster, "cannot apply the PodGroup CRD: " + applied.error().str());
    return nullptr;
  }
  auto one = std::make_unique<OneScheduler>();
  one->client = std::move(client.value());
  daemon::LeaseOptions lease;
  lease.ns = std::string(kSchedulerLeaseNamespace);
  lease.name = std::string(kSchedulerLease);
  lease.identity = "planter-plant-sim";
  one->elector =
      std::make_unique<daemon::LeaderElector>(*one->client, lease, [](const std::string&) {});
  one->scheduler =
      std::make_unique<scheduler::Scheduler>(*one->client, scheduler::SchedulerOptions{});
  OneScheduler* raw = one.get();
  one->leading = std::jthread([raw](std::stop_token stop) {
    if (!raw->elector->acquire(stop)) return;
    std::jthread work([raw](std::stop_token t) { raw->scheduler->run(t); });
    raw->elector->hold(stop);
    work.request_stop();
  });
  return one;
}

}  // namespace

struct EmbeddedScheduler::Impl {
  std::mutex mu;  // guards schedulers: the waiting thread adds to it
  std::vector<std::unique_ptr<OneScheduler>> schedulers;
  std::jthread waiting;  // for workload clusters the seed creates
};

EmbeddedScheduler::EmbeddedScheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EmbeddedScheduler::~EmbeddedScheduler() {
  impl_->waiting.request_stop();
  if (impl_->waiting.joinable()) impl_->waiting.join();
  std::lock_guard lock(impl_->mu);
  for (auto& one : impl_->schedulers) one->leading.request_stop();
  for (auto& one : impl_->schedulers)
    if (one->leading.joinable()) one->leading.join();
}

std::unique_ptr<EmbeddedScheduler> EmbeddedScheduler::start_if_needed(const Plan& plan,
                                                                      Reach reach) {
  std::set<std::string> clusters;
  for (const StackNeeds& s : plan.stacks)
    if (s.pod_group)
      for (const Unit& u : plan.units)
        if (u.object == *s.pod_group) clusters.insert(u.cluster);
  if (clusters.empty()) return nullptr;
  auto impl = std::make_unique<Impl>();
  std::vector<std::string> later;
  for (const std::string& cluster : clusters) {
    if (auto config = reach(cluster)) {
      if (auto one = start_on(cluster, *config)) impl->schedulers.push_back(std::move(one));
    } else {
      later.push_back(cluster);
    }
  }
  // A workload cluster the seed creates: its scheduler starts once the fleet serves it. The sim
  // is in this process and says nothing when a cluster comes, so this looks a few times a second.
  if (!later.empty()) {
    Impl* raw = impl.get();
    impl->waiting = std::jthread([raw, later, reach](std::stop_token stop) mutable {
      while (!later.empty() && !stop.stop_requested()) {
        for (auto it = later.begin(); it != later.end();) {
          auto config = reach(*it);
          if (!config) {
            ++it;
            continue;
          }
          auto one = start_on(*it, *config);
          std::lock_guard lock(raw->mu);
          if (one) raw->schedulers.push_back(std::move(one));
          it = later.erase(it);
        }
        daemon::sleep_for(stop, std::chrono::milliseconds(200));
      }
    });
  }
  return std::unique_ptr<EmbeddedScheduler>(new EmbeddedScheduler(std::move(impl)));
}

}  // namespace planter::cli
