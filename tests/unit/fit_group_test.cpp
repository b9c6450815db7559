// planter's fit model's group decision (src/fit/group.h): where a whole stack fits, under its
// policy, with every filter of the fit model. Expectations are worked out by hand from the
// Kubernetes documentation ("Resource Management for Pods and Containers", "Taints and
// Tolerations", "Assigning Pods to Nodes", "Inter-pod affinity and anti-affinity").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <limits>

#include "fit/group.h"
#include "fit/snapshot.h"

namespace planter::fit {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;

json::object parse(std::string_view text) {
  return json::parse(text).as_object();
}

// A node with 110 pod slots; `labels` are added to its hostname label (JSON members), `spec` is
// its spec (JSON), `extra` more allocatable members (JSON).
json::object node(const std::string& name, const std::string& cpu, const std::string& memory,
                  const std::string& spec = "{}", const std::string& labels = "",
                  const std::string& extra = "") {
  return parse(R"({"metadata":{"name":")" + name + R"(","labels":{"kubernetes.io/hostname":")" +
               name + "\"" + (labels.empty() ? "" : "," + labels) + R"(}},"spec":)" + spec +
               R"(,"status":{"allocatable":{"cpu":")" + cpu + R"(","memory":")" + memory +
               R"(","pods":"110")" + (extra.empty() ? "" : "," + extra) + "}}}");
}

json::object pod(const std::string& on, const std::string& cpu, const std::string& memory,
                 const std::string& stack = "", const std::string& phase = "Running") {
  std::string labels = stack.empty() ? "{}" : R"({"planter.nephio.org/stack":")" + stack + "\"}";
  return parse(R"({"metadata":{"name":"p","namespace":"default","labels":)" + labels +
               R"(},"spec":{"nodeName":")" + on +
               R"(","containers":[{"name":"c","resources":{"requests":{"cpu":")" + cpu +
               R"(","memory":")" + memory + R"("}}}]},"status":{"phase":")" + phase + "\"}}");
}

// A kind of pod: `count` pods each requesting `cpu` cores and `memory` bytes; `spec_extra` is
// JSON members added to its spec, `requests_extra` to its requests.
PodKind kind(int64_t count, double cpu, double memory, const std::string& spec_extra = "",
             const std::string& requests_extra = "", const std::string& labels = "{}") {
  json::object p =
      parse(R"({"metadata":{"name":"m","namespace":"default","labels":)" + labels +
            R"(},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":)" +
            std::to_string(cpu) + R"(,"memory":)" + std::to_string(static_cast<int64_t>(memory)) +
            (requests_extra.empty() ? "" : "," + requests_extra) + "}}}]" +
            (spec_extra.empty() ? "" : "," + spec_extra) + "}}");
  return {PodInfo::from(p), count, false};
}

Group stack(const std::string& name, std::vector<std::pair<int64_t, double>> pods,
            double memory_each = 1024.0 * 1024 * 1024) {
  Group g;
  g.name = name;
  for (auto [count, cpu] : pods) g.kinds.push_back(kind(count, cpu, memory_each));
  return g;
}

TEST(GroupFitTest, ACoLocatedStackGoesToTheNodeLeftLeastAllocated) {
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  c.add_node(node("c", "4", "32Gi"));
  c.add_pod(pod("a", "3", "1Gi"));
  Group s = stack("db", {{2, 1.5}});
  s.colocated_on = "kubernetes.io/hostname";
  GroupFit f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_key, "kubernetes.io/hostname");
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"b"});
  EXPECT_EQ(f.where, "node b (leaves 5 cpu, 30Gi free)");
  EXPECT_EQ(f.placed.at("b").milli_cpu, 3000);

  // Where it already runs, it stays (a replant), even though b has more room.
  c.add_pod(pod("c", "1", "1Gi", "db"), {"db"});
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits);
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"c"});
}

TEST(GroupFitTest, WhyNoNodeHoldsIt) {
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi", R"({"unschedulable":true})"));
  c.add_node(node("c", "16", "32Gi"));
  c.add_pod(pod("a", "2", "1Gi"));
  c.add_pod(pod("c", "1", "1Gi", "moodle-b"));
  Group s = stack("moodle-a", {{3, 2}, {1, 1.5}}, 1.5 * 1024 * 1024 * 1024);
  s.colocated_on = "kubernetes.io/hostname";
  s.avoid = {"moodle-b"};
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.why,
            "stack moodle-a needs 7.5 cpu, 6Gi, 4 pods on one node; 0/3 nodes are available: 1 "
            "Insufficient cpu, 1 node(s) had pods of stack moodle-b, which moodle-a is separated "
            "from, 1 node(s) were unschedulable; the best node, a, has 6 cpu, 31Gi free");
}

TEST(GroupFitTest, DedicatedStackOnlyOnItsNodesAndDaemonSetPodsCount) {
  Snapshot c;
  c.add_node(node("pool", "8", "32Gi"));
  c.add_node(node("gold", "2", "32Gi",
                  R"({"taints":[{"key":"tenant","value":"gold","effect":"NoSchedule"}]})",
                  R"("tenant":"gold")"));
  Group s = stack("vip", {{1, 1.5}});
  s.colocated_on = "kubernetes.io/hostname";
  const std::string dedicated =
      R"("tolerations":[{"key":"tenant","value":"gold","effect":"NoSchedule"}],)"
      R"("affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":)"
      R"({"nodeSelectorTerms":[{"matchExpressions":[{"key":"tenant","operator":"In",)"
      R"("values":["gold"]}]}]}}})";
  s.kinds[0] = kind(1, 1.5, 1 << 30, dedicated);
  GroupFit f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"gold"});
  // A DaemonSet member's pod goes along on the node: 1.5 + 1 > 2.
  PodKind daemon = kind(0, 1, 1 << 30, dedicated);
  daemon.per_node = true;
  s.kinds.push_back(daemon);
  f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 node(s) didn't match Pod's node affinity/selector"));
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 Insufficient cpu"));
}

TEST(GroupFitTest, PodsThatFitInSumMayNotPackOntoTheNodes) {
  Snapshot c;
  c.add_node(node("a", "5", "32Gi"));
  c.add_node(node("b", "5", "32Gi"));
  Group s = stack("spread", {{3, 3}});  // 9 cpu of 10, but one 3-cpu pod per node
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.why,
            "stack spread needs 9 cpu, 3Gi in 3 pods; they do not all fit on the 2 node(s) that "
            "may run them (10 cpu, 64Gi free in all); a pod of m: 0/2 nodes are available: 2 "
            "Insufficient cpu");
  s = stack("spread", {{2, 3}, {2, 2}});  // 3+2 on each node
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_TRUE(f.steer_key.empty()) << "only co-located stacks are steered";
  EXPECT_EQ(f.placed.at("a").milli_cpu, 5000);
  EXPECT_EQ(f.placed.at("b").milli_cpu, 5000);
}

TEST(GroupFitTest, PodsAreCountedNeverListed) {
  // 2^31-1 replicas on a node that says it takes 10^12 pods: one entry per pod was a bad_alloc
  // (issue 29). The node's count is clamped to int32 as the stack's is; the answer is immediate.
  Snapshot c;
  json::object big = node("big", "1e12", "1e18");
  big["status"].as_object()["allocatable"].as_object()["pods"] = "1e12";
  c.add_node(big);
  c.add_node(node("small", "4", "8Gi"));
  Group s = stack("huge", {{std::numeric_limits<int32_t>::max(), 0.001}}, 1024);
  GroupFit f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  int64_t placed = 0;
  for (const auto& [n, u] : f.placed) placed += u.milli_cpu;  // 1m each
  EXPECT_EQ(placed, std::numeric_limits<int32_t>::max());
  // One more kind than the nodes hold: refused, with the count in the words.
  s.kinds.push_back(s.kinds.front());
  f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, ::testing::HasSubstr("4294967294 pods"));
}

TEST(GroupFitTest, CoLocatedOnAZoneFitsOneZonesNodes) {
  Snapshot c;
  for (auto [name, zone] : {std::pair{"a1", "a"}, {"a2", "a"}, {"b1", "b"}})
    c.add_node(node(name, "4", "8Gi", "{}",
                    std::string(R"("topology.kubernetes.io/zone":")") + zone + "\""));
  c.add_node(node("nozone", "64", "64Gi"));
  Group s = stack("z", {{3, 2.5}});  // 7.5 cpu of zone a's 8, but one such pod per node
  s.colocated_on = "topology.kubernetes.io/zone";
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits) << "2.5-cpu pods: one per 4-cpu node, and zone a has two nodes";
  EXPECT_THAT(f.why, ::testing::HasSubstr("1 node(s) had no topology.kubernetes.io/zone label"));
  s = stack("z", {{2, 2.5}, {2, 1}});
  s.colocated_on = "topology.kubernetes.io/zone";
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"a"});
  EXPECT_EQ(f.where, "topology.kubernetes.io/zone=a (2 node(s))");
}

TEST(GroupFitTest, AReleasedStackHoldsItsPlacementBeforeItsPodsExist) {
  // "first" was released onto node a with one pod of 6 cpu; its pods are not there yet.
  json::object a = node("a", "8", "32Gi");
  Held held;
  held["first"].emplace_back(
      "a", PlacedPod{std::make_shared<PodInfo>(PodInfo::from(pod("a", "6", "1Gi", "first"))), 1});
  auto nodes = [&](const std::function<void(const json::object&)>& fn) { fn(a); };
  auto no_pods = [](const std::function<void(const json::object&)>&) {};
  Group s = stack("second", {{1, 3}});
  s.colocated_on = "kubernetes.io/hostname";
  EXPECT_FALSE(fit_group_on(s, nodes, no_pods, held).fits);
  s.avoid = {"first"};
  EXPECT_THAT(fit_group_on(s, nodes, no_pods, held).why,
              ::testing::HasSubstr("had pods of stack first"));
}

TEST(GroupFitTest, ExtendedResourcesAreCountedAndSaidInKubeSchedulersWords) {
  // Two pods of one GPU each; one GPU node, one tainted GPU node, one without GPUs.
  Snapshot c;
  c.add_node(node("gpu-0", "8", "32Gi", "{}", "", R"("nvidia.com/gpu":"1")"));
  c.add_node(node("gpu-1", "8", "32Gi",
                  R"({"taints":[{"key":"gpu","value":"only","effect":"NoSchedule"}]})", "",
                  R"("nvidia.com/gpu":"4")"));
  c.add_node(node("cpu-0", "8", "32Gi"));
  Group s;
  s.name = "train";
  s.colocated_on = "kubernetes.io/hostname";
  s.kinds.push_back(kind(2, 1, 1 << 30, "", R"("nvidia.com/gpu":"1")"));
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_EQ(f.why,
            "stack train needs 2 cpu, 2Gi, 2 nvidia.com/gpu, 2 pods on one node; 0/3 nodes are "
            "available: 1 node(s) had untolerated taint {gpu: only}, 2 Insufficient "
            "nvidia.com/gpu; the best node, gpu-0, has 8 cpu, 32Gi, 1 nvidia.com/gpu free");
  // Not co-located: one pod per GPU still needs two GPUs in all.
  s.colocated_on.clear();
  f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("2 Insufficient nvidia.com/gpu"));
  // A second GPU node: released, one pod on each.
  c.add_node(node("gpu-2", "8", "32Gi", "{}", "", R"("nvidia.com/gpu":"1")"));
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.placed.size(), 2u);
  EXPECT_EQ(f.placed.at("gpu-0").get("nvidia.com/gpu"), 1);
  EXPECT_EQ(f.placed.at("gpu-2").get("nvidia.com/gpu"), 1);
}

TEST(GroupFitTest, SelfAntiAffinityNeedsANodePerPod) {
  const std::string anti =
      R"("affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[)"
      R"({"topologyKey":"kubernetes.io/hostname","labelSelector":{"matchLabels":{"app":"zk"}}}]}})";
  Group s;
  s.name = "zk";
  s.kinds.push_back(kind(3, 1, 1 << 30, anti, "", R"({"app":"zk"})"));
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits) << "three members, two nodes";
  EXPECT_THAT(f.why, HasSubstr("2 node(s) didn't match pod anti-affinity rules"));
  c.add_node(node("c", "8", "32Gi"));
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.placed.size(), 3u) << "one member on each node";
}

TEST(GroupFitTest, HostPortsAndExistingPodsAntiAffinity) {
  const std::string port = R"("containers":[{"name":"c","ports":[{"hostPort":8080}],)"
                           R"("resources":{"requests":{"cpu":"1"}}}])";
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  c.add_pod(parse(R"({"metadata":{"name":"web","namespace":"default"},"spec":{"nodeName":"a",
                      "containers":[{"name":"c","ports":[{"hostPort":8080}]}]}})"));
  Group s;
  s.name = "proxy";
  s.kinds.push_back({PodInfo::from(parse(R"({"metadata":{"name":"proxy","namespace":"default"},
                                            "spec":{)" +
                                         port + "}}")),
                     2, false});
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("a pod of proxy: 0/2 nodes are available: 2 node(s) didn't have "
                               "free ports for the requested pod ports"));
  s.kinds[0].count = 1;
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.placed.begin()->first, "b");
}

TEST(GroupFitTest, OnTheAnchorsNodeOnlyThatNodeIsAsked) {
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  c.add_pod(pod("a", "6", "1Gi"));  // someone else's pod landed on the anchor's node
  Group s = stack("ci", {{3, 1}});
  s.only_node = "a";
  GroupFit f = fit_group(s, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("0/1 nodes are available: 1 Insufficient cpu"));
  s.only_node = "b";
  f = fit_group(s, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"b"});
}

// A claim with the ReadWriteOncePod access mode is one pod's: a stack of two pods that mount it
// never fits, wherever the room; with one pod it fits, unless a pod elsewhere already uses it.
TEST(GroupFitTest, AReadWriteOncePodClaimHoldsOnePodOfTheGroup) {
  auto with = [](Snapshot& c) {
    c.add_node(node("a", "8", "32Gi"));
    c.add_node(node("b", "8", "32Gi"));
    c.add_volume_object(parse(R"({"kind":"PersistentVolumeClaim","metadata":{"name":"solo",
        "namespace":"default"},"spec":{"volumeName":"pv","accessModes":["ReadWriteOncePod"]}})"));
    c.add_volume_object(parse(R"({"kind":"PersistentVolume","metadata":{"name":"pv"}})"));
  };
  const std::string mounts =
      R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"solo"}}])";
  Group two;
  two.name = "db";
  two.kinds.push_back(kind(2, 1, 1 << 30, mounts));
  Snapshot c;
  with(c);
  GroupFit f = fit_group(two, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("0/2 nodes are available: 2 node has pod using "
                               "PersistentVolumeClaim with the same name and ReadWriteOncePod "
                               "access mode"));
  Group one = two;
  one.kinds[0].count = 1;
  f = fit_group(one, c);
  EXPECT_TRUE(f.fits) << f.why;
  Snapshot used;
  with(used);
  used.add_pod(parse(R"({"metadata":{"name":"other","namespace":"default"},"spec":{"nodeName":"b",
      "containers":[{"name":"c"}],)" +
                     mounts + "}}"));
  f = fit_group(one, used);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("ReadWriteOncePod access mode"));
}

// An unbound claim of an Immediate class: as kube-scheduler's PreFilter, no node is looked at,
// and the reason is said once.
TEST(GroupFitTest, AnUnboundImmediateClaimIsSaidOnceForTheWholeCluster) {
  Snapshot c;
  c.add_node(node("a", "8", "32Gi"));
  c.add_node(node("b", "8", "32Gi"));
  c.add_volume_object(parse(R"({"kind":"StorageClass","metadata":{"name":"standard"},
      "provisioner":"csi.example.com","volumeBindingMode":"Immediate"})"));
  c.add_volume_object(parse(R"({"kind":"PersistentVolumeClaim","metadata":{"name":"data",
      "namespace":"default","uid":"u1"},"spec":{"storageClassName":"standard"}})"));
  Group g;
  g.name = "db";
  g.kinds.push_back(kind(
      1, 1, 1 << 30, R"("volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"data"}}])"));
  GroupFit f = fit_group(g, c);
  EXPECT_FALSE(f.fits);
  EXPECT_THAT(f.why, HasSubstr("stack db: a pod of m: 0/2 nodes are available: pod has unbound "
                               "immediate PersistentVolumeClaims"));
}

// Local volumes made by hand (kubernetes.io/no-provisioner, WaitForFirstConsumer): a co-located
// stack whose claims wait for their first consumer goes to the node whose volumes can bind them
// all, though another node has more room.
TEST(GroupFitTest, ClaimsWaitingForTheirFirstConsumerGoWhereVolumesCanBindThem) {
  Snapshot c;
  c.add_node(node("small", "4", "8Gi"));
  c.add_node(node("big", "32", "128Gi"));
  c.add_volume_object(parse(R"({"kind":"StorageClass","metadata":{"name":"local"},
      "provisioner":"kubernetes.io/no-provisioner","volumeBindingMode":"WaitForFirstConsumer"})"));
  for (const char* name : {"data", "logs"})
    c.add_volume_object(
        parse(std::string(R"({"kind":"PersistentVolumeClaim","metadata":{"name":")") + name +
              R"(","namespace":"default"},"spec":{"storageClassName":"local",
        "accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}})"));
  for (const char* pv : {"small-1", "small-2", "big-1"})
    c.add_volume_object(parse(std::string(R"({"kind":"PersistentVolume","metadata":{"name":")") +
                              pv + R"("},"spec":{"storageClassName":"local","accessModes":
        ["ReadWriteOnce"],"capacity":{"storage":"10Gi"},"nodeAffinity":{"required":
        {"nodeSelectorTerms":[{"matchExpressions":[{"key":"kubernetes.io/hostname",
        "operator":"In","values":[")" +
                              std::string(pv).substr(0, std::string(pv).find('-')) +
                              R"("]}]}]}}}})"));
  Group g;
  g.name = "db";
  g.colocated_on = "kubernetes.io/hostname";
  g.kinds.push_back(kind(1, 1, 1 << 30,
                         R"("volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}},
                           {"name":"l","persistentVolumeClaim":{"claimName":"logs"}}])"));
  GroupFit f = fit_group(g, c);
  ASSERT_TRUE(f.fits) << f.why;
  EXPECT_EQ(f.steer_values, std::vector<std::string>{"small"});
}

// A watch of Nodes for the fit keeps what the fit reads (keep_what_the_fit_reads): the
// snapshot made of what it kept is the snapshot made of the whole Node, and a Node's images,
// conditions, addresses, nodeInfo, annotations and managed fields are gone.
TEST(FitNodeView, WhatAWatchKeepsOfANodeIsWhatTheFitReads) {
  json::object whole = json::parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "worker-1", "uid": "8c6f", "resourceVersion": "4711",
      "labels": {"kubernetes.io/hostname": "worker-1", "topology.kubernetes.io/zone": "a"},
      "annotations": {"node.alpha.kubernetes.io/ttl": "0", "flannel.alpha.coreos.com/public-ip": "10.0.0.7"},
      "managedFields": [{"manager": "kubelet", "operation": "Update", "fieldsV1": {"f:status": {}}}]},
    "spec": {"podCIDR": "10.244.1.0/24", "providerID": "kind://docker/kind/worker-1",
      "unschedulable": true,
      "taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"}]},
    "status": {
      "allocatable": {"cpu": "7500m", "memory": "30Gi", "pods": "110", "nvidia.com/gpu": "2"},
      "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110", "nvidia.com/gpu": "2"},
      "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
        "message": "kubelet is posting ready status", "lastHeartbeatTime": "2026-11-30T10:00:00Z"}],
      "addresses": [{"type": "InternalIP", "address": "10.0.0.7"}],
      "images": [{"names": ["registry.k8s.io/pause:3.10"], "sizeBytes": 320368}],
      "nodeInfo": {"kubeletVersion": "v1.37.0", "osImage": "Debian GNU/Linux 12"}}
  })")
                           .as_object();
  json::object kept = whole;
  keep_what_the_fit_reads(kept);
  EXPECT_EQ(json::serialize(kept),
            R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"worker-1","uid":"8c6f",)"
            R"("resourceVersion":"4711","labels":{"kubernetes.io/hostname":"worker-1",)"
            R"("topology.kubernetes.io/zone":"a"}},"spec":{"taints":[{"key":"gpu","value":"yes",)"
            R"("effect":"NoSchedule"}],"unschedulable":true},"status":{"allocatable":{"cpu":)"
            R"("7500m","memory":"30Gi","pods":"110","nvidia.com/gpu":"2"},"capacity":{"cpu":"8",)"
            R"("memory":"32Gi","pods":"110","nvidia.com/gpu":"2"}}})");
  Snapshot from_whole, from_kept;
  from_whole.add_node(whole);
  from_kept.add_node(kept);
  ASSERT_EQ(from_kept.nodes().size(), 1u);
  const NodeInfo &a = from_whole.nodes()[0], &b = from_kept.nodes()[0];
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.labels, b.labels);
  ASSERT_EQ(b.taints.size(), 1u);
  EXPECT_EQ(b.taints[0].key, "gpu");
  EXPECT_TRUE(b.unschedulable);
  for (const char* r : {"cpu", "memory", "nvidia.com/gpu"})
    EXPECT_EQ(a.allocatable.get(r), b.allocatable.get(r)) << r;
  EXPECT_EQ(b.allocatable.get("cpu"), 7500);
  EXPECT_EQ(a.allowed_pods, b.allowed_pods);

  // A Node that says only its capacity is read from it, kept or whole.
  json::object bare = json::parse(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},
    "status":{"capacity":{"cpu":"2","pods":"10"},"images":[]}})")
                          .as_object();
  keep_what_the_fit_reads(bare);
  Snapshot from_bare;
  from_bare.add_node(bare);
  ASSERT_EQ(from_bare.nodes().size(), 1u);
  EXPECT_EQ(from_bare.nodes()[0].allocatable.get("cpu"), 2000);
  EXPECT_EQ(from_bare.nodes()[0].allowed_pods, 10);
}

}  // namespace
}  // namespace planter::fit
