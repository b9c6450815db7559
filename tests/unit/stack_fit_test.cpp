// planter's fit model (src/schedule): what a pod asks, which nodes a pod may use, and where a
// stack fits. Expectations are worked out by hand from the Kubernetes documentation ("Resource
// Management for Pods and Containers", "Sidecar containers", "Taints and Tolerations",
// "Assigning Pods to Nodes").
#include "schedule/stack_fit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <limits>

#include "schedule/cluster_view.h"
#include "schedule/node_filter.h"

namespace planter::schedule {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) {
  return json::parse(text).as_object();
}

// A node with 110 pod slots; `labels` are added to its hostname label (JSON members), `spec` is
// its spec (JSON).
json::object node(const std::string& name, const std::string& cpu, const std::string& memory,
                  const std::string& spec = "{}", const std::string& labels = "") {
  return parse(R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
               name + "\"" + (labels.empty() ? "" : "," + labels) + R"(}},"spec":)" + spec +
               R"(,"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" + memory +
               R"(","pods":"110"}}})");
}

json::object pod(const std::string& on, const std::string& cpu, const std::string& memory,
                 const std::string& stack = "", const std::string& phase = "Running") {
  std::string labels = stack.empty() ? "{}" : R"({"planter.nephio.org/stack":")" + stack + "\"}";
  return parse(R"({"metadata":{"name":"p","labels":)" + labels + R"(},"spec":{"nodeName":")" + on +
               R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
               R"(","memory":")" + memory + R"("}}}]},"status":{"phase":")" + phase + "\"}}");
}

StackNeeds stack(const std::string& name, std::vector<std::pair<int64_t, double>> pods,
                 double memory_each = 1024.0 * 1024 * 1024) {
  StackNeeds s;
  s.name = name;
  s.atomic = true;
  for (auto [count, cpu] : pods) {
    StackPods p;
    p.count = count;
    p.cpu = cpu;
    p.memory = memory_each;
    s.pod_kinds.push_back(p);
  }
  return s;
}

TEST(PodRequestsTest, ContainersAddUpInitContainersPeakSidecarsStayAndOverheadAdds) {
  auto p = parse(R"({"spec":{
    "containers":[{"resources":{"requests":{"cpu":"250m","memory":"64Mi"}}},
                  {"resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],
    "initContainers":[{"restartPolicy":"Always","resources":{"requests":{"cpu":"100m"}}},
                      {"resources":{"requests":{"cpu":"2","memory":"10Mi"}}}],
    "overhead":{"cpu":"50m"}}})");
  Usage u = pod_requests(p);
  // containers 1.25 + sidecar 0.1 = 1.35; the init container runs beside the sidecar: 2.1 > 1.35.
  EXPECT_NEAR(u.cpu, 2.1 + 0.05, 1e-9);
  EXPECT_NEAR(u.memory, (64.0 + 1024) * 1024 * 1024, 1);
  EXPECT_EQ(u.pods, 1);
}

TEST(ClusterViewTest, FinishedPodsAndPodsOfUncountedStacksUseNothing) {
  ClusterView c;
  c.add_node(node("n1", "4", "8Gi"));
  c.add_pod(pod("n1", "1", "1Gi"), {});
  c.add_pod(pod("n1", "1", "1Gi", "", "Succeeded"), {});
  c.add_pod(pod("n1", "2", "1Gi", "mine"), {"mine"});
  c.add_pod(pod("elsewhere", "1", "1Gi"), {});
  ASSERT_EQ(c.nodes().size(), 1u);
  EXPECT_DOUBLE_EQ(c.nodes()[0].free().cpu, 3);
  EXPECT_EQ(c.nodes()[0].free().pods, 109);
  EXPECT_TRUE(c.nodes()[0].stacks.contains("mine"));
}

TEST(NodeFilterTest, CordonTaintsAndNodeAffinity) {
  ClusterView c;
  c.add_node(node("cordoned", "4", "8Gi", R"({"unschedulable":true})"));
  c.add_node(node("gold", "4", "8Gi",
                  R"({"taints":[{"key":"tenant","value":"gold","effect":"NoSchedule"},
                                {"key":"soft","effect":"PreferNoSchedule"}]})"));
  const auto& n = c.nodes();
  PodConstraints none;
  EXPECT_EQ(node_refuses(n[0], none), "node(s) were unschedulable");
  EXPECT_EQ(node_refuses(n[1], none), "node(s) had untolerated taint {tenant: gold}");
  json::array tolerate = json::parse(R"([{"key":"tenant","operator":"Equal","value":"gold",
                                          "effect":"NoSchedule"}])")
                             .as_array();
  json::array wrong_value = json::parse(R"([{"key":"tenant","value":"silver"}])").as_array();
  json::array everything = json::parse(R"([{"operator":"Exists"}])").as_array();
  EXPECT_EQ(node_refuses(n[1], {&tolerate}), "");
  EXPECT_NE(node_refuses(n[1], {&wrong_value}), "");
  EXPECT_EQ(node_refuses(n[1], {&everything}), "");
  EXPECT_EQ(node_refuses(n[0], {&everything}), "") << "tolerating the cordon's taint";

  json::array terms = json::parse(R"([
      {"matchExpressions":[{"key":"kubernetes.io/hostname","operator":"In","values":["x"]}]},
      {"matchFields":[{"key":"metadata.name","operator":"In","values":["gold"]}]}])")
                          .as_array();
  EXPECT_EQ(node_refuses(n[1], {&everything, nullptr, &terms}), "") << "terms are ORed";
  json::array empty_term = json::parse(R"([{}])").as_array();
  EXPECT_EQ(node_refuses(n[1], {&everything, nullptr, &empty_term}),
            "node(s) didn't match Pod's node affinity/selector");
  json::object selector = parse(R"({"kubernetes.io/hostname":"other"})");
  EXPECT_NE(node_refuses(n[1], {&everything, &selector, nullptr}), "");
}

TEST(StackFitTest, ACoLocatedStackGoesToTheNodeLeftLeastAllocated) {
  ClusterView c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  c.add_node(node("c", "4", "32Gi"));
  c.add_pod(pod("a", "3", "1Gi"), {});
  StackNeeds s = stack("db", {{2, 1.5}});
  s.colocated_on = "kubernetes.io/hostname";
  StackFit f = fit_stack(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_key, "kubernetes.io/hostname");
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"b"});
  EXPECT_EQ(f.where, "node b (leaves 5 cpu, 30Gi free)");
  EXPECT_DOUBLE_EQ(f.placed.at("b").cpu, 3);

  // Where it already runs, it stays (a replant), even though b has more room.
  c.add_pod(pod("c", "1", "1Gi", "db"), {"db"});
  f = fit_stack(s, c);
  ASSERT_TRUE(f.fits);
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"c"});
}

TEST(StackFitTest, WhyNoNodeHoldsIt) {
  ClusterView c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi", R"({"unschedulable":true})"));
  c.add_node(node("c", "16", "32Gi"));
  c.add_pod(pod("a", "2", "1Gi"), {});
  c.add_pod(pod("c", "1", "1Gi", "moodle-b"), {});
  StackNeeds s = stack("moodle-a", {{3, 2}, {1, 1.5}}, 1.5 * 1024 * 1024 * 1024);
  s.colocated_on = "kubernetes.io/hostname";
  s.avoid = {"moodle-b"};
  StackFit f = fit_stack(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.why,
            "stack moodle-a needs 7.5 cpu, 6Gi, 4 pods on one node; 0/3 nodes can hold it: 1 "
            "Insufficient cpu, 1 node(s) had pods of stack moodle-b, which moodle-a is separated "
            "from, 1 node(s) were unschedulable; the best node, a, has 6 cpu, 31Gi free");
}

TEST(StackFitTest, DedicatedStackOnlyOnItsNodesAndDaemonSetPodsCount) {
  ClusterView c;
  c.add_node(node("pool", "8", "32Gi"));
  c.add_node(node("gold", "2", "32Gi",
                  R"({"taints":[{"key":"tenant","value":"gold","effect":"NoSchedule"}]})",
                  R"("tenant":"gold")"));
  StackNeeds s = stack("vip", {{1, 1.5}});
  s.colocated_on = "kubernetes.io/hostname";
  s.pod_kinds[0].tolerations =
      json::parse(R"([{"key":"tenant","value":"gold","effect":"NoSchedule"}])").as_array();
  s.pod_kinds[0].node_terms =
      json::parse(R"([{"matchExpressions":[{"key":"tenant","operator":"In","values":["gold"]}]}])")
          .as_array();
  StackFit f = fit_stack(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"gold"});
  // A DaemonSet member's pod goes along on the node: 1.5 + 1 > 2.
  StackPods daemon = s.pod_kinds[0];
  daemon.per_node = true;
  daemon.cpu = 1;
  s.pod_kinds.push_back(daemon);
  f = fit_stack(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 node(s) didn't match Pod's node affinity/selector"));
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 Insufficient cpu"));
}

TEST(StackFitTest, PodsThatFitInSumMayNotPackOntoTheNodes) {
  ClusterView c;
  c.add_node(node("a", "5", "32Gi"));
  c.add_node(node("b", "5", "32Gi"));
  StackNeeds s = stack("spread", {{3, 3}});  // 9 cpu of 10, but one 3-cpu pod per node
  StackFit f = fit_stack(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.why,
            "stack spread needs 9 cpu, 3Gi in 3 pods; they do not all fit on the 2 node(s) that "
            "may run them (10 cpu, 64Gi free in all)");
  s = stack("spread", {{2, 3}, {2, 2}});  // 3+2 on each node
  f = fit_stack(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_TRUE(f.steer_key.empty()) << "only co-located stacks are steered";
  EXPECT_DOUBLE_EQ(f.placed.at("a").cpu, 5);
  EXPECT_DOUBLE_EQ(f.placed.at("b").cpu, 5);
}

TEST(StackFitTest, PodsAreCountedNeverListed) {
  // 2^31-1 replicas on a node that says it takes 10^12 pods: one entry per pod was a bad_alloc
  // (issue 29). The node's count is clamped to int32 as the stack's is; the answer is immediate.
  ClusterView c;
  json::object big = node("big", "1e12", "1e18");
  big["status"].as_object()["allocatable"].as_object()["pods"] = "1e12";
  c.add_node(big);
  c.add_node(node("small", "4", "8Gi"));
  StackNeeds s = stack("huge", {{std::numeric_limits<int32_t>::max(), 0.001}}, 1024);
  StackFit f = fit_stack(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  int64_t placed = 0;
  for (const auto& [n, u] : f.placed) placed += u.pods;
  EXPECT_EQ(placed, std::numeric_limits<int32_t>::max());
  // One more kind than the nodes hold: refused, with the count in the words.
  s.pod_kinds.push_back(s.pod_kinds.front());
  f = fit_stack(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, ::testing::HasSubstr("4294967294 pods"));
}

TEST(StackFitTest, CoLocatedOnAZoneFitsOneZonesNodes) {
  ClusterView c;
  for (auto [name, zone] : {std::pair{"a1", "a"}, {"a2", "a"}, {"b1", "b"}})
    c.add_node(node(name, "4", "8Gi", "{}",
                    std::string(R"("topology.kubernetes.io/zone":")") + zone + "\""));
  c.add_node(node("nozone", "64", "64Gi"));
  StackNeeds s = stack("z", {{3, 2.5}});  // 7.5 cpu of zone a's 8, but one such pod per node
  s.colocated_on = "topology.kubernetes.io/zone";
  StackFit f = fit_stack(s, c);
  EXPECT_FALSE(f.fits) << "2.5-cpu pods: one per 4-cpu node, and zone a has two nodes";
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 node(s) had no topology.kubernetes.io/zone label"));
  s = stack("z", {{2, 2.5}, {2, 1}});
  s.colocated_on = "topology.kubernetes.io/zone";
  f = fit_stack(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"a"});
  EXPECT_EQ(f.where, "topology.kubernetes.io/zone=a (2 node(s))");
}

TEST(StackFitTest, AReservationHoldsRoomForAReleasedStack) {
  ClusterView c;
  c.add_node(node("a", "8", "32Gi"));
  c.reserve("first", {{"a", Usage{6, 0, 3}}});
  StackNeeds s = stack("second", {{1, 3}});
  s.colocated_on = "kubernetes.io/hostname";
  EXPECT_FALSE(fit_stack(s, c).fits);
  s.avoid = {"first"};
  EXPECT_THAT(fit_stack(s, c).why, ::testing::HasSubstr("had pods of stack first"));
}

}  // namespace
}  // namespace planter::schedule
