// A choice of clusters spread over regions, on the sim (docs/placement.md, "Spreading over
// regions"): four clusters in three regions, eu's two the roomiest. Three of them spread with
// maxSkew 1 take one per region however much more room eu has; when one region holds nothing that
// fits, DoNotSchedule waits, naming it, and ScheduleAnyway skews. The audit log says where planter
// wrote, kubectl where the pods run.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plant/cluster_fleet.h"

namespace planter::testing {
namespace {

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

class ClusterSpreadTest : public ClusterFleetTest {
 protected:
  ClusterSpreadTest() : ClusterFleetTest(kRegions) {}
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
  EXPECT_THAT(written_on("apps|Deployment|web|web"), UnorderedElementsAre("eu-1", "us-1", "ap-1"));
  for (const char* cluster : {"eu-1", "us-1", "ap-1"})
    EXPECT_EQ(running_on(cluster, "web", 1).size(), 1u) << cluster;
}

// Two pods of 3 cpu: ap-1 holds neither, so with maxSkew 1 no region may take more than one.
TEST_F(ClusterSpreadTest, ARegionWhereNothingFitsHoldsDoNotScheduleBackAndScheduleAnywaySkews) {
  CommandResult r = plant("plant", spread_seed("db", 2, "3", "DoNotSchedule"), "--timeout 3");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 of the 3 clusters it needs can be chosen now (eu-1, us-1): "
                               "region=ap has no cluster where it fits, so no region may take "
                               "more than 1"))
      << r.out;
  EXPECT_THAT(written_on("apps|Deployment|db|db"), IsEmpty());

  r = plant("plant", spread_seed("db", 2, "3", "ScheduleAnyway"), "--timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on("apps|Deployment|db|db"), UnorderedElementsAre("eu-1", "eu-2", "us-1"));
  for (const char* cluster : {"eu-1", "eu-2", "us-1"})
    EXPECT_EQ(running_on(cluster, "db", 2).size(), 2u) << cluster;
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
  EXPECT_THAT(written_on("apps|Deployment|default|app"), UnorderedElementsAre("eu-2"));
  EXPECT_EQ(running_on("eu-2", "default", 1).size(), 1u);
}

}  // namespace
}  // namespace planter::testing
