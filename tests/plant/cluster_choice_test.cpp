// Choosing N of M clusters by room, on the sim (docs/placement.md): a fleet of six clusters whose
// node pools differ (one with GPUs); planter chooses where a stack fits with the most room left,
// keeps that choice on a replant, moves only a lost cluster's share, and waits, saying why per
// cluster, when fewer clusters than asked can hold it. The sim's scheduler, through kubectl, says
// where the pods then run; its audit log says where planter wrote.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "plant/cluster_fleet.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::UnorderedElementsAre;

// Room left once a pod of 3 cpu and 2Gi is placed (what the score compares):
//   small   1 × (2 cpu, 4Gi)          refused: no node has 3 cpu
//   mid     3 × (4 cpu, 8Gi)          9 cpu, 22Gi
//   big     4 × (8 cpu, 32Gi)         29 cpu, 126Gi   the most room
//   wide    2 × (16 cpu, 16Gi)        29 cpu, 30Gi    second
//   tiny    1 × (1 cpu, 1Gi)          refused
//   gpu     2 × (4 cpu, 8Gi, 1 GPU)   5 cpu, 14Gi
const char* kFleet = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: small, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 1, cpu: "2", memory: 4Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: mid, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 3, cpu: "4", memory: 8Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: big, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 4, cpu: "8", memory: 32Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: wide, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 2, cpu: "16", memory: 16Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: tiny, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 1, cpu: "1", memory: 1Gi}]}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: gpu, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 2, cpu: "4", memory: 8Gi, resources: {nvidia.com/gpu: "1"}}]}
)";

// A stack of one Deployment (`replicas` pods of 3 cpu, 2Gi, and `gpus` GPUs each) that chooses
// `count` of the edge clusters.
std::string stack_seed(const std::string& name, int count, int replicas, int gpus = 0) {
  std::string limits = gpus > 0 ? fmt::format(", limits: {{nvidia.com/gpu: \"{}\"}}", gpus) : "";
  return fmt::format(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {{name: {0}}}
spec:
  selector: {{matchLabels: {{stack: {0}}}}}
  clusters: {{count: {1}, selector: tier=edge}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: {0}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: {0}, labels: {{stack: {0}}}}}
spec:
  replicas: {2}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      containers:
      - name: c
        image: nginx
        resources: {{requests: {{cpu: "3", memory: 2Gi}}{3}}}
)",
                     name, count, replicas, limits);
}

class ClusterChoiceTest : public ClusterFleetTest {
 protected:
  ClusterChoiceTest() : ClusterFleetTest(kFleet) {}
};

TEST_F(ClusterChoiceTest, ACountOfTwoGoesWhereTheStackFitsWithTheMostRoomAndStays) {
  // What-if first: every candidate with its score, or why it is refused.
  CommandResult r = plant("plan --fit", stack_seed("web", 2, 2));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web chooses 2 of 6 cluster(s): big (score 100), wide "
                               "(score 61)\n  big: chosen, score 100\n  wide: chosen, score 61\n"));
  EXPECT_THAT(r.out, HasSubstr("  small: stack web needs 6 cpu, 4Gi in 2 pods"));
  EXPECT_THAT(r.out, HasSubstr("  tiny: stack web needs"));
  EXPECT_THAT(written_on("apps|Deployment|web|web"), IsEmpty()) << "plan writes nothing";

  r = plant("plant", stack_seed("web", 2, 2));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web: big (score 100), wide (score 61)"));
  EXPECT_THAT(written_on("apps|Deployment|web|web"), UnorderedElementsAre("big", "wide"));
  // The Namespace went only where the stack went.
  EXPECT_THAT(written_on("|Namespace||web"), UnorderedElementsAre("big", "wide"));
  EXPECT_EQ(running_on("big", "web", 2).size(), 2u);
  EXPECT_EQ(running_on("wide", "web", 2).size(), 2u);

  // A second run keeps the choice, even with more room elsewhere now.
  size_t before = sim_.audit_lines().size();
  r = plant("replant", stack_seed("web", 2, 2));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web: big (kept), wide (kept)"));
  // An apply that changes nothing is no write, so the sim audits none, and planter says so.
  EXPECT_THAT(written_on("apps|Deployment|web|web", before), IsEmpty()) << r.out;
  EXPECT_THAT(r.out, HasSubstr("big  apps/v1 Deployment web/web: unchanged"));
  EXPECT_THAT(r.out, HasSubstr("wide  apps/v1 Deployment web/web: unchanged"));

  // Losing a chosen cluster moves only its share: big stays, wide's goes to the best of the rest.
  ASSERT_EQ(sim_.kubectl("delete cluster wide --wait").code, 0);
  before = parse_audit(sim_.audit_lines()).size();
  r = plant("replant", stack_seed("web", 2, 2));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web: big (kept), mid (score"));
  EXPECT_THAT(written_on("apps|Deployment|web|web", before), ElementsAre("mid"));
  EXPECT_THAT(r.out, HasSubstr("big  apps/v1 Deployment web/web: unchanged"));
  EXPECT_EQ(running_on("mid", "web", 2).size(), 2u);
  // The choice is kept on the management cluster, where the next run reads it.
  EXPECT_EQ(sim_.kubectl("get configmap -n kube-system -l planter.nephio.org/inventory -o "
                         "jsonpath={.items[*].data.choices}")
                .out,
            "big,mid stack web\n");
}

TEST_F(ClusterChoiceTest, AGpuStackGoesToTheGpuClusterAndACountTooHighWaitsSayingWhy) {
  CommandResult r = plant("plant", stack_seed("train", 1, 1, 1));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack train: gpu (score 100)"));
  std::vector<std::string> nodes = running_on("gpu", "train", 1);
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(sim_.kubectl("--context gpu get node " + nodes[0] +
                         " -o jsonpath='{.status.allocatable.nvidia\\.com/gpu}'")
                .out,
            "1");

  // Three pods of 3 cpu on one cluster: only big, wide and mid hold them; four are asked for.
  size_t before = sim_.audit_lines().size();
  r = plant("plant", stack_seed("many", 4, 3), "--timeout 3");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("3 of the 4 clusters it needs fit now (big, wide, mid)"));
  EXPECT_THAT(r.out, HasSubstr("small: stack many needs 9 cpu, 6Gi in 3 pods"));
  EXPECT_THAT(r.out, HasSubstr("tiny: stack many needs 9 cpu"));
  EXPECT_THAT(r.out, HasSubstr("gpu: stack many needs 9 cpu"));
  EXPECT_THAT(written_on("apps|Deployment|many|many", before), IsEmpty());
  EXPECT_THAT(written_on("|Namespace||many", before), IsEmpty());
}

// A candidate is read as the run left it: the choice waits for `late`, a candidate the seed
// creates (the sim provisions it in 2 s), by when hog, declared on big at once, runs its four pods
// of 6 cpu on big's four nodes of 8. big, the most room of the fleet as it was, no longer holds a
// pod of 3 cpu, and wide is chosen. big's watches stay open though hog's units ended: the
// choice's own unit on big (one on each candidate) is open until the choice is made
// (FleetView::needed), so a watch of a candidate is never closed before its choice reads it.
TEST_F(ClusterChoiceTest, AChoiceReadsTheRoomTheRunsOwnPodsLeftOnACandidate) {
  std::string seed = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: late, namespace: default, labels: {tier: edge}}
spec: {nodes: [{name: pool, count: 1, cpu: "4", memory: 8Gi}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: hog, annotations: {planter.nephio.org/cluster: big}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: hog, namespace: hog, annotations: {planter.nephio.org/cluster: big}}
spec:
  replicas: 4
  selector: {matchLabels: {app: hog}}
  template:
    metadata: {labels: {app: hog}}
    spec:
      containers:
      - {name: c, image: nginx, resources: {requests: {cpu: "6", memory: 2Gi}}}
---
)" + stack_seed("web", 1, 1);
  CommandResult r = plant("plant", seed);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack web: wide (score")) << r.out;
  EXPECT_THAT(written_on("apps|Deployment|web|web"), ElementsAre("wide"));
  EXPECT_EQ(running_on("big", "hog", 4).size(), 4u);
  EXPECT_EQ(running_on("wide", "web", 1).size(), 1u);
  // hog was declared on big before the choice was made (the order the audit log keeps).
  std::vector<AuditEntry> audit = parse_audit(sim_.audit_lines());
  auto first = [&](const std::string& object, const std::string& cluster) {
    for (const AuditEntry& e : audit)
      if (e.user == "admin" && e.verb == "apply" && e.object == object && e.cluster == cluster)
        return e.index;
    return std::numeric_limits<size_t>::max();
  };
  EXPECT_LT(first("apps|Deployment|hog|hog", "big"), first("apps|Deployment|web|web", "wide"));
}

// A choice of one object, no Stack: `plan --fit` says the same as JSON and YAML (it printed
// nothing: "array required", for a plan without stacks).
TEST_F(ClusterChoiceTest, PlanFitWritesAChoiceWithoutStacksAsJsonAndYaml) {
  std::string seed = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: solo
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: tier=edge
    planter.nephio.org/cluster-count: "1"
spec:
  replicas: 1
  selector: {matchLabels: {app: solo}}
  template:
    metadata: {labels: {app: solo}}
    spec:
      containers:
      - {name: c, image: nginx, resources: {requests: {cpu: "3", memory: 2Gi}}}
)";
  CommandResult r = plant("plan --fit -o json", seed);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  json::object doc = json::parse(r.out).as_object();
  ASSERT_TRUE(doc.contains("choices")) << r.out;
  const json::object& choice = doc.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("count"), json::value(1));
  EXPECT_EQ(choice.at("chosen"), (json::array{"big"})) << r.out;
  EXPECT_EQ(choice.at("candidates").as_array().size(), 6u);
  r = plant("plan --fit -o yaml", seed);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  chosen:\n  - big\n")) << r.out;
}

}  // namespace
}  // namespace planter::testing
