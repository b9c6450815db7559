// planter's scheduler decisions (src/scheduler/gang.h, on the fit model) without a server: gangs
// all or nothing, same-node and isolated groups, inter-pod affinity with the first-pod rule, and
// the anti-affinity of pods already placed. Expected outcomes are worked out by hand from the
// Kubernetes documentation ("Inter-pod affinity and anti-affinity") and scheduler-plugins'
// Coscheduling (a gang binds when minMember pods can).
#include "scheduler/gang.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

namespace planter::scheduler {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::object node(const std::string& name, const std::string& cpu) {
  return json::parse(R"({"metadata":{"name":")" + name +
                     R"(","labels":{"kubernetes.io/hostname":")" + name +
                     R"("}},"status":{"allocatable":{"cpu":")" + cpu +
                     R"(","memory":"32Gi","pods":"110"}}})")
      .as_object();
}

// A pod; `extra` is JSON members added to its spec.
json::object pod(const std::string& name, const std::string& cpu, const std::string& labels = "{}",
                 const std::string& node_name = "", const std::string& extra = "") {
  std::string bound = node_name.empty() ? "" : R"("nodeName":")" + node_name + "\",";
  return json::parse(R"({"metadata":{"name":")" + name + R"(","namespace":"default","uid":")" +
                     name + R"(","labels":)" + labels + R"(},"spec":{)" + bound +
                     R"("containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
                     R"("}}}])" + extra + "}}")
      .as_object();
}

std::string fmt_node(int i) {
  return "n" + std::to_string(i);
}

fit::Snapshot three_nodes() {
  fit::Snapshot v;
  for (const char* n : {"a", "b", "c"}) v.add_node(node(n, "8"));
  return v;
}

std::vector<const fit::PodInfo*> refs(const std::vector<fit::PodInfo>& pods) {
  std::vector<const fit::PodInfo*> out;
  for (const fit::PodInfo& p : pods) out.push_back(&p);
  return out;
}

TEST(GangDecisionTest, AllOrNothing) {
  Search search;
  fit::Snapshot v = three_nodes();
  std::vector<fit::PodInfo> pods;
  for (int i = 0; i < 4; ++i)
    pods.push_back(fit::PodInfo::from(pod("g-" + std::to_string(i), "5")));
  GroupPolicy gang{"default/g", 4};
  GroupDecision d = decide_group(v, refs(pods), gang, {}, search);
  EXPECT_FALSE(d.bind);
  EXPECT_TRUE(d.bindings.empty());
  EXPECT_THAT(d.why, HasSubstr("pod group default/g: 4 pods cannot be placed together"));
  EXPECT_THAT(d.why, HasSubstr("0/3 nodes are available: 3 Insufficient cpu."));
  pods.pop_back();
  d = decide_group(v, refs(pods), gang, {}, search);
  EXPECT_FALSE(d.bind);
  EXPECT_EQ(d.why, "pod group default/g has 3 of its minMember 4 pods");
  gang.bound = 1;  // one already bound elsewhere (a scheduler killed mid-gang): the rest goes
  d = decide_group(v, refs(pods), gang, {}, search);
  ASSERT_TRUE(d.bind) << d.why;
  EXPECT_EQ(d.bindings.size(), 3u);
}

TEST(GangDecisionTest, SameNodeGroupsAndIsolation) {
  Search search;
  fit::Snapshot v = three_nodes();
  v.add_pod(pod("busy", "7", R"({"scheduling.x-k8s.io/pod-group":"other"})", "a"));
  std::vector<fit::PodInfo> pods = {fit::PodInfo::from(pod("p0", "3")),
                                    fit::PodInfo::from(pod("p1", "3"))};
  GroupPolicy same{"default/ci", 2};
  same.colocate = true;
  GroupDecision d = decide_group(v, refs(pods), same, {}, search);
  ASSERT_TRUE(d.bind) << d.why;
  EXPECT_EQ(d.bindings[0].node, d.bindings[1].node) << "one node for the whole group";
  EXPECT_NE(d.bindings[0].node, "a");
  // Where the group already runs, it stays.
  same.bound_node = "c";
  d = decide_group(v, refs(pods), same, {}, search);
  ASSERT_TRUE(d.bind);
  EXPECT_EQ(d.bindings[0].node, "c");
  // A node where an isolated group runs refuses other groups; an isolated group refuses nodes
  // with other groups.
  fit::Snapshot small;
  small.add_node(node("a", "8"));
  small.add_pod(pod("x", "1", R"({"scheduling.x-k8s.io/pod-group":"other"})", "a"));
  GroupPolicy plain{"default/ci", 2};
  d = decide_group(small, refs(pods), plain, {"default/other"}, search);
  EXPECT_FALSE(d.bind);
  EXPECT_THAT(d.why, HasSubstr("node(s) were isolated for pod group default/other"));
  GroupPolicy isolating = plain;
  isolating.isolate = true;
  d = decide_group(small, refs(pods), isolating, {}, search);
  EXPECT_THAT(d.why, HasSubstr("node(s) ran pods of another pod group"));
}

TEST(GangDecisionTest, PodAffinityFollowsTheFirstPodAndAntiAffinityOfPlacedPodsHolds) {
  Search search;
  fit::Snapshot v = three_nodes();
  const char* follow =
      R"(,"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"db"}},"topologyKey":"kubernetes.io/hostname"}]}})";
  // Three pods that follow pods labelled app=db, none of which exists: the first-pod rule lets
  // the first go anywhere, and the others follow it (the gang places them in one decision).
  std::vector<fit::PodInfo> pods;
  for (int i = 0; i < 3; ++i)
    pods.push_back(
        fit::PodInfo::from(pod("db-" + std::to_string(i), "1", R"({"app":"db"})", "", follow)));
  GroupPolicy gang{"default/db", 3};
  GroupDecision d = decide_group(v, refs(pods), gang, {}, search);
  ASSERT_TRUE(d.bind) << d.why;
  EXPECT_EQ(d.bindings[0].node, d.bindings[1].node);
  EXPECT_EQ(d.bindings[1].node, d.bindings[2].node);
  // A pod that does not match its own term cannot start alone.
  std::vector<fit::PodInfo> lonely = {
      fit::PodInfo::from(pod("web", "1", R"({"app":"web"})", "", follow))};
  d = decide_group(v, refs(lonely), GroupPolicy{}, {}, search);
  EXPECT_FALSE(d.bind);
  EXPECT_THAT(d.why, HasSubstr("3 node(s) didn't match pod affinity rules"));
  // A placed pod's anti-affinity keeps matching pods off its node.
  const char* repel =
      R"(,"affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}})";
  fit::Snapshot one;
  one.add_node(node("a", "8"));
  one.add_pod(pod("guard", "1", "{}", "a", repel));
  std::vector<fit::PodInfo> web = {fit::PodInfo::from(pod("web", "1", R"({"app":"web"})"))};
  d = decide_group(one, refs(web), GroupPolicy{}, {}, search);
  EXPECT_FALSE(d.bind);
  EXPECT_THAT(d.why, HasSubstr("1 node(s) didn't satisfy existing pods anti-affinity rules"));
}

// kube-scheduler's default percentageOfNodesToScore, adaptive: every node below 100, then 50%
// less 1% per 125 nodes, never under 5% or 100 nodes.
TEST(GangDecisionTest, ASearchStopsAtAsManyFeasibleNodesAsKubeSchedulerScores) {
  EXPECT_EQ(feasible_nodes_to_find(50), 50u);
  EXPECT_EQ(feasible_nodes_to_find(100), 100u);
  EXPECT_EQ(feasible_nodes_to_find(150), 100u);  // 49% of 150 is 73: at least 100
  EXPECT_EQ(feasible_nodes_to_find(1000), 420u);
  EXPECT_EQ(feasible_nodes_to_find(5000), 500u);
  EXPECT_EQ(feasible_nodes_to_find(15000), 750u);  // 5%
  // Successive pods start where the last search stopped, so that they spread over the cluster.
  fit::Snapshot v;
  for (int i = 0; i < 1000; ++i) v.add_node(node(fmt_node(i), "8"));
  Search search;
  std::vector<fit::PodInfo> first = {fit::PodInfo::from(pod("p0", "1"))};
  std::vector<fit::PodInfo> second = {fit::PodInfo::from(pod("p1", "1"))};
  GroupDecision a = decide_group(v, refs(first), GroupPolicy{}, {}, search);
  EXPECT_EQ(search.next_start, 420u);
  GroupDecision b = decide_group(v, refs(second), GroupPolicy{}, {}, search);
  EXPECT_EQ(search.next_start, 840u);
  ASSERT_TRUE(a.bind && b.bind);
  EXPECT_LT(std::stoi(a.bindings[0].node.substr(1)), 420);
  EXPECT_GE(std::stoi(b.bindings[0].node.substr(1)), 420);
}

// Two pods of a gang mount one claim of a WaitForFirstConsumer class: the claim binds with the
// first, and the second goes where the claim now ties it, not wherever it fits.
TEST(GangDecisionTest, AGangSharingAWaitingClaimBindsItOnceAndFollowsIt) {
  Search search;
  fit::Snapshot v = three_nodes();
  v.add_volume_object(json::parse(R"({"kind":"StorageClass","metadata":{"name":"local"},
      "provisioner":"sim.planter.io/local","volumeBindingMode":"WaitForFirstConsumer"})")
                          .as_object());
  v.add_volume_object(json::parse(R"({"kind":"PersistentVolumeClaim","metadata":{"name":"work",
      "namespace":"default","uid":"c1"},"spec":{"storageClassName":"local",
      "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})")
                          .as_object());
  const char* mount = R"(,"volumes":[{"name":"w","persistentVolumeClaim":{"claimName":"work"}}])";
  std::vector<fit::PodInfo> pods;
  // Each pod takes 3 of a node's 8 cpus: on its own, the second would go to an emptier node.
  for (int i = 0; i < 2; ++i)
    pods.push_back(fit::PodInfo::from(pod("w-" + std::to_string(i), "3", "{}", "", mount)));
  GroupDecision d = decide_group(v, refs(pods), GroupPolicy{"default/w", 2}, {}, search);
  ASSERT_TRUE(d.bind) << d.why;
  EXPECT_EQ(d.bindings[0].node, d.bindings[1].node);
  size_t claims = d.bindings[0].claims.size() + d.bindings[1].claims.size();
  ASSERT_EQ(claims, 1u) << "the claim is bound once";
  const ClaimChoice& c =
      d.bindings[0].claims.empty() ? d.bindings[1].claims[0] : d.bindings[0].claims[0];
  EXPECT_EQ(c.claim, "work");
  EXPECT_EQ(c.volume, "") << "provisioned where the pods go";
  // The decision was scratch: the claim waits again.
  EXPECT_TRUE(v.claim("default", "work")->selected_node.empty());
}

// Dynamic Resource Allocation in a gang (kube-scheduler's DynamicResources Reserve): each pod's
// own claim (made from its template, named in its status) is allocated where it goes, the devices
// of the first pod are not the second's, and a claim that does not exist yet holds the gang back.
TEST(GangDecisionTest, AGangsClaimsAreAllocatedOnTheirNodesAndTakeDistinctDevices) {
  Search search;
  fit::Snapshot v = three_nodes();
  v.set_volumes_complete();
  v.add_volume_object(json::parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass",
      "metadata":{"name":"gpu"},"spec":{}})")
                          .as_object());
  v.add_volume_object(json::parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice",
      "metadata":{"name":"a-gpus"},"spec":{"driver":"gpu.example.com","nodeName":"a",
      "pool":{"name":"a","generation":1,"resourceSliceCount":1},
      "devices":[{"name":"gpu-0"},{"name":"gpu-1"}]}})")
                          .as_object());
  std::vector<fit::PodInfo> pods;
  for (int i = 0; i < 2; ++i) {
    std::string claim = "t-" + std::to_string(i) + "-gpu-x";
    v.add_volume_object(json::parse(R"({"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim",
        "metadata":{"name":")" + claim +
                                    R"(","namespace":"default"},"spec":{"devices":{
        "requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}})")
                            .as_object());
    json::object p = pod("t-" + std::to_string(i), "1", "{}", "",
                         R"(,"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one"}])");
    p["status"] =
        json::object{{"resourceClaimStatuses",
                      json::array{json::object{{"name", "gpu"}, {"resourceClaimName", claim}}}}};
    pods.push_back(fit::PodInfo::from(p));
  }
  GroupDecision d = decide_group(v, refs(pods), GroupPolicy{"default/t", 2}, {}, search);
  ASSERT_TRUE(d.bind) << d.why;
  std::set<std::string> devices;
  for (const Binding& b : d.bindings) {
    EXPECT_EQ(b.node, "a");
    ASSERT_EQ(b.devices.size(), 1u);
    EXPECT_EQ(b.devices[0].claim, b.pod->name + "-gpu-x");
    ASSERT_EQ(b.devices[0].allocation.results.size(), 1u);
    devices.insert(b.devices[0].allocation.results[0].second);
    json::object status = allocation_of(b.devices[0], b.node);
    EXPECT_EQ(
        json::serialize(status.at("nodeSelector")),
        R"({"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["a"]}]}]})");
  }
  EXPECT_EQ(devices, (std::set<std::string>{"gpu.example.com/a/gpu-0", "gpu.example.com/a/gpu-1"}));

  // A third pod whose claim the controller has not made yet waits for it.
  fit::PodInfo late = fit::PodInfo::from(
      pod("late", "1", "{}", "",
          R"(,"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"one"}])"));
  GroupDecision w = decide_group(v, {&late}, GroupPolicy{}, {}, search);
  EXPECT_FALSE(w.bind);
  EXPECT_THAT(w.why, HasSubstr("pod \"default/late\": ResourceClaim not created yet"));
}

}  // namespace
}  // namespace planter::scheduler
