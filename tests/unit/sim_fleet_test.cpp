// The fleet's parts without a socket: fault settings, the state folder's snapshot and journal,
// and a cluster's controllers on a clock the test moves.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "sim/cluster.h"
#include "sim/fleet.h"
#include "sim/state_dir.h"

namespace planter::sim {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

TEST(ParseFaultTest, ReadsEachSettingAndRejectsNonsense) {
  Faults f;
  EXPECT_FALSE(parse_fault("latency", "50,10", f));
  EXPECT_EQ(f.latency, milliseconds(50));
  EXPECT_EQ(f.jitter, milliseconds(10));
  EXPECT_FALSE(parse_fault("latency", "20", f));
  EXPECT_EQ(f.jitter, milliseconds(0));
  EXPECT_FALSE(parse_fault("error-rate", "0.2", f));
  EXPECT_DOUBLE_EQ(f.error_rate, 0.2);
  EXPECT_FALSE(parse_fault("watch-drop", "1.5", f));
  EXPECT_EQ(f.watch_drop, milliseconds(1500));
  EXPECT_FALSE(parse_fault("write-latency", "7", f));
  EXPECT_EQ(f.write_latency, milliseconds(7));

  auto err = parse_fault("error-rate", "20%", f);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("between 0 and 1"), std::string::npos) << err->message;
  EXPECT_TRUE(parse_fault("error-rate", "1.5", f));
  EXPECT_TRUE(parse_fault("latency", "-1", f));
  err = parse_fault("lag", "1", f);
  ASSERT_TRUE(err);
  EXPECT_NE(err->message.find("known: latency"), std::string::npos) << err->message;
}

class StateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("planter-statedir-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static json::object configmap(const std::string& name, const std::string& value) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", "default"}}},
                        {"data", {{"k", value}}}};
  }

  std::filesystem::path dir_;
};

TEST_F(StateDirTest, ReplaysTheJournalOverTheSnapshotAndIgnoresACutShortLastLine) {
  {
    auto state = StateDir::open(dir_);
    ASSERT_TRUE(state);
    Store store;
    store.put("/configmaps", configmap("a", "1"));
    ASSERT_FALSE((*state)->attach("edge1", store));
    store.put("/configmaps", configmap("b", "2"));
    store.put("/configmaps", configmap("a", "3"));
    store.erase("/configmaps", "default", "b");
  }
  // A kill in the middle of a write leaves half a line.
  std::ofstream(dir_ / "edge1.journal.jsonl", std::ios::app) << "{\"resourceVersion\":99,\"ke";

  auto state = StateDir::open(dir_);
  ASSERT_TRUE(state);
  auto loaded = (*state)->load("edge1");
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_TRUE(loaded->has_value());
  const Snapshot& snap = **loaded;
  EXPECT_EQ(snap.resource_version, 5u);  // 2 puts and a delete after the first put (rv 2)
  ASSERT_EQ(snap.objects.size(), 1u);
  EXPECT_EQ(snap.objects[0].first, "/configmaps");
  EXPECT_EQ(snap.objects[0].second.at("data").at("k"), "3");

  Store restored;
  restored.restore(snap.objects, snap.resource_version);
  EXPECT_EQ(restored.resource_version(), 5u);
  auto a = restored.get("/configmaps", "default", "a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->at("metadata").at("resourceVersion"), "4");
  EXPECT_FALSE(restored.get("/configmaps", "default", "b"));
  // Watches from before the restart start over.
  EXPECT_FALSE(restored.changes_since(3, [](const Change&) {}));
  EXPECT_EQ((*state)->load("nobody")->has_value(), false);
}

TEST_F(StateDirTest, AGarbledJournalIsAnErrorNamingTheFileAndLine) {
  {
    auto state = StateDir::open(dir_);
    Store store;
    ASSERT_FALSE((*state)->attach("management", store));
    store.put("/configmaps", configmap("a", "1"));
  }
  std::ofstream(dir_ / "management.journal.jsonl", std::ios::app)
      << "garbage\n{\"resourceVersion\":9,\"key\":\"/configmaps\",\"op\":\"delete\"}\n";
  auto state = StateDir::open(dir_);
  auto loaded = (*state)->load("management");
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("management.journal.jsonl:2"), std::string::npos)
      << loaded.error().message;
}

// A clock the test moves: timers run when their time comes.
struct FakeClock {
  std::chrono::system_clock::time_point now{std::chrono::seconds(1'800'000'000)};
  std::multimap<std::chrono::system_clock::time_point, std::function<void()>> timers;
  uint64_t seed = 1;

  Environment environment() {
    Environment env;
    env.now = [this] { return now; };
    env.after = [this](milliseconds d, std::function<void()> fn) {
      timers.emplace(now + d, std::move(fn));
    };
    env.random = [this] { return seed = seed * 6364136223846793005ull + 1; };
    return env;
  }

  void advance(milliseconds d) {
    auto until = now + d;
    while (!timers.empty() && timers.begin()->first <= until) {
      auto it = timers.begin();
      now = std::max(now, it->first);
      auto fn = std::move(it->second);
      timers.erase(it);
      fn();
    }
    now = until;
  }
};

Response call(Cluster& c, std::string method, std::string path, std::string body = "") {
  Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.user = "admin";
  r.user_agent = "kubectl/v1.32.3";
  r.content_type = "application/json";
  r.body = std::move(body);
  return c.handle(r);
}

json::object get(Cluster& c, const std::string& path) {
  return json::parse(call(c, "GET", path).body).as_object();
}

// Found by fuzzing: a path that is empty or does not start with '/' ended the sim.
TEST(ClusterTest, APathThatIsNotOneIsNotFound) {
  FakeClock clock;
  Cluster c("edge1", ClusterOptions{}, clock.environment(), nullptr);
  for (const char* path : {"", "*", "api/v1/namespaces"})
    EXPECT_EQ(call(c, "PATCH", path).status, 404) << path;
}

TEST(ControllersTest, ADeploymentIsAvailableAfterTheWorkloadDelayAndItsServiceGetsEndpoints) {
  FakeClock clock;
  ClusterOptions options;
  options.workload_delay = milliseconds(1000);
  options.nodes = {NodePool{2, {}}};
  Cluster c("edge1", options, clock.environment(), nullptr);
  clock.advance(milliseconds(0));
  EXPECT_EQ(get(c, "/api/v1/nodes").at("items").as_array().size(), 2u);

  ASSERT_EQ(call(c, "POST", "/apis/apps/v1/namespaces/default/deployments", R"({
    "apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
            "template":{"metadata":{"labels":{"app":"web"}},
                        "spec":{"containers":[{"name":"web","image":"nginx"}]}}}})")
                .status,
            201);
  ASSERT_EQ(call(c, "POST", "/api/v1/namespaces/default/services", R"({
    "apiVersion":"v1","kind":"Service","metadata":{"name":"web"},
    "spec":{"selector":{"app":"web"},"ports":[{"port":80}]}})")
                .status,
            201);
  clock.advance(milliseconds(999));
  auto web = get(c, "/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(web.at("status").at("observedGeneration"), 1);
  EXPECT_FALSE(web.at("status").as_object().contains("readyReplicas"));
  EXPECT_EQ(web.at("status").at("conditions").at(0).at("status"), "False");
  auto endpoints = get(c, "/api/v1/namespaces/default/endpoints/web");
  EXPECT_TRUE(endpoints.at("subsets").as_array().empty());

  clock.advance(milliseconds(1));
  web = get(c, "/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(web.at("status").at("readyReplicas"), 3);
  EXPECT_EQ(web.at("status").at("conditions").at(0).at("type"), "Available");
  EXPECT_EQ(web.at("status").at("conditions").at(0).at("status"), "True");
  clock.advance(milliseconds(0));
  auto slices = get(c, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices");
  ASSERT_EQ(slices.at("items").as_array().size(), 1u);
  EXPECT_EQ(slices.at("items").at(0).at("endpoints").as_array().size(), 3u);

  // Scaling is a new generation: ready again only after the delay.
  ASSERT_EQ(call(c, "PUT", "/apis/apps/v1/namespaces/default/deployments/web",
                 [&] {
                   auto obj = web;
                   obj["spec"].as_object()["replicas"] = 1;
                   return json::serialize(obj);
                 }())
                .status,
            200);
  clock.advance(milliseconds(10));
  web = get(c, "/apis/apps/v1/namespaces/default/deployments/web");
  EXPECT_EQ(web.at("status").at("observedGeneration"), 2);
  clock.advance(milliseconds(1000));
  slices = get(c, "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices");
  EXPECT_EQ(slices.at("items").at(0).at("endpoints").as_array().size(), 1u);
}

}  // namespace
}  // namespace planter::sim

namespace planter::sim {
namespace {

TEST(ControllersTest, ARestoredClusterKeepsItsObjectsAndGivesOutNewClusterIps) {
  FakeClock clock;
  Snapshot saved;
  saved.resource_version = 41;
  saved.objects.emplace_back("/namespaces", json::parse(R"({"apiVersion":"v1","kind":"Namespace",
        "metadata":{"name":"default","uid":"u1","resourceVersion":"2"},
        "spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})")
                                                .as_object());
  saved.objects.emplace_back("/services", json::parse(R"({"apiVersion":"v1","kind":"Service",
        "metadata":{"name":"old","namespace":"default","uid":"u2","resourceVersion":"40"},
        "spec":{"type":"ClusterIP","clusterIP":"10.96.0.10","ports":[{"port":80}]}})")
                                              .as_object());
  Cluster c("edge1", ClusterOptions{}, clock.environment(), nullptr, &saved);
  clock.advance(milliseconds(0));
  auto old = get(c, "/api/v1/namespaces/default/services/old");
  EXPECT_EQ(old.at("metadata").at("resourceVersion"), "40");
  ASSERT_EQ(call(c, "POST", "/api/v1/namespaces/default/services",
                 R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"new"},
                     "spec":{"ports":[{"port":80}]}})")
                .status,
            201);
  auto fresh = get(c, "/api/v1/namespaces/default/services/new");
  EXPECT_NE(fresh.at("spec").at("clusterIP"), "10.96.0.10");
  EXPECT_GT(std::stoull(std::string(fresh.at("metadata").at("resourceVersion").as_string())), 41u);
}

}  // namespace
}  // namespace planter::sim
