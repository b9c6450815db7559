// The cluster-ready gate (src/plant/gates/cluster_ready.cpp): a unit on a workload cluster the
// seed defines waits until that cluster is linked, in the fleet's words.
#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kSeed = R"(apiVersion: v1
kind: Namespace
metadata: {name: fleet}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge1, namespace: fleet}
spec: {}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: default
  annotations: {planter.nephio.org/cluster: edge1}
)";

TEST(ClusterReadyGate, WaitsUntilTheClusterIsLinkedThenHolds) {
  struct Row {
    Fleet::Link link;
    const char* says;
  } rows[] = {
      {Fleet::Link::kWaiting, "waits: Cluster/fleet/edge1: phase is Provisioning"},
      {Fleet::Link::kConnecting, "waits: Cluster/fleet/edge1: phase is Provisioning"},
      {Fleet::Link::kLinked, "holds"},
  };
  for (const Row& row : rows) {
    GateBench bench(kSeed, make_cluster_ready_gate);
    bench.fleet.links["edge1"] = row.link;
    EXPECT_EQ(bench.check("ConfigMap/default/app", "Cluster/fleet/edge1", "edge1"), row.says);
  }
}

}  // namespace
}  // namespace planter::plant::testing
