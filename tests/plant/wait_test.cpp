// `plant --wait`: planting ends when what it declared is healthy, as Helm's --wait and Flux's
// `wait: true` do, judged by kubectl's own `rollout status`; what never becomes healthy ends the
// run at --timeout with exit 1, named with its own condition's words.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "plant/plant_support.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string deployment(const std::string& name, int replicas, const std::string& cpu) {
  return fmt::format(
      "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {0}, namespace: shop}}\n"
      "spec:\n  replicas: {1}\n  selector: {{matchLabels: {{app: {0}}}}}\n  template:\n"
      "    metadata: {{labels: {{app: {0}}}}}\n    spec:\n      containers:\n      - name: c\n"
      "        image: nginx:1.27\n        resources: {{requests: {{cpu: \"{2}\"}}}}\n",
      name, replicas, cpu);
}

// Pods take four seconds to start: without --wait planting ends before they run; with it, not
// before `kubectl rollout status` would say the rollout is done.
TEST(PlantWaitTest, WaitEndsOnlyWhenKubectlRolloutStatusWould) {
  SimProcess sim({"--workload-delay", "4000"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "shop.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
                      << deployment("web", 3, "100m");
  std::string args = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60";
  CommandResult sent = planter("plant " + args);
  ASSERT_EQ(sent.code, 0) << sent.out << sent.err;
  EXPECT_THAT(sent.out, Not(HasSubstr("healthy")));
  CommandResult early = sim.kubectl("rollout status deployment/web -n shop --timeout=1s");
  EXPECT_NE(early.code, 0) << "planting alone ends before the rollout: " << early.out;

  ASSERT_EQ(sim.kubectl("scale deployment web -n shop --replicas=1").code, 0);
  // replant takes replicas back from kubectl, and waits for the rollout back to 3.
  CommandResult waited = planter("replant --force-conflicts --wait " + args);
  ASSERT_EQ(waited.code, 0) << waited.out << waited.err;
  EXPECT_THAT(waited.out, HasSubstr("apps/v1 Deployment shop/web: healthy"));
  EXPECT_THAT(waited.out, HasSubstr("2 of 2 objects healthy"));
  CommandResult done = sim.kubectl("rollout status deployment/web -n shop --timeout=1s");
  EXPECT_EQ(done.code, 0) << done.out << done.err;
  EXPECT_EQ(sim.kubectl("get deployment web -n shop -o jsonpath={.status.availableReplicas}").out,
            "3");
}

// A Deployment no node has room for never becomes available: --wait gives up at --timeout, exit
// 1, naming it with its own Available condition; what is healthy is not listed.
TEST(PlantWaitTest, WhatNeverBecomesHealthyEndsTheRunAtTheTimeoutNamed) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "shop.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
                      << deployment("small", 1, "100m") << deployment("huge", 2, "1000");
  CommandResult r =
      planter("plant --wait --timeout 6 --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("timed out waiting for health"));
  EXPECT_THAT(r.out, HasSubstr("2 of 3 objects healthy"));
  EXPECT_THAT(r.out, HasSubstr("  not healthy: apps/v1 Deployment shop/huge on SELF: 0 of 2 "
                               "updated replicas available (MinimumReplicasUnavailable: "
                               "Deployment does not have minimum availability.)"));
  EXPECT_THAT(r.out, Not(HasSubstr("not healthy: apps/v1 Deployment shop/small")));
  // kubectl agrees: the pods wait for room.
  EXPECT_THAT(sim.kubectl("get pods -n shop -l app=huge -o jsonpath={.items[*].status.phase}").out,
              HasSubstr("Pending"));
}

}  // namespace
}  // namespace planter::testing
