// `planter scheduler`'s cache (src/scheduler/cache.h): the view it keeps from watch changes is the
// view a snapshot built from scratch of the same objects would be, through nodes added, changed
// and deleted, pods bound, relabelled, finished and deleted, and the scheduler's own assumed
// bindings confirmed or forgotten.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "scheduler/cache.h"

namespace planter::scheduler {
namespace {

namespace json = boost::json;

json::object node(const std::string& name, const std::string& cpu, bool cordoned = false) {
  return json::parse(R"({"metadata":{"name":")" + name +
                     R"(","labels":{"kubernetes.io/hostname":")" + name + R"("}},"spec":{)" +
                     (cordoned ? R"("unschedulable":true)" : "") +
                     R"(},"status":{"allocatable":{"cpu":")" + cpu +
                     R"(","memory":"32Gi","pods":"110","nvidia.com/gpu":"2"}}})")
      .as_object();
}

json::object pod(const std::string& name, const std::string& node_name, const std::string& app,
                 const std::string& phase = "Pending", const std::string& scheduler = "planter") {
  json::object p =
      json::parse(R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":"u-)" +
                  name + R"(","labels":{"app":")" + app + R"("}},"spec":{"schedulerName":")" +
                  scheduler +
                  R"(","containers":[{"name":"c","resources":{"requests":{"cpu":"1",)"
                  R"("nvidia.com/gpu":"1"}}}]},"status":{"phase":")" +
                  phase + R"("}})")
          .as_object();
  if (!node_name.empty()) p["spec"].as_object()["nodeName"] = node_name;
  return p;
}

// What the view counts, node by node: comparable between two snapshots.
std::map<std::string, std::string> counted(const fit::Snapshot& s) {
  std::map<std::string, std::string> out;
  for (const fit::NodeInfo& n : s.nodes()) {
    std::string pods;
    for (const fit::PlacedPod& p : n.pods) pods += p->name + "(" + p->labels.at("app") + ") ";
    out[n.name] = std::to_string(n.requested.milli_cpu) + "m " +
                  std::to_string(n.requested.get("nvidia.com/gpu")) + " gpu " +
                  std::to_string(n.pod_count) + " pods " + (n.unschedulable ? "cordoned " : "") +
                  std::to_string(n.allocatable.milli_cpu) + "m free of " + pods;
  }
  return out;
}

const ClusterCache::VolumeReader kNoVolumes = [](const auto&) {};

TEST(SchedulerCacheTest, TheViewKeptFromChangesIsTheViewBuiltFromScratch) {
  ClusterCache cache("planter");
  std::map<std::string, json::object> nodes, pods;  // what the API holds now
  auto set_node = [&](json::object n) {
    nodes[std::string(n["metadata"].as_object()["name"].as_string())] = n;
    cache.node_changed(n);
  };
  auto set_pod = [&](json::object p) {
    std::string name(p["metadata"].as_object()["name"].as_string());
    auto it = pods.find(name);
    cache.pod_changed(it == pods.end() ? nullptr : &it->second, p);
    pods[name] = std::move(p);
  };
  auto check = [&](const char* when) {
    cache.apply(kNoVolumes);
    fit::Snapshot fresh;
    for (const auto& [_, n] : nodes) fresh.add_node(n);
    for (const auto& [_, p] : pods) fresh.add_pod(p);
    EXPECT_EQ(counted(cache.view()), counted(fresh)) << when;
  };
  set_node(node("a", "8"));
  set_pod(pod("early", "b", "web", "Running"));  // bound to a node not seen yet
  set_node(node("b", "8"));
  check("a pod bound to a node seen after it counts once the node is");
  set_pod(pod("x", "a", "db", "Running"));
  set_pod(pod("y", "a", "db", "Running"));
  set_pod(pod("other", "", "web", "Pending", "default-scheduler"));
  check("bound pods counted, pending ones not");
  set_pod(pod("y", "a", "cache", "Running"));
  check("a relabelled pod is counted with its new labels");
  set_pod(pod("x", "a", "db", "Succeeded"));
  check("a finished pod takes no room");
  cache.pod_deleted(pods.at("y"));
  pods.erase("y");
  check("a deleted pod takes no room");
  set_node(node("a", "4", true));
  check("a node changed keeps its pods");
  cache.node_deleted(nodes.at("b"));
  nodes.erase("b");
  check("a node gone takes its pods");
  set_node(node("b", "8"));
  check("the node back counts its pods again");

  // The scheduler's own decision: assumed at once, confirmed by the watch, counted once.
  set_pod(pod("mine", "", "web"));
  cache.apply(kNoVolumes);
  ASSERT_EQ(cache.pending().size(), 1u);
  const fit::PodInfo* mine = cache.pending().begin()->second.get();
  cache.assume({mine, "b", {}});
  EXPECT_TRUE(cache.pending().empty());
  json::object waiting = pods.at("mine");
  pods["mine"] = pod("mine", "b", "web");  // as the binding will make it
  check("an assumed pod counts where it goes");
  cache.pod_changed(&waiting, pods.at("mine"));
  check("the watch confirming it counts it once");
  // One whose binding failed is pending again and counted nowhere.
  set_pod(pod("lost", "", "web"));
  cache.apply(kNoVolumes);
  const fit::PodInfo* lost = cache.pending().at("u-lost").get();
  cache.assume({lost, "a", {}});
  cache.forget("u-lost");
  EXPECT_EQ(cache.pending().count("u-lost"), 1u);
  check("a forgotten binding takes no room");
}

TEST(SchedulerCacheTest, AGangsMembersAreItsBoundPodsNotTheDeletingOnes) {
  ClusterCache cache("planter");
  cache.node_changed(node("a", "8"));
  auto member = [](const std::string& name, bool deleting) {
    json::object p = pod(name, "a", "train", "Running");
    p["metadata"].as_object()["labels"].as_object()["scheduling.x-k8s.io/pod-group"] = "g";
    if (deleting) p["metadata"].as_object()["deletionTimestamp"] = "2026-11-27T00:00:00Z";
    return p;
  };
  cache.pod_changed(nullptr, member("m0", false));
  cache.pod_changed(nullptr, member("m1", false));
  json::object going = member("m1", true);
  json::object before = member("m1", false);
  cache.pod_changed(&before, going);
  cache.apply(kNoVolumes);
  ASSERT_EQ(cache.members("default/g").size(), 1u);
  EXPECT_EQ(cache.members("default/g")[0]->info->name, "m0");
  EXPECT_EQ(cache.view().node("a")->pod_count, 2) << "a deleting pod still holds its room";
}

}  // namespace
}  // namespace planter::scheduler
