// One test per placement rule (src/plan/placement.cpp), in table order.
#include <gtest/gtest.h>

#include "test_support.h"

namespace planter {
namespace {

using testing::find_unit;
using testing::plan_yaml;

const char* kClusters =
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
    "metadata: {name: edge1, namespace: infra, labels: {tier: edge, region: eu}}\n---\n"
    "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\n"
    "metadata: {name: edge2, namespace: infra, labels: {tier: edge, region: us}}\n---\n";

std::vector<std::string> clusters_of(const Plan& plan, const std::string& short_form) {
  std::vector<std::string> out;
  for (const Unit& u : plan.units)
    if (plan.object_of(u).ref.short_form() == short_form) out.push_back(u.cluster);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Placement, ExplicitSelfNameAndProofOfConceptForm) {
  auto out = plan_yaml(std::string(kClusters) +
                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
                       " annotations: {planter.nephio.org/cluster: edge1}}\n---\n"
                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default,"
                       " annotations: {planter.nephio.org/cluster: 'infra|edge2'}}\n---\n"
                       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
                       " annotations: {planter.nephio.org/cluster: SELF}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/a"), std::vector<std::string>{"edge1"});
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/b"), std::vector<std::string>{"edge2"});
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/c"), std::vector<std::string>{"SELF"});
}

TEST(Placement, FanOutByListAndBySelector) {
  auto out =
      plan_yaml(std::string(kClusters) +
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
                " annotations: {planter.nephio.org/clusters: 'edge1, edge2'}}\n---\n"
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default,"
                " annotations: {planter.nephio.org/cluster-selector: 'tier=edge,region=us'}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/a"),
            (std::vector<std::string>{"edge1", "edge2"}));
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/b"), std::vector<std::string>{"edge2"});
}

TEST(Placement, SelectorOverCommandLineClusters) {
  PlanOptions opts;
  opts.clusters.push_back({"far", "flag", {}, std::nullopt, "kind-far", {{"tier", "far"}}});
  auto out = plan_yaml(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a,"
      " annotations: {planter.nephio.org/cluster-selector: tier=far}}\n",
      opts);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "Namespace/a"), std::vector<std::string>{"far"});
}

TEST(Placement, NamespacedObjectsFollowTheirNamespace) {
  auto out =
      plan_yaml(std::string(kClusters) +
                "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf,"
                " annotations: {planter.nephio.org/clusters: 'edge1,edge2'}}\n---\n"
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: cnf}\n---\n"
                "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: cnf,"
                " annotations: {planter.nephio.org/cluster: edge1}}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "Deployment/cnf/d"),
            (std::vector<std::string>{"edge1", "edge2"}));
  EXPECT_EQ(clusters_of(out.plan, "Secret/cnf/s"), std::vector<std::string>{"edge1"});
}

TEST(Placement, NamespacesAndCrdsGoWhereTheirUsersGo) {
  auto out = plan_yaml(
      std::string(kClusters) +
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: shared}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shared,"
      " annotations: {planter.nephio.org/cluster: edge1}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: shared,"
      " annotations: {planter.nephio.org/cluster: edge2}}\n---\n"
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: widgets.example.com}\nspec: {group: example.com, scope: Cluster,"
      " names: {kind: Widget, plural: widgets}, versions: [{name: v1, served: true}]}\n---\n"
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w,"
      " annotations: {planter.nephio.org/cluster: edge2}}\n---\n"
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: unused}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "Namespace/shared"),
            (std::vector<std::string>{"edge1", "edge2"}));
  EXPECT_EQ(clusters_of(out.plan, "CustomResourceDefinition/widgets.example.com"),
            std::vector<std::string>{"edge2"});
  EXPECT_EQ(clusters_of(out.plan, "Namespace/unused"), std::vector<std::string>{"SELF"});
}

TEST(Placement, ClusterDefinitionsGoToTheManagementCluster) {
  PlanOptions opts;
  opts.clusters.push_back({"edge9", "flag", {}, std::nullopt, "ctx", {}});
  opts.default_cluster = "edge9";
  auto out =
      plan_yaml(std::string(kClusters) +
                    "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: DockerCluster\n"
                    "metadata: {name: edge2, namespace: infra}\n---\n"
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
                opts);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "Cluster/infra/edge1"), std::vector<std::string>{"SELF"});
  EXPECT_EQ(clusters_of(out.plan, "DockerCluster/infra/edge2"), std::vector<std::string>{"SELF"});
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/a"), std::vector<std::string>{"edge9"});
  // The namespace "infra" is used only on SELF, the one "default" is not in the seed.
}

TEST(Placement, UnknownClusterIsAnErrorNamingTheObject) {
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/cluster: edge7}}\n");
  ASSERT_FALSE(out.ok());
  std::string e = testing::all_errors(out.diags);
  EXPECT_NE(e.find("seed.yaml:1: v1 ConfigMap default/a: planter.nephio.org/cluster: cluster "
                   "\"edge7\" is neither in the seed nor known"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("known clusters: SELF"), std::string::npos) << e;
}

}  // namespace
}  // namespace planter
