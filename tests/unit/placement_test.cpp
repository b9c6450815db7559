// One test per placement rule (src/plan/placement.cpp), in table order.
#include <gmock/gmock.h>
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

// The management cluster's cluster objects, as plant reads them; counts the reads.
struct ExistingClusters {
  std::vector<ClusterInfo> clusters;
  int reads = 0;
  std::function<Result<std::vector<ClusterInfo>>()> reader() {
    return [this]() -> Result<std::vector<ClusterInfo>> {
      ++reads;
      return clusters;
    };
  }
};

ClusterInfo existing(std::string name, std::string ns, Labels labels = {}) {
  ObjectRef ref{"planter.nephio.org/v1alpha1", "Cluster", ns, name};
  return {std::move(name),   "management",  std::move(ns), std::nullopt, {},
          std::move(labels), std::move(ref)};
}

TEST(Placement, UnknownClusterIsAnErrorNamingTheObject) {
  ExistingClusters mgmt{{existing("edge1", "fleet")}};
  PlanOptions opts;
  opts.existing_clusters = mgmt.reader();
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/cluster: edge7}}\n",
      opts);
  ASSERT_FALSE(out.ok());
  std::string e = testing::all_errors(out.diags);
  EXPECT_NE(e.find("seed.yaml:1: v1 ConfigMap default/a: planter.nephio.org/cluster: cluster "
                   "\"edge7\" is not in the seed, not given with --cluster, and no cluster object "
                   "on the management cluster has that name"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("known clusters: SELF, edge1"), std::string::npos) << e;
}

TEST(Placement, ClustersOnTheManagementClusterAreKnownByNameAndLabels) {
  ExistingClusters mgmt{{existing("edge1", "fleet", {{"tier", "edge"}}),
                         existing("edge2", "fleet", {{"tier", "core"}})}};
  PlanOptions opts;
  opts.existing_clusters = mgmt.reader();
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/cluster: 'fleet|edge2'}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default,"
      " annotations: {planter.nephio.org/cluster-selector: tier=edge}}\n",
      opts);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(mgmt.reads, 1);
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/a"), std::vector<std::string>{"edge2"});
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/b"), std::vector<std::string>{"edge1"});
  // What goes into edge2 waits for its cluster object, outside the seed, to be ready.
  const Unit* a = find_unit(out.plan, "ConfigMap/default/a", "edge2");
  ASSERT_NE(a, nullptr);
  std::vector<std::string> waits;
  for (const Requirement& r : a->requirements) waits.push_back(out.plan.describe(r));
  EXPECT_THAT(waits, ::testing::Contains("cluster edge2 ready (not in seed)"));

  auto wrong_ns = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/cluster: 'other|edge2'}}\n",
      opts);
  EXPECT_NE(testing::all_errors(wrong_ns.diags).find("is in namespace \"fleet\", not \"other\""),
            std::string::npos);
}

TEST(Placement, TheManagementClusterIsReadOnlyWhenTheSeedNeedsIt) {
  ExistingClusters mgmt{{existing("edge1", "fleet"), existing("edge5", "fleet")}};
  PlanOptions opts;
  opts.existing_clusters = mgmt.reader();
  // Every name is the seed's own: nothing to read.
  auto out = plan_yaml(std::string(kClusters) +
                           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: "
                           "default, annotations: {planter.nephio.org/cluster: edge1}}\n",
                       opts);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(mgmt.reads, 0);
  // The seed's definition of edge1 wins over the object already there; edge5 is only there.
  auto both = plan_yaml(std::string(kClusters) +
                            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: "
                            "default, annotations: {planter.nephio.org/clusters: 'edge1,edge5'}}\n",
                        opts);
  ASSERT_TRUE(both.ok()) << both.diags.str();
  EXPECT_EQ(mgmt.reads, 1);
  EXPECT_EQ(both.plan.clusters[1].name, "edge1");
  EXPECT_EQ(both.plan.clusters[1].from, "seed");
  const ClusterInfo* edge5 = nullptr;
  for (const ClusterInfo& c : both.plan.clusters)
    if (c.name == "edge5") edge5 = &c;
  ASSERT_NE(edge5, nullptr);
  EXPECT_EQ(edge5->from, "management");
}

TEST(Placement, OfflineANameOnlyTheManagementClusterCouldResolveIsAWarning) {
  PlanOptions opts;
  opts.clusters.push_back({"edge8", "flag", {}, std::nullopt, {}, {{"tier", "far"}}});
  auto out = plan_yaml(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default,"
      " annotations: {planter.nephio.org/cluster: edge7}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default,"
      " annotations: {planter.nephio.org/cluster-selector: tier=far}}\n---\n"
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default,"
      " annotations: {planter.nephio.org/cluster-selector: tier=near}}\n",
      opts);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/a"), std::vector<std::string>{"edge7"});
  EXPECT_EQ(clusters_of(out.plan, "ConfigMap/default/b"), std::vector<std::string>{"edge8"});
  std::string warnings;
  for (const Diagnostic& w : out.diags.warnings()) warnings += w.str() + "\n";
  EXPECT_NE(warnings.find("cluster \"edge7\" is not in the seed or --cluster; planting looks for "
                          "a cluster object of that name on the management cluster"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("cluster \"edge8\" is not in the seed"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("\"tier=near\" matches no cluster of the seed or --cluster"),
            std::string::npos)
      << warnings;
}

}  // namespace
}  // namespace planter
