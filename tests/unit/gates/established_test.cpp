// The established gate (src/plant/gates/established.cpp), one table: a custom resource waits for
// its kind to be served, by the CRD the seed holds or, without one, any CRD of its cluster.
#include <gtest/gtest.h>

#include "unit/gates/still_fleet.h"

namespace planter::plant::testing {
namespace {

const char* kCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: instances.cnf.example.org}
spec:
  group: cnf.example.org
  names: {kind: Instance, plural: instances}
  scope: Namespaced
  versions: [{name: v1alpha1, served: true, storage: true}]
)";

const char* kInstance = R"(apiVersion: cnf.example.org/v1alpha1
kind: Instance
metadata: {name: cnf, namespace: default}
)";

std::string established(const char* status) {
  return std::string(kCrd) + "status: {conditions: [{type: Established, status: '" + status +
         "', message: waiting}]}\n";
}

struct Row {
  const char* name;
  bool crd_in_seed;
  std::string fleet;
  Fleet::KindState kind;
  const char* says;
};

TEST(EstablishedGate, SaysOfEachStepOfACrdWhatTheClusterShows) {
  const Row rows[] = {
      {"the seed's CRD not there yet", true, "", Fleet::KindState::kUnknown, "waits: not found"},
      {"not Established", true, established("False"), Fleet::KindState::kMissing,
       "waits: Established is False"},
      {"Established, not discoverable yet", true, established("True"), Fleet::KindState::kMissing,
       "waits: cnf.example.org/v1alpha1 Instance not discoverable yet"},
      {"served", true, established("True"), Fleet::KindState::kServed, "holds"},
      {"no CRD in the seed, none on the cluster", false, "", Fleet::KindState::kMissing,
       "waits: no CRD serves it yet"},
      {"no CRD in the seed, served by the cluster's", false, "", Fleet::KindState::kServed,
       "holds"},
  };
  for (const Row& row : rows) {
    std::string seed = row.crd_in_seed ? std::string(kCrd) + "---\n" + kInstance : kInstance;
    GateBench bench(seed, make_established_gate);
    if (!row.fleet.empty()) bench.fleet.hold(row.fleet);
    bench.fleet.kinds["SELF\ncnf.example.org/v1alpha1\nInstance"] = row.kind;
    std::string on =
        row.crd_in_seed ? "CustomResourceDefinition/instances.cnf.example.org" : "Instance/";
    std::string says = bench.check("Instance/default/cnf", on);
    EXPECT_EQ(says, row.says) << row.name << ": " << says;
  }
}

TEST(EstablishedGate, WatchesTheClustersCrdsAndAsksDiscovery) {
  GateBench bench(kInstance, make_established_gate);
  bench.check("Instance/default/cnf", "Instance/");
  EXPECT_TRUE(
      bench.fleet.watched.contains("SELF apiextensions.k8s.io/v1 CustomResourceDefinition"));
  EXPECT_TRUE(bench.fleet.checked.contains("SELF cnf.example.org/v1alpha1 Instance"));
}

}  // namespace
}  // namespace planter::plant::testing
