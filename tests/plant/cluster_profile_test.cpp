// ClusterProfiles as candidates (docs/placement.md, "ClusterProfiles"): sig-multicluster's
// cluster inventory API installed on the management sim, a profile whose control plane is healthy
// and whose kubeconfig is in <name>-kubeconfig next to it is a cluster a seed may select by label;
// one not healthy waits; one named as a planter Cluster is that Cluster. kubectl says where
// planter wrote.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "plant/cluster_fleet.h"

namespace planter::testing {
namespace {

using ::testing::HasSubstr;

const char* kFleet = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge-a, namespace: default}
spec: {}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge-b, namespace: default}
spec: {}
)";

class ClusterProfileTest : public ClusterFleetTest {
 protected:
  ClusterProfileTest() : ClusterFleetTest(kFleet) {}

  void SetUp() override {
    ClusterFleetTest::SetUp();
    std::filesystem::path crd =
        std::filesystem::path(PLANTER_TEST_DATA) / "plant/clusterprofile-crd.yaml";
    ASSERT_EQ(sim_.kubectl("apply -f " + q(crd)).code, 0);
    ASSERT_EQ(sim_.kubectl("wait --for=condition=Established crd/"
                           "clusterprofiles.multicluster.x-k8s.io --timeout=30s")
                  .code,
              0);
    ASSERT_EQ(sim_.kubectl("create namespace fleet").code, 0);
  }

  // A ClusterProfile `name` in namespace fleet, labelled env=prod, its control plane `healthy`,
  // reaching the workload cluster of planter Cluster `via` (its kubeconfig Secret copied).
  void profile(const std::string& name, const std::string& via, bool healthy,
               const std::string& cost = "") {
    std::filesystem::path file = sim_.dir() / (name + "-profile.yaml");
    std::ofstream(file) << fmt::format(
        "apiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ClusterProfile\nmetadata:\n  name: "
        "{}\n  namespace: fleet\n  labels: {{env: prod, x-k8s.io/cluster-manager: sim}}\nspec:\n "
        " displayName: {}\n  clusterManager: {{name: sim}}\n",
        name, name);
    ASSERT_EQ(sim_.kubectl("apply -f " + q(file)).code, 0);
    std::string status = fmt::format(
        R"({{"status":{{"conditions":[{{"type":"ControlPlaneHealthy","status":"{}","reason":"Probed","message":"","lastTransitionTime":"2026-11-30T00:00:00Z"}}],"version":{{"kubernetes":"1.37.0"}}{}}}}})",
        healthy ? "True" : "False",
        cost.empty()
            ? ""
            : fmt::format(R"(,"properties":[{{"name":"example.com/cost","value":"{}"}}])", cost));
    CommandResult patched =
        sim_.kubectl("patch clusterprofiles.multicluster.x-k8s.io " + name +
                     " -n fleet --subresource=status --type=merge -p " + q(status));
    ASSERT_EQ(patched.code, 0) << patched.err;
    CommandResult secret = sim_.kubectl("get secret " + via + "-kubeconfig -n default -o json");
    ASSERT_EQ(secret.code, 0) << secret.err;
    boost::json::object s = boost::json::parse(secret.out).as_object();
    boost::json::object copy{{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", name + "-kubeconfig"}, {"namespace", "fleet"}}},
                             {"data", s.at("data")}};
    std::filesystem::path out = sim_.dir() / (name + "-secret.json");
    std::ofstream(out) << boost::json::serialize(copy);
    ASSERT_EQ(sim_.kubectl("apply -f " + q(out)).code, 0);
  }
};

const char* kSeed = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: env=prod
data: {mode: prod}
)";

TEST_F(ClusterProfileTest, AHealthyProfileIsACandidateAndItsClusterGetsTheObject) {
  profile("prod-a", "edge-a", true);
  // A profile named as a planter Cluster is that Cluster (not labelled env=prod): not selected.
  profile("edge-b", "edge-b", true);
  CommandResult r = plant("plant", kSeed, "--timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("prod-a "));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("edge-b")));
  EXPECT_EQ(sim_.kubectl("--context edge-a get configmap settings -n default -o name").out,
            "configmap/settings\n");
  EXPECT_NE(sim_.kubectl("--context edge-b get configmap settings -n default").code, 0);
  // Written once, on the cluster the profile reaches (the sim's audit log names it edge-a).
  EXPECT_THAT(written_on("|ConfigMap|default|settings"), ::testing::ElementsAre("edge-a"));
}

// A profile's status.properties are preferences' property:NAME: of two that fit, the cheaper.
TEST_F(ClusterProfileTest, APropertyOfTheProfilesRanksThem) {
  profile("prod-a", "edge-a", true, "7");
  profile("prod-b", "edge-b", true, "3");
  std::string seed = std::string(kSeed).replace(
      std::string(kSeed).find("\ndata:") + 1, 0,
      "    planter.nephio.org/cluster-count: \"1\"\n"
      "    planter.nephio.org/cluster-preferences: '[{\"weight\": 100, \"property\": "
      "\"property:example.com/cost\", \"order\": \"Ascending\"}]'\n");
  CommandResult r = plant("plant", seed, "--timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(written_on("|ConfigMap|default|settings"), ::testing::ElementsAre("edge-b"));
  EXPECT_THAT(r.out, HasSubstr("prod-b")) << r.out;
}

TEST_F(ClusterProfileTest, AProfileWhoseControlPlaneIsNotHealthyIsWaitedFor) {
  profile("prod-a", "edge-a", false);
  CommandResult r = plant("plant", kSeed, "--timeout 5");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("ControlPlaneHealthy"));
  EXPECT_NE(sim_.kubectl("--context edge-a get configmap settings -n default").code, 0);
}

}  // namespace
}  // namespace planter::testing
