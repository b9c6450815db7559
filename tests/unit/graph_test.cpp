#include <gtest/gtest.h>

#include <array>
#include <string>

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

// A plan of 20,000 units or more derives its two halves' requirements on two threads: the
// requirements are what one thread derives, and the diagnostics come in the seed's order.
TEST(Graph, ALargePlansHalvesDeriveAsOneAndReportInTheSeedsOrder) {
  constexpr int kObjects = 30'000;
  std::string yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n";
  for (int i = 0; i < kObjects; ++i) {
    std::string deps;
    if (i == 10 || i == 20'000 || i == 29'999)
      deps = ", annotations: {config.kubernetes.io/depends-on: /namespaces/app/ConfigMap/gone-" +
             std::to_string(i) + "}";
    else if (i == 25'000)
      deps = ", annotations: {config.kubernetes.io/depends-on: /namespaces/app/ConfigMap/cm3}";
    yaml += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm" + std::to_string(i) +
            ", namespace: app" + deps + "}\n";
  }
  auto out = plan_yaml(yaml);
  ASSERT_EQ(out.diags.size(), 3u) << out.diags.str();
  for (size_t d = 0; d < 3; ++d)
    EXPECT_NE(out.diags.items()[d].message.find("gone-" +
                                                std::to_string(std::array{10, 20'000, 29'999}[d])),
              std::string::npos)
        << out.diags.items()[d].message;
  std::string clean = yaml;
  for (int i : {10, 20'000, 29'999}) {
    std::string bad =
        ", annotations: {config.kubernetes.io/depends-on: /namespaces/app/ConfigMap/gone-" +
        std::to_string(i) + "}";
    clean.erase(clean.find(bad), bad.size());
  }
  auto planned = plan_yaml(clean);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  const Plan& p = planned.plan;
  ASSERT_EQ(p.units.size(), static_cast<size_t>(kObjects + 1));
  const Unit* u = find_unit(p, "ConfigMap/app/cm25000");
  ASSERT_NE(u, nullptr);
  EXPECT_NE(testing::find_requirement(p, *u, "ConfigMap/app/cm3"), nullptr);
  EXPECT_NE(testing::find_requirement(p, *u, "Namespace/app"), nullptr);
  EXPECT_EQ(u->wave, 2);
  for (const char* name : {"ConfigMap/app/cm1", "ConfigMap/app/cm29999"})
    EXPECT_NE(testing::find_requirement(p, *find_unit(p, name), "Namespace/app"), nullptr) << name;
}

}  // namespace
}  // namespace planter
