// The cluster-choice gate (src/plant/gates/cluster_choice.cpp): a choice of 1 of 2 clusters is
// made once both can be read, where the pods fit with the most room; the unit on the chosen
// cluster goes on, the other is not declared, and a kept choice stays.
#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: big, namespace: default, labels: {tier: edge}}
spec: {}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: small, namespace: default, labels: {tier: edge}}
spec: {}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: tier=edge
    planter.nephio.org/cluster-count: "1"
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: web
        resources: {requests: {cpu: "2", memory: 1Gi}}
)";

std::string node(const std::string& name, const std::string& cpu) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name + "}\nstatus:\n  allocatable: {cpu: '" +
         cpu + "', memory: 32Gi, pods: '110'}\n";
}

using Type = ReadinessPredicate::Type;

GateBench& with_nodes(GateBench& bench) {
  bench.fleet.hold(node("big-0", "8") + "---\n" + node("big-1", "8"), "big");
  bench.fleet.hold(node("small-0", "3"), "small");
  return bench;
}

TEST(ClusterChoiceGate, ChoosesWhereThePodsFitAndSkipsTheOther) {
  GateBench bench(kSeed, make_cluster_choice_gate);
  with_nodes(bench);
  EXPECT_EQ(bench.check("Deployment/default/web", Type::kClusterChoice, "big"), "holds");
  std::string other = bench.check("Deployment/default/web", Type::kClusterChoice, "small");
  EXPECT_TRUE(other.starts_with("waits: ")) << other;
  EXPECT_NE(other.find("chose big"), std::string::npos) << other;
}

TEST(ClusterChoiceGate, WaitsWhileACandidateCannotBeRead) {
  GateBench bench(kSeed, make_cluster_choice_gate);
  with_nodes(bench);
  bench.fleet.links["small"] = Fleet::Link::kWaiting;
  std::string says = bench.check("Deployment/default/web", Type::kClusterChoice, "big");
  EXPECT_TRUE(says.starts_with("waits: ")) << says;
}

TEST(ClusterChoiceGate, KeepsTheClusterAnEarlierRunChoseWhileItStillFits) {
  GateBench bench(kSeed, make_cluster_choice_gate, {{"apps/v1 Deployment default/web", {"small"}}});
  bench.fleet.hold(node("big-0", "8"), "big");
  bench.fleet.hold(node("small-0", "8"), "small");
  EXPECT_EQ(bench.check("Deployment/default/web", Type::kClusterChoice, "small"), "holds");
  // Without the earlier choice, the same room elsewhere would not have chosen it.
  GateBench fresh(kSeed, make_cluster_choice_gate);
  fresh.fleet.hold(node("big-0", "8"), "big");
  fresh.fleet.hold(node("small-0", "8"), "small");
  EXPECT_NE(fresh.check("Deployment/default/web", Type::kClusterChoice, "small"), "holds");
}

}  // namespace
}  // namespace planter::plant::testing
