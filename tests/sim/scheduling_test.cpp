// The sim's scheduler and workload controllers through kubectl and the Python client, judged
// by an oracle written from the Kubernetes documentation (tests/sim/scheduling.py and
// scheduling_oracle.py): requests too large, kubectl scale, a nodeSelector released by kubectl
// label, taints with and without tolerations, cordon, required anti-affinity and affinity (the
// first-pod problem in both directions), zone spread, a DaemonSet skipping a tainted node, QoS
// classes, extended resources, a Job, a pod of another scheduler bound through pods/binding, and
// a deleted node.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

TEST(SchedulingTest, KubectlAndPythonClientScenariosAgreeWithTheOracle) {
  SimProcess sim({"--nodes", "3", "--node-cpu", "4", "--node-memory", "16Gi", "--zones", "2",
                  "--workload-delay", "100", "--node-resource", "example.com/dongle=2"});
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/scheduling.py";
  auto r = run_shell(python_with_kubernetes() + " " + script + " " + kubectl_binary() + " " +
                     sim.kubeconfig().string());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
}

// Dynamic Resource Allocation: slices, classes with CEL selectors, claims and templates, through
// kubectl (tests/sim/dra.py names the allocator case each check mirrors).
TEST(SchedulingTest, DevicesAreAllocatedAsTheStructuredAllocatorDoes) {
  SimProcess sim({"--nodes", "3", "--workload-delay", "50"});
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/dra.py";
  auto r = run_shell(python_with_kubernetes() + " " + script + " " + kubectl_binary() + " " +
                     sim.kubeconfig().string());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
}

// Kubernetes' own gangs: PodGroups and Workloads validated, a pod of a missing group held without
// a word, quorum, all or nothing until a node joins, a topology constraint kept to one zone
// (tests/sim/gangs.py names the documentation each check follows).
// On a 1.36 server through v1alpha2; on a 1.33 one, pods naming a PodGroup are plain pods.
class GangApiLevelTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GangApiLevelTest, PodGroupsArePlacedAllOrNothingAsKubeSchedulerDoes) {
  SimProcess sim({"--nodes", "3", "--node-cpu", "4", "--zones", "2", "--workload-delay", "50",
                  "--api-level", GetParam()});
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/gangs.py";
  auto r = run_shell(python_with_kubernetes() + " " + script + " " + kubectl_binary() + " " +
                     sim.kubeconfig().string());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Levels, GangApiLevelTest, ::testing::Values("1.37", "1.36", "1.33"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '.'), name.end());
                           return "Kubernetes" + name;
                         });

// 200 random gang mixes (groups of one pod size on nodes of their own, random minCount, node
// sizes, some groups joined later by more pods): the sim binds, per group, what an oracle written
// from the gang-scheduling documentation says, all that fit or none (tests/sim/gang_mixes.py).
TEST(SchedulingTest, RandomGangMixesBindWhatTheDocumentationSays) {
  SimProcess sim({"--nodes", "1", "--workload-delay", "50"});
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/gang_mixes.py";
  auto r =
      run_shell(python_with_kubernetes() + " " + script + " " + sim.kubeconfig().string() + " 200");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all 200 mixes agree"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace planter::testing
