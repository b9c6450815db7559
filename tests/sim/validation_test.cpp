// The sim refuses what kube-apiserver refuses, in its words, so that planter's preflight (a
// server-side dry run) refuses it too: config keys, extended resource quantities; and answers
// what kube-apiserver answers every authenticated user (SelfSubjectReview: kubectl auth whoami).
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

CommandResult kubectl_apply(const SimProcess& sim, const std::string& yaml, const std::string& flags = "") {
  fs::path f = sim.dir() / fmt::format("obj-{}.yaml", std::hash<std::string>{}(yaml + flags));
  std::ofstream(f) << yaml;
  return sim.kubectl("apply " + flags + " -f " + q(f));
}

TEST(ValidationTest, AConfigMapKeyThatIsNoConfigKeyIsRefusedByEveryWrite) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"
      "data: {\"\": x}\n";
  for (std::string flags : {"", "--server-side", "--server-side --dry-run=server"}) {
    CommandResult r = kubectl_apply(sim, cm, flags);
    EXPECT_NE(r.code, 0) << flags << ": " << r.out;
    EXPECT_THAT(r.err, HasSubstr("a valid config key must consist of alphanumeric characters"))
        << flags;
  }
  EXPECT_TRUE(is_not_found(sim.kubectl("get configmap c -n default")));
}

TEST(ValidationTest, AnExtendedResourceIsAWholeNonNegativeNumberAndNothingBindsOtherwise) {
  SimProcess sim({"--node-resource", "nvidia.com/gpu=4"});
  ASSERT_TRUE(sim.running());
  auto pod = [](const std::string& name, const std::string& gpus) {
    return fmt::format(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {}, namespace: default}}\nspec:\n  "
        "containers:\n  - name: c\n    image: x\n    resources:\n      limits: {{nvidia.com/gpu: "
        "\"{}\"}}\n      requests: {{nvidia.com/gpu: \"{}\"}}\n",
        name, gpus, gpus);
  };
  CommandResult minus = kubectl_apply(sim, pod("minus", "-1"), "--server-side");
  EXPECT_NE(minus.code, 0) << minus.out;
  EXPECT_THAT(minus.err, HasSubstr("spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid "
                                   "value: \"-1\": must be greater than or equal to 0"));
  CommandResult half = kubectl_apply(sim, pod("half", "0.5"));
  EXPECT_NE(half.code, 0) << half.out;
  EXPECT_THAT(half.err, HasSubstr("spec.containers[0].resources.requests[nvidia.com/gpu]: Invalid "
                                  "value: \"500m\": must be an integer"));
  EXPECT_TRUE(is_not_found(sim.kubectl("get pod minus -n default")));
  EXPECT_TRUE(is_not_found(sim.kubectl("get pod half -n default")));
  // A Deployment's template is judged the same way.
  CommandResult deploy = kubectl_apply(sim, R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: default}
spec:
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers:
      - {name: c, image: x, resources: {limits: {example.com/dev: "1.5"}}}
)");
  EXPECT_NE(deploy.code, 0);
  EXPECT_THAT(deploy.err,
              HasSubstr("spec.template.spec.containers[0].resources.limits[example.com/dev]: "
                        "Invalid value: \"1500m\": must be an integer"));
  EXPECT_EQ(kubectl_apply(sim, pod("whole", "1")).code, 0);
}

TEST(ValidationTest, EveryAuthenticatedUserMayAskWhoItIs) {
  fs::path tokens = fs::temp_directory_path() / fmt::format("planter-whoami-{}.csv", ::getpid());
  std::ofstream(tokens) << "nobody-token,nobody,3,\"team-a\"\n";
  SimProcess sim({"--authorization", "RBAC", "--token-auth-file", tokens.string()});
  ASSERT_TRUE(sim.running());
  CommandResult r = sim.kubectl("auth whoami --token nobody-token -o json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"username\": \"nobody\""));
  EXPECT_THAT(r.out, HasSubstr("\"team-a\""));
  EXPECT_THAT(r.out, HasSubstr("\"system:authenticated\""));
  // Asking is no right to anything else.
  CommandResult denied = sim.kubectl("get configmaps -n default --token nobody-token");
  EXPECT_NE(denied.code, 0);
  EXPECT_THAT(denied.err, HasSubstr("(Forbidden)"));
  fs::remove(tokens);
}

}  // namespace
}  // namespace planter::testing
