// The use case both front ends run (plant/seed_run.h), step by step, on a `planter sim` fleet in
// this process: reaching a cluster the seed created, opening the inventories before the first
// write, closing them with a prune after planting, uprooting with them, and a cluster that does
// not exist, each judged by what is on the clusters.
#include "plant/seed_run.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "kube/sim_fleet.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "unit/test_support.h"

namespace planter::testing {
namespace {

namespace json = boost::json;

constexpr const char* kCluster = R"(apiVersion: v1
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
metadata: {name: kept, namespace: default, annotations: {planter.nephio.org/cluster: edge1}}
)";
constexpr const char* kDropped = R"(---
apiVersion: v1
kind: ConfigMap
metadata: {name: dropped, namespace: default, annotations: {planter.nephio.org/cluster: edge1}}
)";

Plan plan_of(const std::string& yaml) {
  PlanOutcome planned = plan_yaml(yaml);
  EXPECT_TRUE(planned.ok()) << planned.diags.str();
  return std::move(planned.plan);
}

plant::SeedRunOptions options_for() {
  plant::SeedRunOptions o;
  o.seed_name = "shop";
  o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  return o;
}

void plant_all(const Plan& plan, const kube::RestConfig& management) {
  plant::EngineOptions eo;
  eo.seed_name = "shop";
  eo.timeout = std::chrono::seconds(60);
  plant::PlantOutcome out = plant::plant(plan, {{"SELF", management}}, eo);
  ASSERT_TRUE(out.all_declared());
}

// What `cluster`'s inventory of the seed lists ("" when it has none).
std::string inventory_on(const SimFleet& fleet, const std::string& cluster) {
  auto client = kube::Client::create(fleet.rest_config(cluster == "SELF" ? "management" : cluster));
  if (!client) return "no client";
  auto got = (*client)->get("v1", "ConfigMap", "kube-system", "planter-inventory-shop");
  return got ? string_field(*got, {"data", "objects"}) : "";
}

bool exists_on(const SimFleet& fleet, const std::string& cluster, const std::string& name) {
  auto client = kube::Client::create(fleet.rest_config(cluster));
  return client && (*client)->get("v1", "ConfigMap", "default", name).ok();
}

TEST(SeedRunTest, EachStepOnAFleetWithAClusterTheSeedCreates) {
  SimFleet fleet;
  kube::RestConfig management = fleet.rest_config();
  Plan before = plan_of(std::string(kCluster) + kDropped);

  // reach: before planting, edge1 does not exist: not reached, and nothing can be on it.
  {
    plant::SeedRun run(before, {{"SELF", management}}, options_for());
    run.reach();
    EXPECT_FALSE(run.clusters().contains("edge1"));
    ASSERT_TRUE(run.not_reached().contains("edge1"));
    EXPECT_EQ(run.not_reached().at("edge1"), "Cluster/fleet/edge1 does not exist yet");
  }

  // open before the first write, plant, close: the inventory of edge1 is written once it exists.
  {
    plant::SeedRun run(before, {{"SELF", management}}, options_for());
    run.reach();
    run.open();
    EXPECT_NE(inventory_on(fleet, "SELF").find("Cluster fleet edge1"), std::string::npos);
    plant_all(before, management);
    plant::CloseOutcome closed = run.close(true, true, {}, false);
    EXPECT_TRUE(closed.complete);
    EXPECT_TRUE(run.clusters().contains("edge1"));
    EXPECT_NE(inventory_on(fleet, "edge1").find("v1 ConfigMap default dropped"), std::string::npos);
  }
  ASSERT_TRUE(exists_on(fleet, "edge1", "dropped"));

  // A new version without `dropped`: reached at once, its inventory read, the object pruned on
  // edge1 after planting, and the inventory lists what the seed holds now.
  Plan after = plan_of(kCluster);
  {
    plant::SeedRun run(after, {{"SELF", management}}, options_for());
    run.reach();
    EXPECT_TRUE(run.clusters().contains("edge1"));
    run.open();
    std::vector<Plan> stale = run.stale();
    ASSERT_EQ(stale.size(), 1u);
    ASSERT_EQ(stale[0].units.size(), 1u);
    EXPECT_EQ(stale[0].units[0].cluster, "edge1");
    plant_all(after, management);
    plant::CloseOutcome closed = run.close(true, true, {}, false);
    EXPECT_TRUE(closed.complete);
    EXPECT_EQ(closed.pruned.deleted, 1u);
    EXPECT_FALSE(exists_on(fleet, "edge1", "dropped"));
    EXPECT_TRUE(exists_on(fleet, "edge1", "kept"));
    EXPECT_EQ(inventory_on(fleet, "edge1").find("dropped"), std::string::npos);
  }

  // uproot: the seed goes, edge1 with it, and the management cluster's inventory is deleted.
  {
    plant::SeedRun run(after, {{"SELF", management}}, options_for());
    run.reach();
    plant::UprootOptions uo;
    uo.seed_name = "shop";
    uo.timeout = std::chrono::seconds(60);
    plant::SeedUprootOutcome out = run.uproot(uo);
    ASSERT_TRUE(out.started);
    EXPECT_TRUE(out.seed.complete());
    EXPECT_EQ(inventory_on(fleet, "SELF"), "");
  }
}

// A choice among ten existing clusters reaches their kubeconfigs with a list of each kind (not
// twenty reads), and only where the Seed's identity may list them: an identity granted nine
// Secrets by name reaches those nine, one by one, and is told why not the tenth.
TEST(SeedRunTest, ReachingManyClustersListsTheirKubeconfigsOnlyWhereTheSeedMayListThem) {
  sim::ServerOptions so;
  so.fleet.clusters = 10;
  so.fleet.cluster.rbac = true;
  SimFleet fleet(so);
  kube::RestConfig management = fleet.rest_config();
  auto admin = kube::Client::create(management);
  ASSERT_TRUE(admin);
  json::array names;
  for (int i = 1; i <= 9; ++i) names.push_back(json::string(fmt::format("edge{}-kubeconfig", i)));
  // The Role the impersonated user "reader" has in the kubeconfigs' namespace.
  auto role = [&](json::object rule) {
    json::object r{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                   {"kind", "Role"},
                   {"metadata", {{"name", "kubeconfigs"}, {"namespace", "default"}}},
                   {"rules", json::array{std::move(rule)}}};
    json::object b{
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", "RoleBinding"},
        {"metadata", {{"name", "kubeconfigs"}, {"namespace", "default"}}},
        {"roleRef",
         {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", "kubeconfigs"}}},
        {"subjects", json::array{json::object{{"kind", "User"}, {"name", "reader"}}}}};
    kube::ApplyOptions force;
    force.force = true;
    ASSERT_TRUE((*admin)->apply(r, force));
    ASSERT_TRUE((*admin)->apply(b, force));
  };
  PlanOptions po;
  po.existing_clusters = [&] {
    return plant::read_existing_clusters(
        management, {}, {std::chrono::steady_clock::now() + std::chrono::seconds(30)});
  };
  PlanOutcome planned = plan_yaml(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: pick
  namespace: default
  annotations:
    planter.nephio.org/cluster-selector: sim.planter.io/index
    planter.nephio.org/cluster-count: "3"
)",
                                  po);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  ASSERT_EQ(planned.plan.choices.size(), 1u);
  ASSERT_EQ(planned.plan.choices[0].candidates.size(), 10u);
  auto reach = [&](int& requests) {
    plant::SeedRunOptions o = options_for();
    o.write_as = plant::WriteIdentity{"reader", {}, false, nullptr};
    o.client.transport.observe = [&requests](std::string_view, std::string_view, int, double) {
      ++requests;
    };
    auto run = std::make_unique<plant::SeedRun>(
        planned.plan, std::map<std::string, kube::RestConfig>{{"SELF", management}}, o);
    run->reach();
    return run;
  };

  role({{"apiGroups", json::array{""}},
        {"resources", json::array{"secrets"}},
        {"verbs", json::array{"get"}},
        {"resourceNames", names}});
  int one_by_one = 0;
  auto some = reach(one_by_one);
  for (int i = 1; i <= 9; ++i)
    EXPECT_TRUE(some->clusters().contains(fmt::format("edge{}", i))) << i;
  EXPECT_FALSE(some->clusters().contains("edge10"));
  ASSERT_TRUE(some->not_reached().contains("edge10"));
  EXPECT_THAT(some->not_reached().at("edge10"),
              ::testing::HasSubstr("reading its kubeconfig (Secret default/edge10-kubeconfig)"));
  EXPECT_THAT(some->not_reached().at("edge10"), ::testing::HasSubstr("403"));

  role({{"apiGroups", json::array{""}},
        {"resources", json::array{"secrets"}},
        {"verbs", json::array{"get", "list"}}});
  int listed = 0;
  auto all = reach(listed);
  for (int i = 1; i <= 10; ++i)
    EXPECT_TRUE(all->clusters().contains(fmt::format("edge{}", i))) << i;
  EXPECT_TRUE(all->not_reached().empty());
  // The clusters' objects and their Secrets listed, with discovery: a handful, not 20 reads.
  EXPECT_LE(listed, 8) << "one by one: " << one_by_one;
  EXPECT_GE(one_by_one, 10);
}

}  // namespace
}  // namespace planter::testing
