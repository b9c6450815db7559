#include "plan/render.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "test_support.h"

namespace planter {
namespace {

namespace json = boost::json;
using testing::plan_yaml;

const char* kSeed =
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: infra}\n---\n"
    "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, namespace: "
    "infra}\n---\n"
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: cnf, annotations: "
    "{planter.nephio.org/cluster: edge1}}\n---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: cnf, namespace: cnf}\n";

// The JSON is written as it goes: strings are escaped as Boost.JSON escapes them, byte for byte.
TEST(Render, JsonEscapesStringsAsBoostJsonDoes) {
  Seed seed;
  Diagnostics diags;
  std::string name = "odd \"file\"\\ with\ttab\nnewline \x01\x1f and caf\xc3\xa9.yaml";
  parse_seed_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n",
                  name, seed, diags);
  ASSERT_TRUE(diags.empty());
  PlanOutcome out = plan_seed(std::move(seed), {});
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::string text = render_json(out.plan);
  json::value v = json::parse(text);
  EXPECT_EQ(v.at("units").at(0).at("source").as_string(), name + ":1");
  std::string expected = json::serialize(json::value(name + ":1"));
  EXPECT_NE(text.find(expected), std::string::npos) << text;
}

TEST(Render, JsonHasTheDocumentedShape) {
  auto out = plan_yaml(kSeed);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  json::value v = json::parse(render_json(out.plan));
  const json::array& units = v.at("units").as_array();
  ASSERT_EQ(units.size(), 4u);
  const json::object* dep = nullptr;
  for (const auto& u : units)
    if (u.at("object") == json::value("apps/v1|Deployment|cnf|cnf")) dep = &u.as_object();
  ASSERT_TRUE(dep);
  EXPECT_EQ(dep->at("cluster"), json::value("edge1"));
  EXPECT_EQ(dep->at("wave"), json::value(3));
  EXPECT_EQ(dep->at("source"), json::value("seed.yaml:13"));
  const json::array& req = dep->at("requires").as_array();
  ASSERT_EQ(req.size(), 2u);
  EXPECT_EQ(req[0].at("object"), json::value("planter.nephio.org/v1alpha1|Cluster|infra|edge1"));
  EXPECT_EQ(req[0].at("cluster"), json::value("SELF"));
  EXPECT_EQ(req[0].at("when"), json::value("cluster-ready"));
  EXPECT_EQ(req[1].at("object"), json::value("v1|Namespace||cnf"));
  EXPECT_EQ(req[1].at("when"), json::value("active"));
  const json::array& clusters = v.at("clusters").as_array();
  EXPECT_EQ(clusters[0].at("name"), json::value("SELF"));
  EXPECT_EQ(clusters[1].at("name"), json::value("edge1"));
  EXPECT_EQ(clusters[1].at("from"), json::value("seed"));
}

TEST(Render, TableHasOneRowPerUnitAndASummary) {
  auto out = plan_yaml(kSeed);
  std::string t = render_table(out.plan);
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 1 + 4 + 2);
  EXPECT_NE(t.find("Deployment.apps"), std::string::npos);
  EXPECT_NE(t.find("cluster edge1 ready, Namespace/cnf active"), std::string::npos) << t;
  EXPECT_NE(t.find("4 units of 4 objects on 2 clusters, 4 waves"), std::string::npos) << t;
}

TEST(Render, GraphsHaveClustersAsSubgraphs) {
  auto out = plan_yaml(kSeed);
  std::string dot = render_dot(out.plan);
  EXPECT_NE(dot.find("subgraph \"cluster_edge1\""), std::string::npos) << dot;
  // Four in-seed requirements, drawn as three arrows: the cluster's to its box stands for the
  // Deployment's too.
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '>'), 3) << dot;
  std::string mermaid = render_mermaid(out.plan);
  EXPECT_EQ(mermaid.rfind("flowchart LR", 0), 0u);
  EXPECT_NE(mermaid.find("subgraph c1[\"edge1\"]"), std::string::npos) << mermaid;
}

// A cluster's units all wait for it: one arrow from its cluster object to its box, not one to each.
TEST(Render, GraphsDrawOneArrowFromAClusterToItsBox) {
  std::string seed =
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: {name: edge1, "
      "namespace: default}\n";
  for (int i = 0; i < 5; ++i)
    seed += "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c" + std::to_string(i) +
            ", namespace: default, annotations: {planter.nephio.org/cluster: edge1}}\n";
  auto out = plan_yaml(seed);
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::string dot = render_dot(out.plan);
  EXPECT_NE(dot.find("compound=true;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("u0 -> u1 [lhead=\"cluster_edge1\", label=\"cluster-ready\"];"),
            std::string::npos)
      << dot;
  EXPECT_EQ(std::count(dot.begin(), dot.end(), '>'), 1) << dot;
  std::string mermaid = render_mermaid(out.plan);
  EXPECT_NE(mermaid.find("  u0 -->|cluster-ready| c1\n"), std::string::npos) << mermaid;
  EXPECT_EQ(mermaid.find("-->"), mermaid.rfind("-->")) << mermaid;  // one arrow
}

// a waits for b and c, b for c: the arrow from c to a says nothing the others do not.
TEST(Render, GraphsLeaveOutArrowsOtherArrowsImply) {
  auto out = plan_yaml(R"(apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: b
  namespace: default
  annotations: {config.kubernetes.io/depends-on: /namespaces/default/ConfigMap/c}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: a
  namespace: default
  annotations:
    config.kubernetes.io/depends-on: /namespaces/default/ConfigMap/b,/namespaces/default/ConfigMap/c
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  auto unit_named = [&](std::string_view name) {
    for (size_t i = 0; i < out.plan.units.size(); ++i)
      if (out.plan.object_of(out.plan.units[i]).ref.name == name) return "u" + std::to_string(i);
    return std::string("?");
  };
  std::string a = unit_named("a"), b = unit_named("b"), c = unit_named("c");
  std::string dot = render_dot(out.plan);
  EXPECT_NE(dot.find(c + " -> " + b), std::string::npos) << dot;
  EXPECT_NE(dot.find(b + " -> " + a), std::string::npos) << dot;
  EXPECT_EQ(dot.find(c + " -> " + a), std::string::npos) << dot;
  std::string mermaid = render_mermaid(out.plan);
  EXPECT_EQ(mermaid.find(c + " -->"), mermaid.rfind(c + " -->")) << mermaid;  // one arrow from c
}

TEST(Render, GraphsDrawTheNodesAUnitWaitsFor) {
  auto out = plan_yaml(R"(apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: t, resources: {limits: {nvidia.com/gpu: "1"}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: eval, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: t, resources: {limits: {nvidia.com/gpu: "1"}}}]
)");
  ASSERT_TRUE(out.ok()) << out.diags.str();
  std::string dot = render_dot(out.plan);
  // One node for the need on its cluster, an edge to each unit that waits for it.
  EXPECT_NE(dot.find("    nc0 [shape=hexagon, label=\"nodes with\\nnvidia.com/gpu ≥ 1\"];"),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.find("nc1"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  nc0 -> u0 [label=\"node-capability\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  nc0 -> u1 [label=\"node-capability\"];"), std::string::npos) << dot;
  std::string mermaid = render_mermaid(out.plan);
  EXPECT_NE(mermaid.find("    nc0{{\"nodes with<br/>nvidia.com/gpu ≥ 1\"}}"), std::string::npos)
      << mermaid;
  EXPECT_NE(mermaid.find("  nc0 -->|node-capability| u1"), std::string::npos) << mermaid;
}

TEST(Render, AnnotatedSeedPlansToTheSamePlan) {
  auto first = plan_yaml(kSeed);
  ASSERT_TRUE(first.ok());
  std::string annotated = render_annotated_seed(first.plan);
  EXPECT_NE(annotated.find("planter.nephio.org/cluster: edge1"), std::string::npos) << annotated;
  EXPECT_NE(annotated.find("planter.nephio.org/dependencies: "
                           "planter.nephio.org/v1alpha1|Cluster|infra|edge1,v1|Namespace||cnf"),
            std::string::npos)
      << annotated;
  auto second = plan_yaml(annotated);
  ASSERT_TRUE(second.ok()) << second.diags.str();
  ASSERT_EQ(second.plan.units.size(), first.plan.units.size());
  for (size_t i = 0; i < first.plan.units.size(); ++i) {
    EXPECT_EQ(second.plan.units[i].cluster, first.plan.units[i].cluster);
    EXPECT_EQ(second.plan.units[i].wave, first.plan.units[i].wave);
    EXPECT_EQ(second.plan.object_of(second.plan.units[i]).ref.id(),
              first.plan.object_of(first.plan.units[i]).ref.id());
    EXPECT_EQ(second.plan.units[i].requirements.size(), first.plan.units[i].requirements.size());
  }
}

}  // namespace
}  // namespace planter
