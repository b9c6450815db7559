#include <gtest/gtest.h>

#include "test_support.h"

namespace planter {
namespace {

using testing::find_unit;
using testing::plan_yaml;

TEST(Graph, WavesAreLongestPathsAndUnitsComeInWaveOrder) {
  auto out = plan_yaml(
      "apiVersion: cnf.org/v1\nkind: Instance\nmetadata: {name: i, namespace: cnf}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: infra}\n---\n"
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, namespace: "
      "infra}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf, annotations: "
      "{planter.nephio.org/cluster: edge1}}\n---\n"
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: "
      "instances.cnf.org,"
      " annotations: {planter.nephio.org/cluster: edge1}}\n"
      "spec: {group: cnf.org, scope: Namespaced, names: {kind: Instance, plural: instances},"
      " versions: [{name: v1, served: true}]}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Plan& p = out.plan;
  EXPECT_EQ(find_unit(p, "Namespace/infra")->wave, 0);
  EXPECT_EQ(find_unit(p, "Cluster/infra/edge1")->wave, 1);
  EXPECT_EQ(find_unit(p, "Namespace/cnf", "edge1")->wave, 2);
  EXPECT_EQ(find_unit(p, "CustomResourceDefinition/instances.cnf.org", "edge1")->wave, 2);
  EXPECT_EQ(find_unit(p, "Instance/cnf/i", "edge1")->wave, 3);
  EXPECT_EQ(p.wave_count(), 4);
  for (size_t i = 1; i < p.units.size(); ++i) EXPECT_LE(p.units[i - 1].wave, p.units[i].wave);
  // Requirements still point at the right units after reordering.
  for (const Unit& u : p.units) {
    for (const Requirement& r : u.requirements) {
      if (r.unit) {
        EXPECT_EQ(p.units[*r.unit].cluster, r.cluster);
        EXPECT_LT(p.units[*r.unit].wave, u.wave);
      }
    }
  }
}

TEST(Graph, CycleIsReportedWhole) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/dependencies: ConfigMap/default/b}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default,"
      " annotations: {planter.nephio.org/dependencies: ConfigMap/default/c}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
      " annotations: {planter.nephio.org/dependencies: ConfigMap/default/a}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: free, namespace: default}\n");
  ASSERT_FALSE(out.ok());
  std::string e = testing::all_errors(out.diags);
  EXPECT_NE(e.find("a dependency cycle"), std::string::npos) << e;
  for (const char* name : {"default/a on SELF (seed.yaml:1)", "default/b on SELF (seed.yaml:5)",
                           "default/c on SELF (seed.yaml:9)"})
    EXPECT_NE(e.find(name), std::string::npos) << name << "\n" << e;
  EXPECT_EQ(e.find("default/free"), std::string::npos) << e;
}

TEST(Graph, SameObjectTwiceOnOneClusterIsAnError) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(testing::all_errors(out.diags).find(
                "seed.yaml:5: v1 ConfigMap default/a: the same object is already in the seed "
                "for cluster SELF at seed.yaml:1"),
            std::string::npos)
      << out.diags.str();
}

TEST(Graph, SameObjectOnTwoClustersIsFine) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, annotations: "
      "{planter.nephio.org/cluster: e}}\n",
      PlanOptions{"default", "SELF", {{"e", "flag", {}, std::nullopt, "ctx", {}}}});
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(out.plan.units.size(), 2u);
}

}  // namespace
}  // namespace planter
