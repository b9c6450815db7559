// A choice of clusters spread over regions, on the sim (docs/placement.md, "Spreading over
// regions"): four clusters in three regions, eu's two the roomiest. Three of them spread with
// maxSkew 1 take one per region however much more room eu has; when one region holds nothing that
// fits, DoNotSchedule waits, naming it, and ScheduleAnyway skews. The audit log says where planter
// wrote, kubectl where the pods run.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

const char* kRegions = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: eu-1, namespace: default, labels: {tier: edge, region: eu, cost: "5"}}
spec: {nodes: [{name: pool, count: 4, cpu: "8", memory: 32Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: eu-2, namespace: default, labels: {tier: edge, region: eu, cost: "4"}}
spec: {nodes: [{name: pool, count: 4, cpu: "8", memory: 32Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: us-1, namespace: default, labels: {tier: edge, region: us, cost: "2"}}
spec: {nodes: [{name: pool, count: 3, cpu: "4", memory: 8Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: ap-1, namespace: default, labels: {tier: edge, region: ap, cost: "1"}}
spec: {nodes: [{name: pool, count: 1, cpu: "2", memory: 4Gi}]}
)";

// A stack of `replicas` pods of `cpu` each choosing 3 edge clusters spread over regions.
std::string spread_seed(const std::string& name, int replicas, const std::string& cpu,
                        const std::string& when) {
  return fmt::format(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {{name: {0}}}
spec:
  selector: {{matchLabels: {{stack: {0}}}}}
  clusters:
    count: 3
    selector: tier=edge
    spread: {{topologyKey: region, maxSkew: 1, whenUnsatisfiable: {3}}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: {0}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: {0}, labels: {{stack: {0}}}}}
spec:
  replicas: {1}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      containers:
      - {{name: c, image: nginx, resources: {{requests: {{cpu: "{2}", memory: 1Gi}}}}}}
)",
                     name, replicas, cpu, when);
}

std::vector<std::string> written_on(const SimProcess& sim, const std::string& object) {
  std::vector<std::string> out;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    if (e.user == "admin" && e.verb == "apply" && e.object == object) out.push_back(e.cluster);
  return out;
}

// Whether `count` pods of namespace `ns` run on `cluster`, as kubectl says, within 10 s.
bool runs(const SimProcess& sim, const std::string& cluster, const std::string& ns, size_t count) {
  for (int i = 0; i < 100; ++i) {
    CommandResult r = sim.kubectl("--context " + cluster + " get pods -n " + ns +
                                  " --field-selector=status.phase=Running -o name");
    if (r.code == 0 && static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')) == count)
      return true;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

class ClusterSpreadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(sim_.running());
    fs::path fleet = sim_.dir() / "regions.yaml";
    std::ofstream(fleet) << kRegions;
    ASSERT_EQ(sim_.kubectl("apply -f " + q(fleet)).code, 0);
    ASSERT_EQ(sim_.kubectl("wait --for=condition=Ready clusters --all --timeout=30s").code, 0);
  }
  CommandResult plant(const std::string& verb, const std::string& seed_text,
                      const std::string& flags = "") {
    fs::path seed = sim_.dir() / "seed.yaml";
    std::ofstream(seed) << seed_text;
    return planter(verb + " --kubeconfig " + q(sim_.kubeconfig()) + " " + q(seed) + " " + flags);
  }

  SimProcess sim_{std::vector<std::string>{"--clusters", "0"}};
};

TEST_F(ClusterSpreadTest, ThreeClustersSpreadOverThreeRegionsTakeOneInEach) {
  CommandResult r = plant("plan --fit", spread_seed("web", 1, "1", "DoNotSchedule"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web chooses 3 of 4 cluster(s) spread over region (maxSkew "
                               "1, DoNotSchedule): eu-1 (score 100), us-1 (score"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("  eu-2 (region=eu): score 100\n")) << r.out;

  r = plant("plant", spread_seed("web", 1, "1", "DoNotSchedule"), "--timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on(sim_, "apps|Deployment|web|web"),
              UnorderedElementsAre("eu-1", "us-1", "ap-1"));
  for (const char* cluster : {"eu-1", "us-1", "ap-1"})
    EXPECT_TRUE(runs(sim_, cluster, "web", 1)) << cluster;
}

// Two pods of 3 cpu: ap-1 holds neither, so with maxSkew 1 no region may take more than one.
TEST_F(ClusterSpreadTest, ARegionWhereNothingFitsHoldsDoNotScheduleBackAndScheduleAnywaySkews) {
  CommandResult r = plant("plant", spread_seed("db", 2, "3", "DoNotSchedule"), "--timeout 3");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 of the 3 clusters it needs can be chosen now (eu-1, us-1): "
                               "region=ap has no cluster where it fits, so no region may take "
                               "more than 1"))
      << r.out;
  EXPECT_THAT(written_on(sim_, "apps|Deployment|db|db"), IsEmpty());

  r = plant("plant", spread_seed("db", 2, "3", "ScheduleAnyway"), "--timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on(sim_, "apps|Deployment|db|db"),
              UnorderedElementsAre("eu-1", "eu-2", "us-1"));
  for (const char* cluster : {"eu-1", "eu-2", "us-1"})
    EXPECT_TRUE(runs(sim_, cluster, "db", 2)) << cluster;
}

// Preferences beyond room: the cheapest by a label's number, weighed against room. eu-1 and eu-2
// have the most room (100 each), the cost term gives ap-1 100, us-1 75, eu-2 25, eu-1 0: eu-2
// scores best, and plan --fit says each term's share.
TEST_F(ClusterSpreadTest, APreferenceByALabelsNumberIsWeighedAgainstRoom) {
  std::string seed = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: tier=edge
    planter.nephio.org/cluster-count: "1"
    planter.nephio.org/cluster-preferences: '[{"weight": 100, "property": "label:cost", "order": "Ascending"}]'
spec:
  replicas: 1
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: "1", memory: 1Gi}}}]
)";
  CommandResult r = plant("plan --fit", seed);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  eu-2: chosen, score 125 (room 100, cost (Ascending) 25)\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("  eu-1: score 100 (room 100)\n")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("  us-1: score 10")) << r.out;
  r = plant("plant", seed, "--timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on(sim_, "apps|Deployment|default|app"), UnorderedElementsAre("eu-2"));
  EXPECT_TRUE(runs(sim_, "eu-2", "default", 1));
}

}  // namespace
}  // namespace planter::testing
