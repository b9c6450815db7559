// The node-capability gate (src/plant/gates/node_capability.cpp), one table: a Deployment whose
// pods need a GPU waits for a schedulable node that has one, counted with the fit model's node
// filters, in kube-scheduler's words.
#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: train}}
  template:
    metadata: {labels: {app: train}}
    spec:
      containers:
      - name: main
        image: trainer
        resources: {limits: {nvidia.com/gpu: "1"}}
)";

std::string node(const std::string& name, const std::string& gpus, bool cordoned = false) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: " + name +
         "}\nspec: {unschedulable: " + (cordoned ? "true" : "false") +
         "}\nstatus:\n  allocatable: {cpu: '8', memory: 32Gi" +
         (gpus.empty() ? std::string() : ", nvidia.com/gpu: '" + gpus + "'") + "}\n";
}

struct Row {
  const char* name;
  std::string fleet;
  const char* says;
};

TEST(NodeCapabilityGate, CountsTheNodesThatHaveWhatThePodsNeed) {
  const Row rows[] = {
      {"no node has it", node("a", "") + "---\n" + node("b", ""),
       "waits: 1 node of SELF with nvidia.com/gpu ≥ 1: 0/2 nodes have it (2 Insufficient "
       "nvidia.com/gpu)"},
      {"the only one is cordoned", node("a", "") + "---\n" + node("gpu", "1", true),
       "waits: 1 node of SELF with nvidia.com/gpu ≥ 1: 0/2 nodes have it (1 Insufficient "
       "nvidia.com/gpu, 1 node(s) were unschedulable)"},
      {"one has it", node("a", "") + "---\n" + node("gpu", "2"), "holds"},
  };
  for (const Row& row : rows) {
    GateBench bench(kSeed, make_node_capability_gate);
    bench.fleet.hold(row.fleet);
    EXPECT_EQ(bench.check("Deployment/default/train", ReadinessPredicate::Type::kNodeCapability),
              row.says)
        << row.name;
  }
}

}  // namespace
}  // namespace planter::plant::testing
