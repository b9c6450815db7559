// A roll-out bounded by maxUnavailable (docs/annotations.md, planter.nephio.org/rollout): on a
// sim of four clusters, a Deployment with `maxUnavailable: 2` is written on two clusters at once
// and on a third only once one of them is available; the sim's audit log, where each write and
// each Deployment's becoming available are recorded in order, shows at most two clusters
// between their write and their `available` at any moment, and two at some moment.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

TEST(RolloutTest, MaxUnavailableIsNeverExceeded) {
  SimProcess sim({"--clusters", "4"});
  ASSERT_TRUE(sim.running());
  std::filesystem::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed) << R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: sim.planter.io/index
    planter.nephio.org/rollout: "{maxUnavailable: 2}"
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.example/web:2.0
        resources: {requests: {cpu: 100m, memory: 64Mi}}
)";
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // Sampled at every entry of the audit log: the clusters written and not yet available.
  std::set<std::string> unavailable, written;
  size_t most = 0;
  std::vector<std::string> story;
  for (const AuditEntry& e : parse_audit(sim.audit_lines())) {
    if (e.object != "apps|Deployment|default|web") continue;
    if (!e.verb.empty() && e.user == "admin" && !written.contains(e.cluster)) {
      written.insert(e.cluster);
      unavailable.insert(e.cluster);
      story.push_back("write " + e.cluster);
    } else if (e.verb.empty() && e.what == "available" && unavailable.erase(e.cluster)) {
      story.push_back("available " + e.cluster);
    }
    most = std::max(most, unavailable.size());
  }
  std::string told = fmt::format("{}", fmt::join(story, ", "));
  EXPECT_EQ(written.size(), 4u) << told;
  EXPECT_EQ(most, 2u) << told;
  // What waited said why, in kube's words for the roll-out.
  EXPECT_THAT(r.out, ::testing::HasSubstr("room in the roll-out of Deployment/default/web "
                                          "(maxUnavailable 2)"))
      << r.out;
}

}  // namespace
}  // namespace planter::testing
