// What the operator keeps of its fleet between runs (plant/fleet_cache.h, kube::DiscoveryCache),
// on a `planter sim` fleet in this process: a watch a holder retains keeps following its cluster
// with no run subscribed, and the next run finds it listed without a list of its own; a cluster
// neither subscribed to nor retained is let go; new credentials make a new client; and a client
// of a server another client discovered maps kinds without asking, unless the kind is new; and
// runs on one management cluster share the watches that lead to its clusters and those of its CRDs
// and cluster objects, and plan with its cluster objects as a watch has them.
#include "plant/fleet_cache.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "kube/sim_fleet.h"
#include "model/object.h"
#include "plant/engine.h"
#include "plant/existing_clusters.h"
#include "unit/test_support.h"

namespace planter::testing {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

bool eventually(const std::function<bool()>& check, std::chrono::milliseconds limit = 10s) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (check()) return true;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(20ms);
  }
  return check();
}

size_t names_of(const kube::Informer& i, const std::string& name) {
  size_t n = 0;
  i.for_each([&](const json::object& o) {
    if (string_field(o, {"metadata", "name"}) == name) ++n;
  });
  return n;
}

sim::ServerOptions one_cluster() {
  sim::ServerOptions so;
  so.fleet.clusters = 1;
  return so;
}

struct Heard {
  std::atomic<int> synced{0}, changed{0};
  plant::FleetCache::Listener listener() {
    return {[this](const json::object&) { ++changed; }, [this] { ++synced; }, [] {}};
  }
};

TEST(FleetCacheTest, ARetainedClusterIsFollowedBetweenRunsAndTheNextRunNeedsNoListOfItsOwn) {
  SimFleet fleet(one_cluster());
  plant::FleetCache cache({});
  auto client = cache.client("edge1", "kubeconfig 1", fleet.rest_config("edge1"));
  ASSERT_TRUE(client);
  Heard first;
  auto run1 = cache.watch("edge1", *client, "v1", "ConfigMap", "", nullptr, first.listener());
  ASSERT_TRUE(eventually([&] { return first.synced > 0; }));

  // The run ends; the Seed's choice keeps the cluster.
  cache.retain("team/app", {"edge1"});
  run1.reset();
  EXPECT_EQ(cache.clusters(), 1u);
  EXPECT_EQ(cache.watches(), 1u);

  // What happens meanwhile is followed with no run listening.
  auto admin = kube::Client::create(fleet.rest_config("edge1"));
  ASSERT_TRUE(admin);
  json::object cm{{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", {{"name", "while-nobody-ran"}, {"namespace", "default"}}}};
  ASSERT_TRUE((*admin)->apply(cm));

  // The next run hears at once that the watch is listed, and reads the change in it.
  Heard second;
  auto run2 = cache.watch("edge1", *client, "v1", "ConfigMap", "", nullptr, second.listener());
  EXPECT_EQ(second.synced, 1);
  EXPECT_TRUE(eventually([&] { return names_of(run2->informer(), "while-nobody-ran") == 1; }));
  EXPECT_EQ(run2->informer().stats().lists, 1u);

  // Let go by its holder, it stays while a run reads it or links it, and goes with the last.
  cache.retain("team/app", {});
  EXPECT_EQ(cache.clusters(), 1u);
  run2.reset();
  EXPECT_EQ(cache.clusters(), 1u);
  client->reset();
  cache.done_with("edge1");
  EXPECT_EQ(cache.clusters(), 0u);
  EXPECT_EQ(cache.watches(), 0u);
}

TEST(FleetCacheTest, AQuietRunHearsNothingMoreAndNewCredentialsMakeANewClient) {
  SimFleet fleet(one_cluster());
  plant::FleetCache cache({});
  auto old_client = cache.client("edge1", "kubeconfig 1", fleet.rest_config("edge1"));
  ASSERT_TRUE(old_client);
  EXPECT_EQ(cache.client("edge1", "kubeconfig 1", fleet.rest_config("edge1")).value(), *old_client);
  Heard old_run;
  auto on_old =
      cache.watch("edge1", *old_client, "v1", "ConfigMap", "", nullptr, old_run.listener());
  ASSERT_TRUE(eventually([&] { return old_run.synced > 0; }));

  auto new_client = cache.client("edge1", "kubeconfig 2", fleet.rest_config("edge1"));
  ASSERT_TRUE(new_client);
  EXPECT_NE(*new_client, *old_client);
  Heard new_run;
  auto on_new =
      cache.watch("edge1", *new_client, "v1", "ConfigMap", "", nullptr, new_run.listener());
  EXPECT_NE(&on_new->informer(), &on_old->informer());
  ASSERT_TRUE(eventually([&] { return new_run.synced > 0; }));

  // The old run goes quiet (its engine stopped): a change reaches only the new one.
  on_old->quiet();
  int before = old_run.changed;
  auto admin = kube::Client::create(fleet.rest_config("edge1"));
  ASSERT_TRUE(admin);
  ASSERT_TRUE(
      (*admin)->apply(json::object{{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", "after"}, {"namespace", "default"}}}}));
  ASSERT_TRUE(eventually([&] { return names_of(on_new->informer(), "after") == 1; }));
  EXPECT_TRUE(eventually([&] { return names_of(on_old->informer(), "after") == 1; }));
  EXPECT_EQ(old_run.changed, before);
  EXPECT_GT(new_run.changed, 0);
}

TEST(FleetCacheTest, ARunThatOnlyLinkedAClusterLeavesNothingBehindOnceItIsDone) {
  SimFleet fleet(one_cluster());
  plant::FleetCache cache({});
  {
    auto client = cache.client("edge1", "kubeconfig 1", fleet.rest_config("edge1"));
    ASSERT_TRUE(client);
    cache.done_with("edge1");  // too early: the run still holds the client
    EXPECT_EQ(cache.clusters(), 1u);
  }
  cache.done_with("edge1");
  EXPECT_EQ(cache.clusters(), 0u);
}

// Plans that read the clusters of `management` with a list, as the CLI does.
PlanOptions listing(const kube::RestConfig& management) {
  PlanOptions po;
  po.existing_clusters = [management] {
    return plant::read_existing_clusters(
        management, {}, {std::chrono::steady_clock::now() + std::chrono::seconds(30)});
  };
  return po;
}

// Two runs of the management cluster's Seeds, the second started while the first waits: the
// second reads the first's watches of the cluster objects and kubeconfig Secrets (the cache's,
// listed before it came), links edge1 through them and plants there; both done, nothing is kept.
TEST(FleetCacheTest, RunsOnOneManagementClusterShareTheWatchesThatLeadToItsClusters) {
  sim::ServerOptions so;
  so.fleet.clusters = 2;
  SimFleet fleet(so);
  kube::RestConfig management = fleet.rest_config();
  PlanOptions po = listing(management);
  // Each run plants on edge1, then waits on the management cluster for `gate` to exist.
  auto plan_of = [&](const std::string& run) {
    PlanOutcome planned = plan_yaml(fmt::format(R"(apiVersion: v1
kind: ConfigMap
metadata: {{name: {0}, namespace: default, annotations: {{planter.nephio.org/cluster: edge1}}}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {0}-after
  namespace: default
  annotations: {{planter.nephio.org/external-dependencies: "v1|ConfigMap|default|gate"}}
)",
                                                run),
                                    po);
    EXPECT_TRUE(planned.ok()) << planned.diags.str();
    return std::move(planned.plan);
  };
  Plan plan_a = plan_of("a"), plan_b = plan_of("b");
  plant::FleetCache cache({});
  auto run = [&](const Plan& plan) {
    plant::EngineOptions eo;
    eo.seed_name = "shop";
    eo.timeout = std::chrono::seconds(60);
    eo.fleet_cache = &cache;
    return std::async(std::launch::async, [&plan, &management, eo] {
      return plant::plant(plan, {{"SELF", management}}, eo);
    });
  };
  auto edge1 = kube::Client::create(fleet.rest_config("edge1"));
  ASSERT_TRUE(edge1);
  auto on_edge1 = [&](const std::string& name) {
    return eventually([&] { return (*edge1)->get("v1", "ConfigMap", "default", name).ok(); });
  };

  auto a = run(plan_a);
  ASSERT_TRUE(on_edge1("a"));
  // The management cluster's (its Namespaces, the cluster objects and kubeconfig Secrets of
  // `default`), shared; edge1's Namespaces were watched until `a` was declared there, and are let
  // go once no unit of the run waits on edge1.
  EXPECT_EQ(cache.clusters(), 2u);
  EXPECT_TRUE(eventually([&] { return cache.watches() == 3u; })) << cache.watches();
  auto b = run(plan_b);
  ASSERT_TRUE(on_edge1("b"));
  EXPECT_EQ(cache.clusters(), 2u);
  EXPECT_TRUE(eventually([&] { return cache.watches() == 3u; })) << cache.watches();

  auto admin = kube::Client::create(management);
  ASSERT_TRUE(admin);
  ASSERT_TRUE(
      (*admin)->apply(json::object{{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", "gate"}, {"namespace", "default"}}}}));
  EXPECT_TRUE(a.get().all_declared());
  EXPECT_TRUE(b.get().all_declared());
  EXPECT_EQ(cache.clusters(), 0u);
  EXPECT_EQ(cache.watches(), 0u);
}

// A run that creates a cluster and a custom resource on the management cluster, and waits there
// on another cluster's object (edge1's), watches the management cluster's CRDs and cluster
// objects: the cache's watches, which another reader (the next Seed's run) joins instead of
// listing the management cluster's whole fleet again.
TEST(FleetCacheTest, ARunsWatchesOfTheManagementClustersCrdsAndClusterObjectsAreShared) {
  sim::ServerOptions so;
  so.fleet.clusters = 1;
  so.fleet.provision_delay = std::chrono::milliseconds(100);
  SimFleet fleet(so);
  kube::RestConfig management = fleet.rest_config();
  PlanOptions po = listing(management);
  PlanOutcome planned = plan_yaml(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: far, namespace: default}
spec:
  nodes: [{count: 1}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: on-far, namespace: default, annotations: {planter.nephio.org/cluster: far}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: after
  namespace: default
  annotations:
    planter.nephio.org/external-dependencies: >-
      planter.nephio.org/v1alpha1|Cluster|default|edge1,v1|ConfigMap|default|gate
)",
                                  po);
  ASSERT_TRUE(planned.ok()) << planned.diags.str();
  plant::FleetCache cache({});
  plant::EngineOptions eo;
  eo.seed_name = "shop";
  eo.timeout = std::chrono::seconds(60);
  eo.fleet_cache = &cache;
  auto run = std::async(std::launch::async, [&] {
    return plant::plant(planned.plan, {{"SELF", management}}, eo);
  });
  auto admin = kube::Client::create(management);
  ASSERT_TRUE(admin);
  // The Widget is there (its CRD's wait held) and far is planted on (its Cluster's wait held).
  ASSERT_TRUE(eventually([&] {
    return (*admin)->get("example.com/v1", "Widget", "default", "w").ok() && cache.clusters() == 2;
  }));
  auto far = kube::Client::create(fleet.rest_config("far"));
  ASSERT_TRUE(far);
  ASSERT_TRUE(eventually([&] { return (*far)->get("v1", "ConfigMap", "default", "on-far").ok(); }));

  // The management cluster's client as the cache keeps it for a cluster given up front.
  auto client = cache.client("SELF", "given\n" + kube::fingerprint(management), management);
  ASSERT_TRUE(client);
  size_t watches = cache.watches();
  Heard crds, clusters;
  auto joined_crds = cache.watch("SELF", *client, "apiextensions.k8s.io/v1",
                                 "CustomResourceDefinition", "", nullptr, crds.listener());
  auto joined_clusters = cache.watch("SELF", *client, "planter.nephio.org/v1alpha1", "Cluster", "",
                                     nullptr, clusters.listener());
  EXPECT_EQ(cache.watches(), watches) << "a reader of the run's watches opened watches of its own";
  EXPECT_EQ(crds.synced, 1);  // listed already: told at once
  EXPECT_EQ(clusters.synced, 1);
  EXPECT_EQ(names_of(joined_crds->informer(), "widgets.example.com"), 1u);
  EXPECT_EQ(names_of(joined_clusters->informer(), "far"), 1u);
  EXPECT_EQ(names_of(joined_clusters->informer(), "edge1"), 1u);
  joined_crds.reset();
  joined_clusters.reset();

  ASSERT_TRUE(
      (*admin)->apply(json::object{{"apiVersion", "v1"},
                                   {"kind", "ConfigMap"},
                                   {"metadata", {{"name", "gate"}, {"namespace", "default"}}}}));
  EXPECT_TRUE(run.get().all_declared());
}

// What the operator plans with: the management cluster's cluster objects as its watches have
// them, the same as a fresh list, and following a new cluster, a relabelled one and a deleted one.
TEST(WatchedClustersTest, ReadsWhatAListReadsAndFollowsTheClusterObjects) {
  sim::ServerOptions so;
  so.fleet.clusters = 2;
  SimFleet fleet(so);
  auto admin = kube::Client::create(fleet.rest_config());
  ASSERT_TRUE(admin);
  plant::WatchedClusters watched(**admin);
  auto names = [](const std::vector<ClusterInfo>& clusters) {
    std::vector<std::string> out;
    for (const ClusterInfo& c : clusters)
      out.push_back(c.name + (c.labels.contains("tier") ? "/" + c.labels.at("tier") : ""));
    return out;
  };
  auto seen = [&] {
    auto r = watched.read();
    return r ? names(*r) : std::vector<std::string>{"(not listed)"};
  };
  auto listed = plant::read_existing_clusters(
      **admin, {std::chrono::steady_clock::now() + std::chrono::seconds(30)});
  ASSERT_TRUE(listed);
  ASSERT_EQ(names(*listed), (std::vector<std::string>{"edge1", "edge2"}));
  EXPECT_TRUE(eventually([&] { return seen() == names(*listed); })) << fmt::format("{}", seen());

  json::object edge0{{"apiVersion", "planter.nephio.org/v1alpha1"},
                     {"kind", "Cluster"},
                     {"metadata", {{"name", "edge0"}, {"namespace", "default"}}},
                     {"spec", json::object{}}};
  ASSERT_TRUE((*admin)->apply(edge0));
  EXPECT_TRUE(eventually([&] {
    return seen() == std::vector<std::string>{"edge0", "edge1", "edge2"};
  })) << fmt::format("{}", seen());
  edge0["metadata"].as_object()["labels"] = {{"tier", "far"}};
  ASSERT_TRUE((*admin)->apply(edge0));
  EXPECT_TRUE(eventually([&] {
    return seen() == std::vector<std::string>{"edge0/far", "edge1", "edge2"};
  })) << fmt::format("{}", seen());
  ASSERT_TRUE((*admin)->remove("planter.nephio.org/v1alpha1", "Cluster", "default", "edge0"));
  EXPECT_TRUE(eventually([&] { return seen() == names(*listed); })) << fmt::format("{}", seen());
}

TEST(DiscoveryCacheTest, AClientOfAServerAnotherDiscoveredMapsWithoutAskingUnlessTheKindIsNew) {
  SimFleet fleet;
  kube::ClientOptions options;
  options.discovery_cache = std::make_shared<kube::DiscoveryCache>(5min);
  auto first = kube::Client::create(fleet.rest_config(), options);
  ASSERT_TRUE(first);
  ASSERT_TRUE((*first)->resource("v1", "ConfigMap"));
  EXPECT_EQ((*first)->discovery_refreshes(), 1);

  auto second = kube::Client::create(fleet.rest_config(), options);
  ASSERT_TRUE(second);
  ASSERT_TRUE((*second)->resource("apps/v1", "Deployment"));
  EXPECT_EQ((*second)->discovery_refreshes(), 0);
  // A kind the table lacks is asked for: a CRD installed since would be found.
  auto missing = (*second)->resource("example.com/v1", "Widget");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().kind_unknown());
  EXPECT_EQ((*second)->discovery_refreshes(), 1);

  // Someone else asking (an impersonated user) discovers for itself.
  kube::ClientOptions as_bob = options;
  as_bob.transport.impersonate_user = "bob";
  auto bob = kube::Client::create(fleet.rest_config(), as_bob);
  ASSERT_TRUE(bob);
  (void)(*bob)->resource("v1", "ConfigMap");
  EXPECT_EQ((*bob)->discovery_refreshes(), 1);
}

}  // namespace
}  // namespace planter::testing
