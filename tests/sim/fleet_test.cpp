// The simulated fleet as kubectl sees it: Clusters that become reachable workload clusters,
// workloads, endpoints and APIServices that become ready after their delays, injected faults,
// and state that survives a killed sim.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <thread>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace json = boost::json;

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// `ready` events of the audit log, as "cluster what object" strings in order.
std::vector<std::string> ready_events(const SimProcess& sim) {
  std::vector<std::string> out;
  for (const auto& line : sim.audit_lines()) {
    auto v = json::parse(line).as_object();
    if (auto* e = v.if_contains("event"); !e || *e != "ready") continue;
    out.push_back(std::string(v.at("cluster").as_string()) + " " +
                  std::string(v.at("what").as_string()) + " " +
                  std::string(v.at("object").as_string()));
  }
  return out;
}

TEST(FleetTest, PlanterAndClusterApiClustersBecomeReachableWorkloadClusters) {
  SimProcess sim({"--provision-delay", "1000"});
  ASSERT_TRUE(sim.running());
  write_file(sim.dir() / "clusters.yaml", R"(apiVersion: v1
kind: Namespace
metadata: {name: fleet}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge-a, namespace: fleet}
spec:
  nodes:
  - {count: 2, labels: {profile: performance}}
  - name: gpu
    count: 1
    cpu: "64"
    memory: 256Gi
    pods: 20
    resources: {nvidia.com/gpu: 4}
    taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: edge-b, namespace: fleet}
spec:
  clusterNetwork: {pods: {cidrBlocks: [192.168.0.0/16]}}
)");
  auto applied = sim.kubectl("apply -f " + (sim.dir() / "clusters.yaml").string());
  ASSERT_EQ(applied.code, 0) << applied.err;
  // Not yet: provisioning takes --provision-delay.
  auto early = sim.kubectl("get clusters.planter.nephio.org edge-a -n fleet -o jsonpath={.status}");
  ASSERT_EQ(early.code, 0) << early.err;
  EXPECT_THAT(early.out, Not(HasSubstr("ready")));
  auto wait_a = sim.kubectl(
      "wait --for=jsonpath={.status.ready}=true clusters.planter.nephio.org/edge-a -n fleet "
      "--timeout=20s");
  ASSERT_EQ(wait_a.code, 0) << wait_a.err;
  auto wait_b = sim.kubectl(
      "wait --for=jsonpath={.status.phase}=Provisioned clusters.cluster.x-k8s.io/edge-b -n fleet "
      "--timeout=20s");
  ASSERT_EQ(wait_b.code, 0) << wait_b.err;
  auto cp = sim.kubectl(
      "get clusters.cluster.x-k8s.io edge-b -n fleet -o jsonpath={.status.controlPlaneReady}");
  EXPECT_EQ(cp.out, "true");
  auto ref = sim.kubectl(
      "get clusters.planter.nephio.org edge-a -n fleet -o "
      "jsonpath={.status.kubeconfigSecretRef.name}");
  EXPECT_EQ(ref.out, "edge-a-kubeconfig");

  for (const std::string name : {"edge-a", "edge-b"}) {
    // The kubeconfig from the Secret, key `value`, reaches the workload cluster.
    auto secret =
        sim.kubectl("get secret " + name + "-kubeconfig -n fleet -o jsonpath={.data.value}");
    ASSERT_EQ(secret.code, 0) << secret.err;
    auto path = sim.dir() / (name + ".kubeconfig");
    auto decoded = run_shell("echo " + secret.out + " | base64 -d > " + path.string());
    ASSERT_EQ(decoded.code, 0);
    auto ns = run_shell(kubectl_binary() + " --kubeconfig " + path.string() + " --cache-dir " +
                        (sim.dir() / ("cache-" + name)).string() + " get ns -o name");
    ASSERT_EQ(ns.code, 0) << ns.err;
    EXPECT_THAT(ns.out, HasSubstr("namespace/kube-system"));
    // And --kubeconfig-out gained a context for it.
    auto nodes = sim.kubectl("--context " + name + " get nodes -o name");
    ASSERT_EQ(nodes.code, 0) << nodes.err;
  }
  // The planter Cluster's node pools are its nodes.
  auto nodes = sim.kubectl("--context edge-a get nodes -l profile=performance -o name");
  EXPECT_EQ(nodes.out, "node/edge-a-node-1\nnode/edge-a-node-2\n");
  auto gpu = sim.kubectl(
      "--context edge-a get node edge-a-gpu-1 -o 'jsonpath={.status.allocatable.cpu}/"
      "{.status.allocatable.memory}/{.status.allocatable.pods}/"
      "{.status.allocatable.nvidia\\.com/gpu}/{.spec.taints[0].key}={.spec.taints[0].value}:"
      "{.spec.taints[0].effect}'");
  EXPECT_EQ(gpu.out, "64/256Gi/20/4/dedicated=gpu:NoSchedule") << gpu.err;

  auto events = ready_events(sim);
  EXPECT_THAT(events,
              ::testing::Contains(
                  "management provisioned planter.nephio.org/v1alpha1|Cluster|fleet|edge-a"));
  EXPECT_THAT(events, ::testing::Contains(
                          "management provisioned cluster.x-k8s.io/v1beta1|Cluster|fleet|edge-b"));

  // Deleting the Cluster removes the workload cluster, its Secret and its context.
  auto del = sim.kubectl("delete clusters.cluster.x-k8s.io edge-b -n fleet");
  ASSERT_EQ(del.code, 0) << del.err;
  // The audit log says when the workload cluster is gone; then the rest must be too.
  const std::string removed = "management removed cluster.x-k8s.io/v1beta1|Cluster|fleet|edge-b";
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       std::chrono::steady_clock::now() < end;) {
    auto now = ready_events(sim);
    if (std::find(now.begin(), now.end(), removed) != now.end()) break;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto contexts = sim.kubectl("config get-contexts -o name");
  EXPECT_THAT(contexts.out, Not(HasSubstr("edge-b")));
  EXPECT_THAT(contexts.out, HasSubstr("edge-a"));
  auto secrets = sim.kubectl("get secrets -n fleet -o name");
  EXPECT_EQ(secrets.out, "secret/edge-a-kubeconfig\n");
  EXPECT_THAT(ready_events(sim), ::testing::Contains(removed));
}

TEST(FleetTest, DeploymentServiceAndApiServiceBecomeReadyAfterTheirDelays) {
  SimProcess sim({"--workload-delay", "1500", "--clusters", "1"});
  ASSERT_TRUE(sim.running());
  write_file(sim.dir() / "metrics.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: metrics-server, namespace: kube-system}
spec:
  replicas: 2
  selector: {matchLabels: {app: metrics-server}}
  template:
    metadata: {labels: {app: metrics-server}}
    spec:
      containers:
      - name: metrics-server
        image: registry.k8s.io/metrics-server/metrics-server:v0.7.2
        ports: [{name: https, containerPort: 10250}]
---
apiVersion: v1
kind: Service
metadata: {name: metrics-server, namespace: kube-system}
spec:
  selector: {app: metrics-server}
  ports: [{name: https, port: 443, targetPort: https}]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {name: metrics-server, namespace: kube-system}
)");
  auto applied = sim.kubectl("--context edge1 apply -f " + (sim.dir() / "metrics.yaml").string());
  ASSERT_EQ(applied.code, 0) << applied.err;
  auto start = std::chrono::steady_clock::now();
  // Before the delay: nothing is ready, and the APIService says why.
  auto early = sim.kubectl(
      "--context edge1 get apiservice v1beta1.metrics.k8s.io -o "
      "jsonpath={.status.conditions[0].reason}");
  EXPECT_EQ(early.out, "MissingEndpoints");
  auto ip = sim.kubectl(
      "--context edge1 get svc metrics-server -n kube-system -o "
      "jsonpath={.spec.clusterIP}");
  EXPECT_THAT(ip.out, HasSubstr("10.96."));

  auto deploy = sim.kubectl(
      "--context edge1 wait --for=condition=Available deploy/metrics-server -n kube-system "
      "--timeout=20s");
  ASSERT_EQ(deploy.code, 0) << deploy.err;
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  auto rollout = sim.kubectl("--context edge1 rollout status deploy/metrics-server -n kube-system");
  EXPECT_THAT(rollout.out, HasSubstr("successfully rolled out"));
  auto slice = sim.kubectl(
      "--context edge1 wait --for=jsonpath={.endpoints[1].conditions.ready}=true endpointslice "
      "-l kubernetes.io/service-name=metrics-server -n kube-system --timeout=20s");
  ASSERT_EQ(slice.code, 0) << slice.err;
  auto port = sim.kubectl(
      "--context edge1 get endpointslice -l kubernetes.io/service-name=metrics-server -n "
      "kube-system -o jsonpath={.items[0].ports[0].port}");
  EXPECT_EQ(port.out, "10250");  // the named targetPort, resolved
  auto api = sim.kubectl(
      "--context edge1 wait --for=condition=Available apiservice/v1beta1.metrics.k8s.io "
      "--timeout=20s");
  ASSERT_EQ(api.code, 0) << api.err;

  // Each readiness in the audit log, in the order it must happen. The Service's endpoints and
  // the Deployment's availability both follow the pods becoming ready, in no set order between
  // them (as in Kubernetes); the APIService follows the endpoints.
  auto events = ready_events(sim);
  auto at = [&](const std::string& e) {
    return std::find(events.begin(), events.end(), e) - events.begin();
  };
  auto d = at("edge1 available apps/v1|Deployment|kube-system|metrics-server");
  auto s = at("edge1 endpoints-ready v1|Service|kube-system|metrics-server");
  auto a = at("edge1 available apiregistration.k8s.io/v1|APIService||v1beta1.metrics.k8s.io");
  ASSERT_LT(a, static_cast<long>(events.size()));
  EXPECT_LT(d, static_cast<long>(events.size()));
  EXPECT_LT(s, a);
}

TEST(FleetTest, PodsAreBoundToNodesAndRun) {
  SimProcess sim({"--workload-delay", "300", "--nodes", "2", "--node-cpu", "16"});
  ASSERT_TRUE(sim.running());
  auto nodes = sim.kubectl("get nodes -o jsonpath={.items[*].status.allocatable.cpu}");
  EXPECT_EQ(nodes.out, "16 16");
  auto run = sim.kubectl("run solo --image=busybox -n default");
  ASSERT_EQ(run.code, 0) << run.err;
  auto ready = sim.kubectl("wait --for=condition=Ready pod/solo -n default --timeout=20s");
  ASSERT_EQ(ready.code, 0) << ready.err;
  auto where = sim.kubectl("get pod solo -n default -o jsonpath={.spec.nodeName}/{.status.phase}");
  EXPECT_THAT(where.out, ::testing::MatchesRegex("management-node-[12]/Running"));
}

TEST(FleetTest, ErrorRateFailsAboutAFifthAndFailedRequestsChangeNothing) {
  // The sim's faults are drawn from a seed this test prints: PLANTER_TEST_SEED tells a run again.
  uint64_t seed = std::getenv("PLANTER_TEST_SEED") ? std::stoull(std::getenv("PLANTER_TEST_SEED"))
                                                   : std::random_device{}();
  std::cout << "PLANTER_TEST_SEED=" << seed << std::endl;
  RecordProperty("PLANTER_TEST_SEED", std::to_string(seed));
  SimProcess sim({"--insecure-http", "--error-rate", "0.2", "--fault-seed", std::to_string(seed)});
  ASSERT_TRUE(sim.running());
  auto r = run_shell(python_with_kubernetes() + " " + std::string(PLANTER_SOURCE_DIR) +
                     "/tests/sim/error_rate.py " + sim.url());
  ASSERT_EQ(r.code, 0) << r.err;
  auto result = json::parse(r.out).as_object();
  int64_t failures = result.at("failures").as_int64();
  EXPECT_GE(failures, 150);  // 200 expected; these bounds are four standard deviations
  EXPECT_LE(failures, 250);
  for (const auto& [code, n] : result.at("codes").as_object())
    EXPECT_TRUE(code == "200" || code == "201" || code == "429" || code == "500" || code == "503")
        << code;
  auto codes = result.at("codes").as_object();
  int64_t with_retry = (codes.contains("429") ? codes.at("429").as_int64() : 0) +
                       (codes.contains("503") ? codes.at("503").as_int64() : 0);
  EXPECT_EQ(result.at("retry_after").as_int64(), with_retry);
  EXPECT_GT(with_retry, 0);
  // Exactly the creates the client saw succeed are in the audit log: no failed one wrote.
  std::set<std::string> seen, audited;
  for (const auto& n : result.at("created").as_array()) seen.insert(std::string(n.as_string()));
  for (const auto& line : sim.audit_lines()) {
    auto v = json::parse(line).as_object();
    if (!v.contains("verb") || v.at("verb") != "create") continue;
    std::string_view id = v.at("object").as_string();
    if (id.starts_with("v1|ConfigMap|default|")) audited.insert(std::string(id.substr(21)));
  }
  EXPECT_EQ(seen, audited);
  EXPECT_GT(seen.size(), 300u);
}

TEST(FleetTest, WatchDropEndsKubectlWatchAfterASecond) {
  SimProcess sim({"--watch-drop", "1"});
  ASSERT_TRUE(sim.running());
  auto start = std::chrono::steady_clock::now();
  auto w = sim.kubectl("get namespaces --watch --request-timeout=30s");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_THAT(w.out, HasSubstr("kube-system"));
  EXPECT_GE(took, std::chrono::milliseconds(900));
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(FleetTest, FaultsChangePerClusterThroughClusterAnnotations) {
  SimProcess sim({"--clusters", "2", "--insecure-http"});
  ASSERT_TRUE(sim.running());
  auto before = sim.kubectl("--context edge2 get ns");
  ASSERT_EQ(before.code, 0) << before.err;
  auto ann = sim.kubectl(
      "annotate clusters.planter.nephio.org edge2 -n default sim.planter.io/error-rate=1");
  ASSERT_EQ(ann.code, 0) << ann.err;
  // The annotation takes effect when the sim sees it: edge2 fails from then on, edge1 not.
  CommandResult bad;
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       std::chrono::steady_clock::now() < end;) {
    bad = sim.kubectl("--context edge2 get ns --request-timeout=5s");
    if (bad.code != 0) break;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(bad.code, 0);
  auto good = sim.kubectl("--context edge1 get ns");
  EXPECT_EQ(good.code, 0) << good.err;
}

TEST(FleetTest, LatencyDelaysTheClusterItIsSetFor) {
  SimProcess sim({"--clusters", "1", "--latency", "edge1=600,100"});
  ASSERT_TRUE(sim.running());
  auto start = std::chrono::steady_clock::now();
  // (Not `get --raw`: kubectl 1.32.3 sends raw paths to the server's root, without the
  // /clusters/<name> prefix.)
  auto r = sim.kubectl("--context edge1 get namespace default -o name");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST(FleetTest, StateDirKeepsObjectsVersionsAndClustersAcrossAKill) {
  auto state =
      std::filesystem::temp_directory_path() / ("planter-state-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(state);
  SimProcess sim({"--state-dir", state.string(), "--clusters", "1"});
  ASSERT_TRUE(sim.running());
  ASSERT_EQ(sim.kubectl("create namespace keep").code, 0);
  ASSERT_EQ(sim.kubectl("--context edge1 create configmap c1 --from-literal=a=b").code, 0);
  auto rv_ns = sim.kubectl("get ns keep -o jsonpath={.metadata.resourceVersion}");
  auto rv_cm = sim.kubectl("--context edge1 get cm c1 -o jsonpath={.metadata.resourceVersion}");
  auto uid = sim.kubectl("get ns keep -o jsonpath={.metadata.uid}");

  sim.kill_hard();
  sim.start({"--state-dir", state.string()});
  ASSERT_TRUE(sim.running());
  EXPECT_EQ(sim.kubectl("get ns keep -o jsonpath={.metadata.resourceVersion}").out, rv_ns.out);
  EXPECT_EQ(sim.kubectl("get ns keep -o jsonpath={.metadata.uid}").out, uid.out);
  EXPECT_EQ(sim.kubectl("--context edge1 get cm c1 -o jsonpath={.metadata.resourceVersion}").out,
            rv_cm.out);
  // New writes continue the resourceVersion sequence.
  ASSERT_EQ(sim.kubectl("create namespace after").code, 0);
  auto rv_after = sim.kubectl("get ns after -o jsonpath={.metadata.resourceVersion}");
  EXPECT_GT(std::stoull(rv_after.out), std::stoull(rv_ns.out));
  // The workload cluster's Secret has the restarted sim's address.
  auto secret = sim.kubectl("get secret edge1-kubeconfig -o jsonpath={.data.value}");
  auto decoded = run_shell("echo " + secret.out + " | base64 -d");
  EXPECT_THAT(decoded.out, HasSubstr(sim.url() + "/clusters/edge1"));
  std::filesystem::remove_all(state);
}

}  // namespace
}  // namespace planter::testing
