// Cluster taints on the sim (docs/placement.md, "Cluster taints"): three clusters, the roomiest
// tainted NoSelect for maintenance, one PreferNoSelect for its cost. A choice never takes the
// NoSelect cluster without a toleration and takes it with one; it takes the PreferNoSelect one
// only when it cannot be made without it. `plan --fit` says why per cluster, the audit log where
// planter wrote, kubectl where the pod runs.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

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

class ClusterTaintsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(sim_.running());
    fs::path fleet = sim_.dir() / "tainted.yaml";
    std::ofstream(fleet) << kTainted;
    ASSERT_EQ(sim_.kubectl("apply -f " + q(fleet)).code, 0);
    ASSERT_EQ(sim_.kubectl("wait --for=condition=Ready clusters --all --timeout=30s").code, 0);
  }
  CommandResult run(const std::string& verb, const std::string& text) {
    fs::path file = sim_.dir() / "seed.yaml";
    std::ofstream(file) << text;
    return planter(verb + " --kubeconfig " + q(sim_.kubeconfig()) + " " + q(file));
  }

  SimProcess sim_{std::vector<std::string>{"--clusters", "0"}};
};

TEST_F(ClusterTaintsTest, ANoSelectClusterIsTakenOnlyWithATolerationAndPreferNoSelectLast) {
  CommandResult r = run("plan --fit", seed(1));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("chooses 1 of 3 cluster(s): mid (score")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("  big: taint maintenance:NoSelect is not tolerated\n"));
  EXPECT_THAT(r.out, HasSubstr("  pricey: taint cost=high:PreferNoSelect is not tolerated\n"));

  // Two are needed: the PreferNoSelect cluster is taken, the NoSelect one still is not.
  r = run("plan --fit", seed(2));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("chooses 2 of 3 cluster(s): pricey (score")) << r.out;
  EXPECT_THAT(r.out, HasSubstr(", mid (score")) << r.out;
  r = run("plan --fit", seed(3));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("only 2 fit now, it would wait")) << r.out;

  // Tolerated, the roomiest is chosen and the pod runs there.
  std::string tolerate = R"([{"key": "maintenance", "operator": "Exists"}])";
  r = run("plant", seed(1, tolerate) + "");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("apps/v1 Deployment default/app: big (score 100)")) << r.out;
  std::vector<std::string> written;
  for (const AuditEntry& e : parse_audit(sim_.audit_lines()))
    if (e.user == "admin" && e.verb == "apply" && e.object == "apps|Deployment|default|app")
      written.push_back(e.cluster);
  EXPECT_THAT(written, ElementsAre("big"));
  std::string phase;
  for (int i = 0; i < 100 && phase != "Running"; ++i) {
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    phase = sim_.kubectl(
                    "--context big get pods -n default -l app=app -o "
                    "jsonpath={.items[0].status.phase}")
                .out;
  }
  EXPECT_EQ(phase, "Running");
}

}  // namespace
}  // namespace planter::testing
