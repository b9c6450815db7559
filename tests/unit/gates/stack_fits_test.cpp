// The stack-fits gate (src/plant/gates/stack_fits.cpp), one table: an atomic stack's member waits
// until its cluster's nodes and pods hold the whole stack at once, in kube-scheduler's words.
#include "plant/gates/stack_fits.h"

#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  colocate: {}
  atomic: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: default, labels: {app: db}}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: db
        image: db
        resources: {limits: {cpu: "2", memory: 1Gi}}
)";

std::unique_ptr<Gate> make_stack_fits_gate(GateContext& context) {
  return std::make_unique<StackFitsGate>(context);
}

std::string node(const std::string& name, const std::string& cpu) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name + "}\nstatus:\n  allocatable: {cpu: '" +
         cpu + "', memory: 32Gi, pods: '110'}\n";
}

std::string busy(const std::string& on, const std::string& cpu) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: busy-" + on +
         ", namespace: default}\nspec:\n  nodeName: " + on +
         "\n  containers: [{name: c, image: c, resources: {requests: {cpu: '" + cpu +
         "'}}}]\nstatus: {phase: Running}\n";
}

struct Row {
  const char* name;
  std::string fleet;
  const char* says;  // "holds", or the start of what it waits for
};

TEST(StackFitsGate, HoldsOnlyWhenOneNodeHoldsTheWholeCoLocatedStack) {
  const Row rows[] = {
      {"no node holds 6 cpu", node("a", "4") + "---\n" + node("b", "4"),
       "waits: stack db needs 6 cpu, 3Gi, 3 pods on one node; 0/2 nodes are available: 2 "
       "Insufficient cpu"},
      {"the big node is busy",
       node("a", "4") + "---\n" + node("big", "8") + "---\n" + busy("big", "3"),
       "waits: stack db needs 6 cpu, 3Gi, 3 pods on one node; 0/2 nodes are available: 2 "
       "Insufficient cpu"},
      {"the big node has room", node("a", "4") + "---\n" + node("big", "8"), "holds"},
  };
  for (const Row& row : rows) {
    GateBench bench(kSeed, make_stack_fits_gate);
    bench.fleet.hold(row.fleet);
    std::string says = bench.check("Deployment/default/db", ReadinessPredicate::Type::kStackFits);
    EXPECT_TRUE(says.starts_with(row.says)) << row.name << ": " << says;
  }
}

}  // namespace
}  // namespace planter::plant::testing
