#include "cli/embedded_scheduler.h"

#include <fmt/format.h>

#include <array>
#include <boost/json.hpp>
#include <string_view>
#include <thread>

#include "operator/leader.h"
#include "operator/seed_resource.h"
#include "plan/stacks/stack_policy.h"
#include "schedule/scheduler.h"

namespace planter::cli {

namespace {

// deploy/scheduler/: the PodGroup CRD first.
constexpr std::array kSchedulerManifests = {
#include "cli/scheduler_manifests.inc"
};

}  // namespace

struct EmbeddedScheduler::Impl {
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<op::LeaderElector> elector;
  std::unique_ptr<schedule::Scheduler> scheduler;
  std::jthread leading;
};

EmbeddedScheduler::EmbeddedScheduler(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EmbeddedScheduler::~EmbeddedScheduler() {
  impl_->leading.request_stop();
  if (impl_->leading.joinable()) impl_->leading.join();
}

std::unique_ptr<EmbeddedScheduler> EmbeddedScheduler::start_if_needed(
    const Plan& plan, const kube::RestConfig& self) {
  bool needed = false;
  for (const StackNeeds& s : plan.stacks)
    if (s.pod_group)
      for (const Unit& u : plan.units)
        needed = needed || (u.object == *s.pod_group && u.cluster == "SELF");
  if (!needed) return nullptr;
  auto say = [](const std::string& what) {
    fmt::print(stderr, "the simulated fleet's planter scheduler: {}\n", what);
  };
  kube::ClientOptions options;
  options.transport.qps = 0;
  auto client = kube::Client::create(self, options);
  if (!client) {
    say(client.error().message);
    return nullptr;
  }
  auto crd = op::plan_seed_text({std::string(kSchedulerManifests[0]), "deploy/scheduler"}, "", {});
  if (!crd || crd->plan.objects.empty()) {
    say("cannot read the PodGroup CRD");
    return nullptr;
  }
  if (auto applied = client.value()->apply(crd->plan.objects.front().body); !applied) {
    say("cannot apply the PodGroup CRD: " + applied.error().str());
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->client = std::move(client.value());
  op::LeaseOptions lease;
  lease.ns = std::string(kSchedulerLeaseNamespace);
  lease.name = std::string(kSchedulerLease);
  lease.identity = "planter-plant-sim";
  impl->elector =
      std::make_unique<op::LeaderElector>(*impl->client, lease, [](const std::string&) {});
  impl->scheduler =
      std::make_unique<schedule::Scheduler>(*impl->client, schedule::SchedulerOptions{});
  Impl* raw = impl.get();
  impl->leading = std::jthread([raw](std::stop_token stop) {
    if (!raw->elector->acquire(stop)) return;
    std::jthread work([raw](std::stop_token t) { raw->scheduler->run(t); });
    raw->elector->hold(stop);
    work.request_stop();
  });
  return std::unique_ptr<EmbeddedScheduler>(new EmbeddedScheduler(std::move(impl)));
}

}  // namespace planter::cli
