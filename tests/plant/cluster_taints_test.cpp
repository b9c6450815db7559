// Cluster taints on the sim (docs/placement.md, "Cluster taints"): three clusters, the roomiest
// tainted NoSelect for maintenance, one PreferNoSelect for its cost. A choice never takes the
// NoSelect cluster without a toleration and takes it with one; it takes the PreferNoSelect one
// only when it cannot be made without it. `plan --fit` says why per cluster, the audit log where
// planter wrote, kubectl where the pod runs.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plant/cluster_fleet.h"

namespace planter::testing {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

const char* kTainted = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: big, namespace: default, labels: {tier: edge}}
spec:
  nodes: [{name: pool, count: 4, cpu: "8", memory: 32Gi}]
  taints: [{key: maintenance, effect: NoSelect}]
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: mid, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 3, cpu: "4", memory: 8Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: pricey, namespace: default, labels: {tier: edge}}
spec:
  nodes: [{name: pool, count: 3, cpu: "8", memory: 16Gi}]
  taints: [{key: cost, value: high, effect: PreferNoSelect}]
)";

// One Deployment of a 1-cpu pod choosing `count` edge clusters, with `tolerations` (JSON) if any.
std::string seed(int count, const std::string& tolerations = "") {
  std::string extra = tolerations.empty()
                          ? ""
                          : "    planter.nephio.org/cluster-tolerations: '" + tolerations + "'\n";
  return fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: tier=edge
    planter.nephio.org/cluster-count: "{}"
{}spec:
  replicas: 1
  selector: {{matchLabels: {{app: app}}}}
  template:
    metadata: {{labels: {{app: app}}}}
    spec:
      containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}]
)",
                     count, extra);
}

class ClusterTaintsTest : public ClusterFleetTest {
 protected:
  ClusterTaintsTest() : ClusterFleetTest(kTainted) {}
};

TEST_F(ClusterTaintsTest, ANoSelectClusterIsTakenOnlyWithATolerationAndPreferNoSelectLast) {
  CommandResult r = plant("plan --fit", seed(1));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("chooses 1 of 3 cluster(s): mid (score")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("  big: taint maintenance:NoSelect is not tolerated\n"));
  EXPECT_THAT(r.out, HasSubstr("  pricey: taint cost=high:PreferNoSelect is not tolerated\n"));

  // Two are needed: the PreferNoSelect cluster is taken, the NoSelect one still is not.
  r = plant("plan --fit", seed(2));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("chooses 2 of 3 cluster(s): pricey (score")) << r.out;
  EXPECT_THAT(r.out, HasSubstr(", mid (score")) << r.out;
  r = plant("plan --fit", seed(3));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("only 2 fit now, it would wait")) << r.out;

  // Tolerated, the roomiest is chosen and the pod runs there.
  std::string tolerate = R"([{"key": "maintenance", "operator": "Exists"}])";
  r = plant("plant", seed(1, tolerate) + "");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("apps/v1 Deployment default/app: big (score 100)")) << r.out;
  // The management cluster holds none of the seed: the three candidates are what it goes to.
  EXPECT_THAT(r.out, HasSubstr(": 3 units (an object on one cluster each) on 3 cluster(s)\n"))
      << r.out;
  EXPECT_THAT(written_on("apps|Deployment|default|app"), ElementsAre("big"));
  EXPECT_EQ(running_on("big", "default", 1).size(), 1u);
}

// A chosen cluster tainted NoSelect afterwards (maintenance): the next replant gives it up, takes
// another for its share, and prunes the seed's objects there (what the choice no longer holds is
// stale), as the operator's failover does once a cluster answers again.
TEST_F(ClusterTaintsTest, AReplantMovesTheShareOfANewlyTaintedClusterAndPrunesItThere) {
  std::string tolerate = R"([{"key": "maintenance", "operator": "Exists"}])";
  CommandResult r = plant("plant", seed(1, tolerate));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ASSERT_THAT(written_on("apps|Deployment|default|app"), ElementsAre("big"));
  size_t before = sim_.audit_lines().size();
  // The toleration goes (the object changes), and big stays tainted: the share must move.
  r = plant("replant", seed(1));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on("apps|Deployment|default|app", before), ElementsAre("mid"));
  EXPECT_THAT(r.out, HasSubstr("pruned: apps/v1 Deployment default/app on big: deleted")) << r.out;
  EXPECT_NE(sim_.kubectl("--context big get deployment app -n default").code, 0);
  EXPECT_EQ(running_on("mid", "default", 1).size(), 1u);
  // Planted again as it is: nothing moves (nothing is written on big), nothing is pruned.
  before = sim_.audit_lines().size();
  r = plant("replant", seed(1));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("pruned:")));
  EXPECT_THAT(written_on("apps|Deployment|default|app", before), Not(Contains("big")));
  EXPECT_EQ(sim_.kubectl("--context mid get deployment app -n default -o name").out,
            "deployment.apps/app\n");
}

}  // namespace
}  // namespace planter::testing
