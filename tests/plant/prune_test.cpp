// What planting's prune does when it cannot know what to prune: an inventory it cannot read is a
// visible outcome, never a silent skip that passes for a prune.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// A user who may write ConfigMaps in default and read Namespaces, and nothing in kube-system:
// the seed's inventory (kube-system/planter-inventory-...) is out of reach.
constexpr const char* kNoInventoryRights = R"(apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: namespaces-reader}
rules: [{apiGroups: [""], resources: [namespaces], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: deployer-namespaces}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: namespaces-reader}
subjects: [{kind: User, name: deployer}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: configmaps, namespace: default}
rules: [{apiGroups: [""], resources: [configmaps], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: deployer-configmaps, namespace: default}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: configmaps}
subjects: [{kind: User, name: deployer}]
)";

TEST(PruneTest, AnInventoryThatCannotBeReadIsSaidAndFailsTheRun) {
  fs::path tokens = fs::temp_directory_path() / fmt::format("planter-prune-{}.csv", ::getpid());
  std::ofstream(tokens) << "deployer-token,deployer,2,\"\"\n";
  SimProcess sim({"--authorization", "RBAC", "--token-auth-file", tokens.string()});
  ASSERT_TRUE(sim.running());
  fs::path rbac = sim.dir() / "rbac.yaml";
  std::ofstream(rbac) << kNoInventoryRights;
  ASSERT_EQ(sim.kubectl("apply -f " + q(rbac)).code, 0);
  // The sim's kubeconfig with the deployer's token instead of the admin's.
  std::string text = read_file(sim.kubeconfig());
  for (size_t at = text.find("token: "); at != std::string::npos; at = text.find("token: ", at + 1))
    text.replace(at + 7, text.find('\n', at) - at - 7, "deployer-token");
  fs::path kubeconfig = sim.dir() / "deployer.kubeconfig";
  std::ofstream(kubeconfig) << text;
  fs::path seed = sim.dir() / "app.yaml";
  std::ofstream(seed) << "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: "
                         "default}\ndata: {mode: fast}\n";
  CommandResult r =
      planter("plant --kubeconfig " + q(kubeconfig) + " " + q(seed) + " --seed-name app");
  // Everything declared, but what an earlier run planted and this seed dropped could not be
  // known: the run says nothing was pruned, where and why, and fails.
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: cluster SELF: reading ConfigMap kube-system/"));
  EXPECT_THAT(r.out, HasSubstr("not pruned: the inventory of cluster(s) SELF could not be read"));
  EXPECT_THAT(r.out, HasSubstr("nothing the seed no longer holds was deleted on any cluster"));
  EXPECT_EQ(sim.kubectl("get configmap settings -n default -o jsonpath={.data.mode}").out, "fast");
  fs::remove(tokens);
}

}  // namespace
}  // namespace planter::testing
