// Choosing N of M clusters: the pure decision (fit/cluster_choice.h: scores, ties, kept clusters),
// what the seed says (plan/cluster_choice.h: the annotation, a Stack's spec.clusters, bad input)
// and the requirement that makes units wait for the choice (rules/cluster_choice.cpp).
#include "fit/cluster_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/cluster_spread_annotation.h"
#include "plan/placement_annotations.h"
#include "plant/seed_inventory.h"
#include "test_support.h"

namespace planter {
namespace {

using ::testing::ElementsAre;
using testing::find_requirement;
using testing::find_unit;
using ::testing::HasSubstr;
using testing::plan_yaml;

constexpr int64_t kGi = int64_t{1} << 30;

fit::ClusterCandidate fits(std::string name, int64_t milli_cpu, int64_t memory) {
  fit::ClusterCandidate c{std::move(name), true, "", {}};
  c.left.milli_cpu = milli_cpu;
  c.left.memory = memory;
  return c;
}
fit::ClusterCandidate refused(std::string name) {
  return {std::move(name), false, "stack s needs 1 nvidia.com/gpu", {}};
}

TEST(ClusterChoiceTest, TheRoomiestClustersWhereItFitsAreChosenScoredAgainstTheRoomiest) {
  auto r = fit::choose_clusters(2,
                                {fits("a", 4000, 8 * kGi), refused("b"), fits("c", 8000, 32 * kGi),
                                 fits("d", 2000, 32 * kGi)},
                                {});
  ASSERT_TRUE(r.complete);
  EXPECT_THAT(r.chosen, ElementsAre("c", "d"));
  // c: 50 + 50; d: 50 × 2/8 + 50 = 62.5 → 63; a: 25 + 12.5 = 37.5 → 38; b: refused.
  ASSERT_EQ(r.ranked.size(), 4u);
  EXPECT_EQ(r.ranked[0].name, "c");
  EXPECT_EQ(r.ranked[0].score, 100);
  EXPECT_EQ(r.ranked[1].name, "d");
  EXPECT_EQ(r.ranked[1].score, 63);
  EXPECT_EQ(r.ranked[2].name, "a");
  EXPECT_EQ(r.ranked[2].score, 38);
  EXPECT_FALSE(r.ranked[3].fits);
  EXPECT_EQ(r.ranked[3].why, "stack s needs 1 nvidia.com/gpu");
  EXPECT_EQ(fit::chosen_text(r), "c (score 100), d (score 63)");
}

TEST(ClusterChoiceTest, EqualScoresGoByNameSoAChoiceRepeats) {
  auto r = fit::choose_clusters(
      2, {fits("edge3", 1000, kGi), fits("edge1", 1000, kGi), fits("edge2", 1000, kGi)}, {});
  EXPECT_THAT(r.chosen, ElementsAre("edge1", "edge2"));
}

TEST(ClusterChoiceTest, ClustersChosenBeforeStayChosenAndOnlyTheRestIsChosenAnew) {
  // edge3 has the least room and edge4 no longer fits: both were chosen before and stay.
  std::vector<fit::ClusterCandidate> now{fits("edge1", 8000, 8 * kGi), fits("edge2", 6000, 6 * kGi),
                                         fits("edge3", 1000, kGi), refused("edge4")};
  auto r = fit::choose_clusters(2, now, {"edge4", "edge3"});
  EXPECT_THAT(r.chosen, ElementsAre("edge4", "edge3"));
  EXPECT_TRUE(r.ranked[0].kept);
  // A kept cluster that is no longer a candidate (deleted) leaves its share to the best one.
  r = fit::choose_clusters(2, now, {"gone", "edge3"});
  EXPECT_THAT(r.chosen, ElementsAre("edge3", "edge1"));
  EXPECT_EQ(fit::chosen_text(r), "edge3 (kept), edge1 (score 100)");
}

TEST(ClusterChoiceTest, FewerThanTheCountFitIsIncomplete) {
  auto r = fit::choose_clusters(3, {fits("a", 1000, kGi), refused("b"), fits("c", 1000, kGi)}, {});
  EXPECT_FALSE(r.complete);
  EXPECT_THAT(r.chosen, ElementsAre("a", "c"));
}

const char* kFleet =
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
    "metadata: {name: edge1, namespace: infra, labels: {tier: edge}}\n---\n"
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
    "metadata: {name: edge2, namespace: infra, labels: {tier: edge}}\n---\n"
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\n"
    "metadata: {name: edge3, namespace: infra, labels: {tier: edge}}\n---\n";

TEST(ClusterChoiceTest, AnObjectWithACountIsPlacedOnEveryCandidateAndWaitsForTheChoice) {
  auto out = plan_yaml(std::string(kFleet) +
                       "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n---\n"
                       "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
                       "  namespace: web\n  annotations:\n"
                       "    planter.nephio.org/cluster-selector: tier=edge\n"
                       "    planter.nephio.org/cluster-count: \"2\"\n"
                       "spec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n"
                       "  template:\n    metadata: {labels: {app: web}}\n"
                       "    spec: {containers: [{name: c, image: nginx, resources: {requests: "
                       "{cpu: 500m, memory: 1Gi}}}]}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ASSERT_EQ(out.plan.choices.size(), 1u);
  const ClusterChoice& choice = out.plan.choices[0];
  EXPECT_EQ(choice.name, "apps/v1 Deployment web/web");
  EXPECT_EQ(choice.count, 2);
  EXPECT_EQ(choice.candidates.size(), 3u);
  ASSERT_EQ(choice.pod_kinds.size(), 1u);
  EXPECT_EQ(choice.pod_kinds[0].count, 2);
  for (const char* cluster : {"edge1", "edge2", "edge3"}) {
    const Unit* d = find_unit(out.plan, "Deployment/web/web", cluster);
    ASSERT_NE(d, nullptr) << cluster;
    const Requirement* r =
        find_requirement(out.plan, *d, "ClusterChoice/apps/v1 Deployment web/web");
    ASSERT_NE(r, nullptr) << cluster;
    EXPECT_EQ(r->when.type, ReadinessPredicate::Type::kClusterChoice);
    EXPECT_EQ(out.plan.describe(*r),
              std::string("apps/v1 Deployment web/web chooses cluster ") + cluster);
    // The Namespace is placed only for it: it waits for the choice too (never declared on a
    // cluster the Deployment does not go to).
    const Unit* ns = find_unit(out.plan, "Namespace/web", cluster);
    ASSERT_NE(ns, nullptr) << cluster;
    EXPECT_NE(find_requirement(out.plan, *ns, "ClusterChoice/apps/v1 Deployment web/web"), nullptr);
  }
}

TEST(ClusterChoiceTest, ANamespaceAnotherObjectNeedsThereIsNotChosen) {
  auto out = plan_yaml(std::string(kFleet) +
                       "apiVersion: v1\nkind: Namespace\nmetadata: {name: web}\n---\n"
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n"
                       "  namespace: web\n  annotations:\n"
                       "    planter.nephio.org/cluster-selector: tier=edge\n"
                       "    planter.nephio.org/cluster-count: \"1\"\n---\n"
                       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: all\n"
                       "  namespace: web\n  annotations:\n"
                       "    planter.nephio.org/cluster: edge2\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  const Unit* on2 = find_unit(out.plan, "Namespace/web", "edge2");
  const Unit* on1 = find_unit(out.plan, "Namespace/web", "edge1");
  ASSERT_NE(on1, nullptr);
  ASSERT_NE(on2, nullptr);
  EXPECT_EQ(find_requirement(out.plan, *on2, "ClusterChoice/v1 ConfigMap web/one"), nullptr);
  EXPECT_NE(find_requirement(out.plan, *on1, "ClusterChoice/v1 ConfigMap web/one"), nullptr);
}

TEST(ClusterChoiceTest, AStacksSpecClustersPlacesEveryMemberAsOneChoice) {
  auto out = plan_yaml(std::string(kFleet) +
                       "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                       "metadata: {name: shop}\n"
                       "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                       "  clusters: {count: 2, selector: tier=edge}\n---\n"
                       "apiVersion: apps/v1\nkind: Deployment\n"
                       "metadata: {name: front, namespace: default, labels: {stack: shop}}\n"
                       "spec:\n  selector: {matchLabels: {app: f}}\n"
                       "  template:\n    metadata: {labels: {app: f}}\n"
                       "    spec: {containers: [{name: c, image: nginx}]}\n---\n"
                       "apiVersion: apps/v1\nkind: Deployment\n"
                       "metadata: {name: db, namespace: default, labels: {stack: shop}}\n"
                       "spec:\n  selector: {matchLabels: {app: d}}\n"
                       "  template:\n    metadata: {labels: {app: d}}\n"
                       "    spec: {containers: [{name: c, image: postgres}]}\n");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  ASSERT_EQ(out.plan.choices.size(), 1u);
  EXPECT_EQ(out.plan.choices[0].name, "stack shop");
  EXPECT_EQ(out.plan.choices[0].objects.size(), 2u);
  ASSERT_TRUE(out.plan.choices[0].stack.has_value());
  for (const Object& o : out.plan.objects) {
    if (o.ref.kind != "Deployment") continue;
    ASSERT_NE(o.annotation(kClusterCountAnnotation), nullptr);
    EXPECT_EQ(std::string_view(*o.annotation(kClusterCountAnnotation)), "2");
    EXPECT_EQ(std::string_view(*o.annotation(kClusterSelectorAnnotation)), "tier=edge");
    EXPECT_THAT(o.mutations, ::testing::Contains(HasSubstr("placed as Stack shop chooses")));
  }
}

TEST(ClusterChoiceTest, BadCountsAndChoicesAreBadInputAtTheirObject) {
  PlanOptions online;  // the management cluster was read: it holds no other cluster
  online.existing_clusters = [] {
    return Result<std::vector<ClusterInfo>>(std::vector<ClusterInfo>{});
  };
  auto bad = [&](const std::string& annotations) {
    auto out = plan_yaml(std::string(kFleet) +
                             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                             "  namespace: default\n  annotations:\n" +
                             annotations,
                         online);
    EXPECT_FALSE(out.ok());
    return out.diags.str();
  };
  EXPECT_THAT(bad("    planter.nephio.org/cluster-selector: tier=edge\n"
                  "    planter.nephio.org/cluster-count: \"two\"\n"),
              HasSubstr("seed.yaml:13: v1 ConfigMap default/c: planter.nephio.org/cluster-count "
                        "\"two\" is not a whole number from 1 to 10000"));
  EXPECT_THAT(bad("    planter.nephio.org/cluster-selector: tier=edge\n"
                  "    planter.nephio.org/cluster-count: \"0\"\n"),
              HasSubstr("is not a whole number"));
  EXPECT_THAT(bad("    planter.nephio.org/cluster-count: \"1\"\n"),
              HasSubstr("chooses among the clusters planter.nephio.org/cluster-selector or "
                        "planter.nephio.org/clusters names, and the object has neither"));
  EXPECT_THAT(bad("    planter.nephio.org/cluster-selector: tier=edge\n"
                  "    planter.nephio.org/cluster-count: \"4\"\n"),
              HasSubstr("planter.nephio.org/cluster-count is 4, and only 3 cluster(s) are "
                        "candidates: edge1, edge2, edge3"));
  auto stack = plan_yaml(std::string(kFleet) +
                         "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                         "metadata: {name: shop}\n"
                         "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                         "  clusters: {count: 2, selector: tier=edge}\n---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                         "  namespace: default\n  labels: {stack: shop}\n"
                         "  annotations: {planter.nephio.org/cluster: edge1}\n");
  EXPECT_THAT(
      stack.diags.str(),
      HasSubstr("the object is placed on its own, but its Stack shop chooses its clusters"));
  auto count = plan_yaml(std::string(kFleet) +
                         "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                         "metadata: {name: shop}\n"
                         "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                         "  clusters: {count: -1, selector: tier=edge}\n");
  EXPECT_THAT(count.diags.str(),
              HasSubstr("spec.clusters.count must be a whole number from 1 to 10000"));
}

// A spread: the annotation's fields with their defaults, a Stack's spec.clusters.spread written
// on every member, and each malformed spread named at its object.
TEST(ClusterChoiceTest, ASpreadIsReadFromTheAnnotationOrTheStackAndBadOnesAreNamed) {
  auto parsed = parse_cluster_spread("topologyKey=topology.kubernetes.io/region");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(cluster_spread_annotation(parsed.value()),
            "topologyKey=topology.kubernetes.io/region,maxSkew=1,whenUnsatisfiable=DoNotSchedule");
  parsed = parse_cluster_spread(" topologyKey = zone , maxSkew=2,whenUnsatisfiable=ScheduleAnyway");
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed.value().max_skew, 2);
  EXPECT_FALSE(parsed.value().hard);
  for (auto [text, says] : std::vector<std::pair<const char*, const char*>>{
           {"maxSkew=1", "a spread needs a topologyKey"},
           {"topologyKey=region,maxSkew=0", "maxSkew \"0\" is not a whole number from 1 to 10000"},
           {"topologyKey=region,whenUnsatisfiable=Never",
            "whenUnsatisfiable \"Never\" is neither DoNotSchedule nor ScheduleAnyway"},
           {"topologyKey=-bad", "topologyKey \"-bad\" is not a label key"},
           {"topologykey=region", "\"topologykey\" is not a field of a spread"},
           {"topologyKey", "\"topologyKey\" is not name=value"}}) {
    auto wrong = parse_cluster_spread(text);
    ASSERT_FALSE(wrong) << text;
    EXPECT_THAT(wrong.error().message, HasSubstr(says)) << text;
  }

  auto stack = plan_yaml(std::string(kFleet) +
                         "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                         "metadata: {name: shop}\n"
                         "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                         "  clusters: {count: 2, selector: tier=edge, spread: {topologyKey: "
                         "region, maxSkew: 1}, tolerations: [{key: maintenance, operator: "
                         "Exists}]}\n---\n"
                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                         "  namespace: default\n  labels: {stack: shop}\n");
  ASSERT_TRUE(stack.ok()) << stack.diags.str();
  ASSERT_EQ(stack.plan.choices.size(), 1u);
  EXPECT_EQ(stack.plan.choices[0].spread.key, "region");
  ASSERT_EQ(stack.plan.choices[0].tolerations.size(), 1u);
  EXPECT_EQ(stack.plan.choices[0].tolerations[0].op, "Exists");
  for (const Object& o : stack.plan.objects)
    if (o.ref.kind == "ConfigMap") {
      ASSERT_NE(o.annotation(kClusterSpreadAnnotation), nullptr);
      EXPECT_EQ(std::string_view(*o.annotation(kClusterSpreadAnnotation)),
                "topologyKey=region,maxSkew=1,whenUnsatisfiable=DoNotSchedule");
    }

  auto bad = [&](const std::string& annotations) {
    auto out = plan_yaml(std::string(kFleet) +
                         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                         "  namespace: default\n  annotations:\n" +
                         annotations);
    EXPECT_FALSE(out.ok());
    return out.diags.str();
  };
  EXPECT_THAT(bad("    planter.nephio.org/cluster-selector: tier=edge\n"
                  "    planter.nephio.org/cluster-count: \"2\"\n"
                  "    planter.nephio.org/cluster-spread: maxSkew=1\n"),
              HasSubstr("seed.yaml:13: v1 ConfigMap default/c: planter.nephio.org/cluster-spread: "
                        "a spread needs a topologyKey"));
  EXPECT_THAT(bad("    planter.nephio.org/cluster: edge1\n"
                  "    planter.nephio.org/cluster-spread: topologyKey=region\n"),
              HasSubstr("planter.nephio.org/cluster-spread spreads a choice of clusters, and the "
                        "object chooses none (no planter.nephio.org/cluster-count)"));
  auto wrong = plan_yaml(std::string(kFleet) +
                         "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                         "metadata: {name: shop}\n"
                         "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                         "  clusters: {count: 2, selector: tier=edge, spread: {maxSkew: 2}}\n");
  EXPECT_THAT(wrong.diags.str(), HasSubstr("spec.clusters.spread: a spread needs a topologyKey"));
  auto tolerations = plan_yaml(std::string(kFleet) +
                               "apiVersion: planter.nephio.org/v1alpha1\nkind: Stack\n"
                               "metadata: {name: shop}\n"
                               "spec:\n  selector: {matchLabels: {stack: shop}}\n"
                               "  clusters: {count: 2, selector: tier=edge, tolerations: [{key: "
                               "a, effect: NoExecute}]}\n");
  EXPECT_THAT(tolerations.diags.str(),
              HasSubstr("spec.clusters.tolerations: [0].effect \"NoExecute\" is not NoSelect"));
  EXPECT_THAT(bad("    planter.nephio.org/cluster-selector: tier=edge\n"
                  "    planter.nephio.org/cluster-count: \"2\"\n"
                  "    planter.nephio.org/cluster-tolerations: maintenance\n"),
              HasSubstr("planter.nephio.org/cluster-tolerations: not a JSON list of tolerations"));
}

TEST(ClusterChoiceTest, TheInventoryKeepsChoicesLineByLine) {
  plant::ChoiceRecords choices{{"stack shop", {"edge2", "edge1"}},
                               {"apps/v1 Deployment web/web", {"edge3"}}};
  std::string text = plant::format_choices(choices);
  EXPECT_EQ(text, "edge3 apps/v1 Deployment web/web\nedge2,edge1 stack shop\n");
  EXPECT_EQ(plant::parse_choices(text), choices);
  EXPECT_TRUE(plant::parse_choices("garbage\n \nedge1,\n").empty());
}

}  // namespace
}  // namespace planter
