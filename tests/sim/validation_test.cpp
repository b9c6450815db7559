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
using ::testing::Not;

CommandResult kubectl_apply(const SimProcess& sim, const std::string& yaml,
                            const std::string& flags = "") {
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

// A CRD's x-kubernetes-validations rules (CEL over `self`), as kube-apiserver applies them: the
// rule's message (else "failed rule: <rule>") at its field, refused by every write, the dry run
// too; an object that keeps the rules is stored. The example is the Kubernetes documentation's
// ("Validation rules": replicas no more than maxReplicas).
TEST(ValidationTest, ACustomResourceThatBreaksItsCrdsCelRuleIsRefusedWithTheRulesMessage) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(kubectl_apply(sim, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.replicas"
              message: "replicas should be greater than or equal to minReplicas."
            - rule: "self.replicas <= self.maxReplicas"
            - rule: "!has(self.image) || self.image.startsWith('registry.example/')"
              fieldPath: .image
              reason: FieldValueForbidden
              message: "images come from registry.example"
            properties:
              minReplicas: {type: integer}
              replicas: {type: integer}
              maxReplicas: {type: integer}
              image: {type: string}
)yaml")
                .code,
            0);
  ASSERT_EQ(
      sim.kubectl("wait --for condition=Established crd/crontabs.stable.example.com --timeout 60s")
          .code,
      0);
  std::string bad =
      "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c, namespace: default}\n"
      "spec: {minReplicas: 0, replicas: 20, maxReplicas: 10, image: docker.io/x}\n";
  for (std::string flags : {"", "--server-side", "--server-side --dry-run=server"}) {
    CommandResult r = kubectl_apply(sim, bad, flags);
    EXPECT_NE(r.code, 0) << flags;
    EXPECT_THAT(r.err, HasSubstr("spec: Invalid value: \"object\": failed rule: self.replicas "
                                 "<= self.maxReplicas"))
        << flags;
    EXPECT_THAT(r.err, HasSubstr("spec.image: Forbidden")) << flags << ": " << r.err;
    EXPECT_THAT(r.err, Not(HasSubstr("greater than or equal to minReplicas"))) << flags;
  }
  EXPECT_TRUE(is_not_found(sim.kubectl("get crontab c -n default")));
  CommandResult good = kubectl_apply(
      sim,
      "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c, namespace: default}\n"
      "spec: {minReplicas: 1, replicas: 5, maxReplicas: 10, image: registry.example/cron:1}\n");
  EXPECT_EQ(good.code, 0) << good.err;
}

// Transition rules (those naming oldSelf), as kube-apiserver applies them: on an update, where
// the value before corresponds: a property by its name, an item of a list of type map by its
// keys; never on a create, nor for a new item. The examples are the Kubernetes documentation's
// ("Transition rules": an immutable field, a value that may only grow) and NVIDIA's
// ComputeDomain, whose spec is immutable (`self == oldSelf`).
TEST(ValidationTest, TransitionRulesCompareAnUpdateWithTheObjectBefore) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(kubectl_apply(sim, R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: pools, singular: pool, kind: Pool}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              region:
                type: string
                x-kubernetes-validations:
                - {rule: "self == oldSelf", message: "Value is immutable"}
              disks:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties: {name: {type: string}, size: {type: integer}}
                  x-kubernetes-validations:
                  - {rule: "self.size >= oldSelf.size", message: "a disk may not shrink"}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
)yaml")
                .code,
            0);
  ASSERT_EQ(
      sim.kubectl("wait --for condition=Established crd/pools.stable.example.com --timeout 60s")
          .code,
      0);
  auto pool = [](const std::string& region, const std::string& disks) {
    return "apiVersion: stable.example.com/v1\nkind: Pool\nmetadata: {name: p, namespace: "
           "default}\nspec: {region: " +
           region + ", disks: [" + disks + "]}\n";
  };
  ASSERT_EQ(kubectl_apply(sim, pool("eu", "{name: a, size: 10}")).code, 0);
  for (std::string flags : {"", "--server-side --force-conflicts"}) {
    CommandResult moved = kubectl_apply(sim, pool("us", "{name: a, size: 10}"), flags);
    EXPECT_NE(moved.code, 0) << flags;
    EXPECT_THAT(moved.err, HasSubstr("spec.region: Invalid value: \"string\": Value is immutable"))
        << flags;
    CommandResult shrunk = kubectl_apply(sim, pool("eu", "{name: a, size: 5}"), flags);
    EXPECT_NE(shrunk.code, 0) << flags;
    EXPECT_THAT(shrunk.err,
                HasSubstr("spec.disks[0]: Invalid value: \"object\": a disk may not shrink"))
        << flags;
  }
  // A new disk has nothing before it, even in the old one's place; a grown one keeps the rule.
  CommandResult grown = kubectl_apply(sim, pool("eu", "{name: b, size: 1}, {name: a, size: 20}"),
                                      "--server-side --force-conflicts");
  EXPECT_EQ(grown.code, 0) << grown.err;
  // A status write leaves the spec as it was: the spec's rules hold.
  CommandResult status = sim.kubectl(
      "patch pool p -n default --subresource=status --type=merge -p '{\"status\":{\"ok\":true}}'");
  EXPECT_EQ(status.code, 0) << status.err;
  EXPECT_EQ(
      sim.kubectl("get pool p -n default -o 'jsonpath={.spec.disks[?(@.name==\"a\")].size}'").out,
      "20");
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
