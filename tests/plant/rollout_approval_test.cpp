// A roll-out that waits for a person after its canaries (docs/annotations.md,
// planter.nephio.org/rollout `approval`): on a sim of three clusters, `planter plant` declares the
// canary, then waits, naming the approval; `planter approve` lets the rest go on, and the audit log
// shows no write to a later batch before the approval's.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "model/rfc3339.h"
#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Clock = std::chrono::system_clock;

const char* kSeed = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: sim.planter.io/index
    planter.nephio.org/rollout: "{maxConcurrency: 2, canaries: [edge1], approval: settings-canary}"
data: {mode: prod}
)";

// The audit entries of the approval's and the ConfigMap's writes, in order.
std::vector<std::string> writes(const SimProcess& sim) {
  std::vector<std::string> out;
  for (const AuditEntry& e : parse_audit(sim.audit_lines())) {
    if (e.verb.empty() || e.user != "admin") continue;
    if (e.object == "|ConfigMap|kube-system|planter-approval-settings-canary")
      out.push_back("approval");
    else if (e.object == "|ConfigMap|default|settings")
      out.push_back(e.cluster);
  }
  return out;
}

TEST(RolloutApprovalTest, TheBatchAfterTheCanariesWaitsForTheApproval) {
  SimProcess sim({"--clusters", "3"});
  ASSERT_TRUE(sim.running());
  std::filesystem::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed) << kSeed;
  std::string kubeconfig = "--kubeconfig " + q(sim.kubeconfig());

  // Without the approval, the run ends at its timeout with the canary alone, naming what waits.
  CommandResult first = planter("plant " + kubeconfig + " " + q(seed) + " --timeout 6");
  EXPECT_EQ(first.code, 1) << first.out << first.err;
  EXPECT_THAT(first.out, HasSubstr("planter-approval-settings-canary")) << first.out;
  EXPECT_THAT(writes(sim), ElementsAre("edge1"));

  // A run that waits for it goes on once a person approves.
  auto run = std::async(std::launch::async, [&] {
    return planter("plant " + kubeconfig + " " + q(seed) + " --timeout 60");
  });
  // sleep-ok(poll): the run is let to reach its wait before the approval comes
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_THAT(writes(sim), ElementsAre("edge1"));  // the canary is there already: unchanged
  CommandResult approved = planter("approve settings-canary " + kubeconfig + " --by alice");
  ASSERT_EQ(approved.code, 0) << approved.err;
  EXPECT_THAT(approved.out, HasSubstr("approved settings-canary"));
  CommandResult second = run.get();
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  std::vector<std::string> order = writes(sim);
  ASSERT_EQ(order.size(), 4u) << fmt::format("{}", fmt::join(order, " "));
  EXPECT_EQ(order[1], "approval");
  EXPECT_THAT(std::vector<std::string>(order.begin() + 2, order.end()),
              ::testing::UnorderedElementsAre("edge2", "edge3"));
  EXPECT_EQ(sim.kubectl("get configmap planter-approval-settings-canary -n kube-system "
                        "-o jsonpath='{.data.approvedBy}'")
                .out,
            "alice");

  // A name that is no approval name is bad input, and so is a namespace that is no name.
  EXPECT_EQ(planter("approve Not_A_Name " + kubeconfig).code, 2);
  CommandResult bad_ns = planter("approve settings-canary -n ../x " + kubeconfig);
  EXPECT_EQ(bad_ns.code, 2);
  EXPECT_THAT(bad_ns.err, HasSubstr("-n ../x: not a namespace name")) << bad_ns.err;
}

// Stages by the clusters' labels: the canary, then edge2 once edge1 has been healthy 3 s
// (`after`), then, after a person's approval, the rest. `--no-wait-approval` ends the run at the
// approval, exit 0, naming it; the next run, approved, plants the rest.
TEST(RolloutApprovalTest, StagesWaitTheirTimeAndNoWaitApprovalEndsAtTheApproval) {
  SimProcess sim({"--clusters", "3"});
  ASSERT_TRUE(sim.running());
  std::filesystem::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed) << R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: sim.planter.io/index
    planter.nephio.org/rollout: >-
      {maxConcurrency: 1, stages: [
       {name: canary, selector: sim.planter.io/index=1, after: 3s},
       {name: second, selector: 'sim.planter.io/index in (2)', approval: settings-rest},
       {name: rest}]}
data: {mode: prod}
)";
  std::string kubeconfig = "--kubeconfig " + q(sim.kubeconfig());
  std::string plant = "plant " + kubeconfig + " " + q(seed) + " --no-wait-approval --timeout 60";
  // The ConfigMap's writes, each with its cluster and time.
  auto written = [&] {
    std::vector<std::pair<std::string, std::chrono::system_clock::time_point>> out;
    for (const std::string& line : sim.audit_lines()) {
      boost::json::value v = boost::json::parse(line);
      const boost::json::object& o = v.as_object();
      if (!o.contains("verb") || o.at("code").as_int64() >= 300 ||
          o.at("object").as_string() != "v1|ConfigMap|default|settings")
        continue;
      auto t = parse_rfc3339(o.at("ts").as_string());
      EXPECT_TRUE(t);
      out.emplace_back(std::string(o.at("cluster").as_string()), t.value_or(Clock::time_point{}));
    }
    return out;
  };

  CommandResult first = planter(plant);
  ASSERT_EQ(first.code, 0) << first.out << first.err;
  EXPECT_THAT(first.out, HasSubstr("the roll-out waits for approval settings-rest: planter "
                                   "approve settings-rest, then plant again to go on"));
  EXPECT_THAT(first.out, HasSubstr("2 of 3 units declared"));
  auto order = written();
  ASSERT_EQ(order.size(), 2u);
  EXPECT_EQ(order[0].first, "edge1");
  EXPECT_EQ(order[1].first, "edge2");
  // A ConfigMap is healthy once it exists: edge2 waited the stage's 3 s, not much more.
  double waited = std::chrono::duration<double>(order[1].second - order[0].second).count();
  EXPECT_GE(waited, 3.0);
  EXPECT_LE(waited, 6.0);

  ASSERT_EQ(planter("approve settings-rest " + kubeconfig).code, 0);
  CommandResult second = planter(plant);
  ASSERT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_THAT(second.out, ::testing::Not(HasSubstr("waits for approval")));
  order = written();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[2].first, "edge3");
}

}  // namespace
}  // namespace planter::testing
