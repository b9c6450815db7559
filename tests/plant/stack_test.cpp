// Stack policies reach the pods: a seed with three stacks (two co-located and separated Moodle-
// like stacks, one dedicated to gold nodes) planted on a cluster the seed creates with a gold node
// pool; the sim's scheduler places the pods, and kubectl shows where.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;

const char* kCluster = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Cluster
metadata: {name: edge, namespace: default}
spec:
  nodes:
  - {name: pool, count: 3, cpu: "8", memory: 32Gi}
  - name: gold
    count: 2
    labels: {tenant: gold}
    taints: [{key: tenant, value: gold, effect: NoSchedule}]
)";

const char* kStacks = R"(---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: moodle-a}
spec:
  selector: {matchLabels: {stack: moodle-a}}
  atomic: {defaults: {cpu: 200m, memory: 256Mi}}
  colocate: true
  separateFrom: [moodle-b]
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: moodle-b}
spec:
  selector: {matchLabels: {stack: moodle-b}}
  atomic: {defaults: {cpu: 200m, memory: 256Mi}}
  colocate: true
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: vip}
spec:
  selector: {matchLabels: {stack: vip}}
  dedicated: {key: tenant, value: gold}
)";

std::string workload(const std::string& kind, const std::string& name, const std::string& stack,
                     int replicas) {
  std::string labels = stack.empty() ? "{}" : "{stack: " + stack + "}";
  std::string extra = kind == "StatefulSet" ? "  serviceName: " + name + "\n" : "";
  return "---\napiVersion: apps/v1\nkind: " + kind + "\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  labels: " + labels +
         "\n  annotations: {planter.nephio.org/cluster: edge}\nspec:\n  replicas: " +
         std::to_string(replicas) + "\n" + extra + "  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec:\n      containers: [{name: main, image: registry.example/" + name +
         ":1}]\n";
}

std::string members() {
  return workload("Deployment", "web-a", "moodle-a", 2) +
         workload("StatefulSet", "db-a", "moodle-a", 1) +
         workload("Deployment", "cache-a", "moodle-a", 1) +
         workload("Deployment", "web-b", "moodle-b", 2) +
         workload("StatefulSet", "db-b", "moodle-b", 1) + workload("Deployment", "vip", "vip", 2) +
         workload("Deployment", "other", "", 4);
}

// Where the pods run, once `count` of them run. Each pod is known by its workload: its `app` label
// (the seed's workloads), or the label the sim's operators give the pods of a custom resource.
struct Pods {
  std::map<std::string, std::vector<std::string>> nodes;  // workload -> nodes of its pods
  std::map<std::string, std::string> qos;                 // pod -> QoS class
  std::map<std::string, std::string> stack;               // pod -> its stack label, if any
};

Pods placement(SimProcess& sim, size_t count, const std::string& context = "edge") {
  std::string on = context.empty() ? "" : "--context " + context + " ";
  Pods out;
  for (int i = 0; i < 150; ++i) {
    auto r = sim.kubectl(on + "get pods -n default -o json");
    if (r.code == 0) {
      json::value v = json::parse(r.out);  // kept: the loop below points into it
      out = {};
      size_t running = 0;
      for (const auto& p : v.at("items").as_array()) {
        const auto& o = p.as_object();
        const json::object& labels = o.at("metadata").at("labels").as_object();
        std::string name(o.at("metadata").at("name").as_string());
        auto* app = labels.if_contains("app");
        if (!app) app = labels.if_contains("sim.planter.io/workload");
        auto* node = o.at("spec").as_object().if_contains("nodeName");
        auto* phase = o.at("status").as_object().if_contains("phase");
        if (phase && *phase == "Running") ++running;
        out.nodes[app ? std::string(app->as_string()) : name].push_back(
            node ? std::string(node->as_string()) : "");
        out.qos[name] = std::string(o.at("status").at("qosClass").as_string());
        if (auto* stack = labels.if_contains("planter.nephio.org/stack"))
          out.stack[name] = std::string(stack->as_string());
      }
      if (running == count) return out;
    }
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ADD_FAILURE() << "the pods did not all run: " << sim.kubectl(on + "get pods -o wide").out;
  return out;
}

std::set<std::string> nodes_of(const Pods& at, std::initializer_list<const char*> workloads) {
  std::set<std::string> out;
  for (const char* w : workloads)
    if (auto it = at.nodes.find(w); it != at.nodes.end())
      out.insert(it->second.begin(), it->second.end());
  return out;
}

// Stacks of custom resources: a Moodle-like kind whose CRD tells planter where its pods' fields
// are, and the MySQL operator's MysqlCluster (planter's table knows it); the sim plays both
// operators (sim.planter.io/operator on the CRDs).
const char* kOperatorCrds = R"(---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: moodles.moodle.example
  annotations:
    planter.nephio.org/cluster: edge
    planter.nephio.org/pod-template: pod:spec.podSpec
    sim.planter.io/operator: Deployment
spec:
  group: moodle.example
  scope: Namespaced
  names: {plural: moodles, singular: moodle, kind: Moodle}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: mysqlclusters.mysql.presslabs.org
  annotations: {planter.nephio.org/cluster: edge, sim.planter.io/operator: StatefulSet}
spec:
  group: mysql.presslabs.org
  scope: Namespaced
  names: {plural: mysqlclusters, singular: mysqlcluster, kind: MysqlCluster}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

std::string moodle_stack(const std::string& stack) {
  std::string meta = "  namespace: default\n  labels: {stack: " + stack +
                     "}\n  annotations: {planter.nephio.org/cluster: edge}\n";
  return "---\napiVersion: moodle.example/v1\nkind: Moodle\nmetadata:\n  name: " + stack +
         "-site\n" + meta +
         "spec:\n  replicas: 2\n  podSpec: {resources: {limits: {cpu: 300m, memory: 256Mi}}}\n"
         "---\napiVersion: mysql.presslabs.org/v1alpha1\nkind: MysqlCluster\nmetadata:\n  name: " +
         stack + "-db\n" + meta +
         "spec:\n  replicas: 1\n  podSpec: {resources: {requests: {cpu: 500m, memory: 1Gi}}}\n";
}

// The two Moodle-like stacks: each a Moodle-like custom resource, a MysqlCluster, two
// Deployments and a StatefulSet; 19 pods in all with the vip and other Deployments.
std::string moodle_seed() {
  return std::string(kCluster) + kOperatorCrds + members() + moodle_stack("moodle-a") +
         moodle_stack("moodle-b");
}
constexpr size_t kMoodlePods = 19;

TEST(StackTest, PoliciesPlaceEveryPodOfEachStack) {
  SimProcess sim({"--provision-delay", "300", "--workload-delay", "100", "--crd-delay", "100"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "stacks.yaml";
  std::ofstream(seed) << moodle_seed() << kStacks;
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  Pods at = placement(sim, kMoodlePods);
  auto a = nodes_of(at, {"web-a", "db-a", "cache-a", "moodle-a-site", "moodle-a-db"});
  auto b = nodes_of(at, {"web-b", "db-b", "moodle-b-site", "moodle-b-db"});
  auto vip = nodes_of(at, {"vip"});
  auto other = nodes_of(at, {"other"});
  auto wide = sim.kubectl("--context edge get pods -o wide").out;
  EXPECT_EQ(at.nodes.size(), 11u) << "every workload has pods\n" << wide;
  EXPECT_EQ(a.size(), 1u) << "every pod of moodle-a on one node\n" << wide;
  EXPECT_EQ(b.size(), 1u) << "every pod of moodle-b on one node\n" << wide;
  EXPECT_NE(a, b) << "moodle-a is separated from moodle-b\n" << wide;
  for (const auto& n : vip) EXPECT_THAT(n, ::testing::StartsWith("edge-gold-")) << wide;
  for (const auto& n : other) EXPECT_THAT(n, ::testing::StartsWith("edge-pool-")) << wide;
  for (const auto& n : a) EXPECT_THAT(n, ::testing::StartsWith("edge-pool-")) << wide;
  // Nothing but vip on the gold nodes.
  for (const auto& [workload, nodes] : at.nodes) {
    if (workload == "vip") continue;
    for (const auto& n : nodes) EXPECT_THAT(n, ::testing::StartsWith("edge-pool-")) << workload;
  }
  // Every member pod of the atomic stacks is Guaranteed.
  size_t atomic_pods = 0;
  for (const auto& [pod, stack] : at.stack)
    if (stack == "moodle-a" || stack == "moodle-b") {
      ++atomic_pods;
      EXPECT_EQ(at.qos.at(pod), "Guaranteed") << pod;
    }
  EXPECT_EQ(atomic_pods, 13u) << wide;
}

TEST(StackTest, WithoutTheStacksTheSamePodsSpread) {
  SimProcess sim({"--provision-delay", "300", "--workload-delay", "100", "--crd-delay", "100"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "plain.yaml";
  std::ofstream(seed) << moodle_seed();
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // The vip pods tolerate nothing: without their stack they cannot run on gold nodes, and the
  // rest spreads over the pool.
  Pods at = placement(sim, kMoodlePods);
  auto a = nodes_of(at, {"web-a", "db-a", "cache-a", "moodle-a-site", "moodle-a-db"});
  EXPECT_GT(a.size(), 1u) << sim.kubectl("--context edge get pods -o wide").out;
  EXPECT_TRUE(at.stack.empty());
}

// An atomic, co-located stack asking more than any node has: nothing of it is declared, and
// planter says why; a node added while it waits releases every member at once, and the pods go
// to that node.
const char* kBigStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: big}
spec:
  selector: {matchLabels: {stack: big}}
  atomic: true
  colocate: true
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {stack: big}}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: nginx, resources: {limits: {cpu: "2", memory: 2Gi}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default, labels: {stack: big}}
spec:
  replicas: 1
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: main, image: mysql, resources: {limits: {cpu: "1", memory: 4Gi}}}]
)";

const char* kBigNode = R"(apiVersion: v1
kind: Node
metadata:
  name: big-node
  labels: {kubernetes.io/hostname: big-node}
status:
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
  allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
)";

TEST(StackTest, AtomicStackWaitsForANodeThatHoldsAllOfIt) {
  SimProcess sim({"--workload-delay", "100"});  // three nodes of 8 cpu, 32Gi
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "big.yaml";
  std::ofstream(seed) << kBigStack;
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 2");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out + r.err,
              ::testing::HasSubstr("stack big needs 11 cpu, 14Gi, 6 pods on one node; 0/3 nodes "
                                   "are available: 3 Insufficient cpu; the best node, "))
      << r.out << r.err;
  EXPECT_THAT(sim.kubectl("get deployments,statefulsets -n default -o name").out,
              ::testing::IsEmpty())
      << "nothing of the stack is declared";

  fs::path report = sim.dir() / "report.json";
  fs::path log = sim.dir() / "plant.log";
  auto planting = std::async(std::launch::async, [&] {
    return planter("plant -v --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) +
                   " --timeout 60 --report " + q(report) + " >" + q(log) + " 2>&1");
  });
  // The node comes only once planter has decided the stack fits nowhere yet.
  ASSERT_TRUE(file_says(log, "stack big needs 11 cpu, 14Gi, 6 pods on one node; 0/3 nodes",
                        std::chrono::seconds(30)))
      << read_file(log);
  EXPECT_NE(planting.wait_for(std::chrono::seconds(0)), std::future_status::ready)
      << "planted before any node could hold the stack";
  fs::path node = sim.dir() / "node.yaml";
  std::ofstream(node) << kBigNode;
  ASSERT_EQ(sim.kubectl("create -f " + q(node)).code, 0);
  r = planting.get();
  ASSERT_EQ(r.code, 0) << read_file(log);
  // Released together: both members were ready in the same turn of the engine.
  json::value rep = json::parse(read_file(report));
  std::vector<double> ready;
  for (const auto& u : rep.at("units").as_array()) {
    ready.push_back(u.at("readySeconds").to_number<double>());
    EXPECT_THAT(std::string(u.at("steered").as_string()), ::testing::StartsWith("node big-node"));
  }
  ASSERT_EQ(ready.size(), 2u);
  EXPECT_NEAR(ready[0], ready[1], 0.05);
  Pods at = placement(sim, 6, "");
  EXPECT_EQ(nodes_of(at, {"web", "db"}), std::set<std::string>{"big-node"})
      << sim.kubectl("get pods -o wide").out;
}

// The stack's fit watches the cluster's Nodes keeping only what the fit reads of them; a Node of
// the seed that another object waits on, by an annotation the fit does not read, has that
// watch made whole again, and the object that waits on it is declared. That object is
// cluster-scoped so the Node is its only requirement (a namespaced one also waits on its
// Namespace, and which of the two held last is a race).
TEST(StackTest, ANodeOfTheSeedThatAnObjectWaitsOnIsReadWholeBesideTheStacksFit) {
  SimProcess sim;  // three nodes of 8 cpu, 32Gi
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "seed.yaml";
  std::ofstream(seed) << R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  atomic: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: main, image: web, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: v1
kind: Node
metadata:
  name: spare
  labels: {kubernetes.io/hostname: spare}
  annotations:
    team: red
    planter.nephio.org/ready-when: jsonpath={.metadata.annotations.team}=red
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: after-spare
  annotations: {planter.nephio.org/dependencies: v1|Node||spare}
)";
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr(
                         "rbac.authorization.k8s.io/v1 ClusterRole after-spare: created (waited "
                         "for Node/spare jsonpath={.metadata.annotations.team}=red"))
      << r.out;
  EXPECT_EQ(sim.kubectl("get clusterrole after-spare -o name").out,
            "clusterrole.rbac.authorization.k8s.io/after-spare\n");
}

// A stack of two one-GPU pods on a cluster whose only free GPU is one, beside a tainted GPU node:
// planter's fit model counts the GPUs (it counted cpu, memory and pods only, and said "fits"), the
// stack waits in kube-scheduler's words, and is released whole when a second GPU node comes.
// `plan --fit` says the same, and the sim's scheduler puts the pods where it said.
const char* kGpuStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: train}
spec:
  selector: {matchLabels: {app: train}}
  atomic: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: default, labels: {app: train}}
spec:
  replicas: 2
  selector: {matchLabels: {app: train}}
  template:
    metadata: {labels: {app: train}}
    spec:
      containers:
      - name: main
        image: trainer
        resources:
          limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: "1"}
)";

std::string gpu_node(const std::string& name, int gpus, bool tainted) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {kubernetes.io/hostname: " + name + "}\n" +
         (tainted ? "spec:\n  taints: [{key: gpu, value: only, effect: NoSchedule}]\n" : "") +
         "status:\n  allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\", nvidia.com/gpu: \"" +
         std::to_string(gpus) +
         "\"}\n  capacity: {cpu: \"8\", memory: 32Gi, pods: \"110\", "
         "nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}\n";
}

TEST(StackTest, AGpuStackWaitsForTheGpusAndIsReleasedWhole) {
  SimProcess sim({"--workload-delay", "100"});  // three nodes of 8 cpu, 32Gi, no GPU
  ASSERT_TRUE(sim.running());
  auto add_node = [&](const std::string& name, int gpus, bool tainted) {
    fs::path f = sim.dir() / (name + ".yaml");
    std::ofstream(f) << gpu_node(name, gpus, tainted);
    return sim.kubectl("create -f " + q(f));
  };
  ASSERT_EQ(add_node("gpu-0", 1, false).code, 0);
  ASSERT_EQ(add_node("gpu-big", 4, true).code, 0);
  fs::path seed = sim.dir() / "train.yaml";
  std::ofstream(seed) << kGpuStack;
  const std::string why =
      "a pod of train: 0/5 nodes are available: 1 node(s) had untolerated taint {gpu: only}, 4 "
      "Insufficient nvidia.com/gpu";
  CommandResult r = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr(why)) << r.out;
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 2");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out + r.err, ::testing::HasSubstr(why)) << r.out << r.err;
  EXPECT_THAT(sim.kubectl("get deployments -n default -o name").out, ::testing::IsEmpty())
      << "nothing of the stack is declared while its GPUs are not there";

  ASSERT_EQ(add_node("gpu-1", 1, false).code, 0);
  r = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("stack train on SELF: fits across 2 node(s)")) << r.out;
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  Pods at = placement(sim, 2, "");
  EXPECT_EQ(nodes_of(at, {"train"}), (std::set<std::string>{"gpu-0", "gpu-1"}))
      << "the sim's scheduler put one pod on each free GPU: "
      << sim.kubectl("get pods -o wide").out;
}

// Members that keep apart (required anti-affinity on the hostname) need a node each: three of 3
// cpu fit the sim's three 8-cpu nodes only when no node is busy (by room alone two nodes would
// hold them). planter counted them in one sum before, said "fits", and the scheduler left one
// Pending.
const char* kApartStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: zk}
spec:
  selector: {matchLabels: {app: zk}}
  atomic: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: zk, namespace: default, labels: {app: zk}}
spec:
  replicas: 3
  selector: {matchLabels: {app: zk}}
  template:
    metadata: {labels: {app: zk}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: zk}}
      containers:
      - {name: main, image: zookeeper, resources: {limits: {cpu: "3", memory: 1Gi}}}
)";

const char* kFiller = R"(apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default}
spec:
  nodeName: management-node-1
  containers: [{name: filler, image: pause, resources: {requests: {cpu: "6", memory: 1Gi}}}]
)";

// A pod with a sidecar (an init container that keeps running) and an init container asks what
// kube-scheduler counts: the larger of its containers with the sidecar (1 + 0.5 cpu) and the init
// container with the sidecar started before it (2 + 0.5 cpu), 2.5 cpu. `planter plan` says so,
// `plan --fit` refuses nodes of 2.4 cpu for it, and so does the sim's scheduler.
const char* kSidecarStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: side}
spec:
  selector: {matchLabels: {app: side}}
  atomic: {}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: side, namespace: default, labels: {app: side}}
spec:
  replicas: 1
  selector: {matchLabels: {app: side}}
  template:
    metadata: {labels: {app: side}}
    spec:
      initContainers:
      - name: proxy
        image: proxy
        restartPolicy: Always
        resources: {limits: {cpu: 500m, memory: 64Mi}}
      - name: migrate
        image: migrate
        resources: {limits: {cpu: "2", memory: 64Mi}}
      containers:
      - name: main
        image: app
        resources: {limits: {cpu: "1", memory: 64Mi}}
)";

TEST(StackTest, PlanAndPlanFitAskWhatTheSchedulerCountsForAPodWithASidecar) {
  SimProcess sim({"--node-cpu", "2400m"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "side.yaml";
  std::ofstream(seed) << kSidecarStack;
  CommandResult table = planter("plan " + q(seed));
  ASSERT_EQ(table.code, 0) << table.out << table.err;
  EXPECT_THAT(table.out, ::testing::HasSubstr("stack side: 1 pod asking 2.5 cpu, 128Mi;"));
  CommandResult fit = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(fit.code, 1) << fit.out << fit.err;
  EXPECT_THAT(fit.out, ::testing::HasSubstr("stack side: 1 pod asking 2.5 cpu, 128Mi;"));
  EXPECT_THAT(fit.out, ::testing::HasSubstr("stack side needs 2.5 cpu, 128Mi"));
  EXPECT_THAT(fit.out, ::testing::HasSubstr("0/3 nodes are available: 3 Insufficient cpu"))
      << fit.out;
  // The judge: the same pod, created as it is, stays unscheduled for want of cpu.
  ASSERT_EQ(sim.kubectl("apply -f " + q(seed)).code, 0);
  CommandResult unscheduled =
      sim.kubectl("wait pods -l app=side --for=condition=PodScheduled=False --timeout=60s");
  ASSERT_EQ(unscheduled.code, 0) << unscheduled.err;
  EXPECT_THAT(sim.kubectl("get pods -l app=side -o " +
                          q("jsonpath={.items[0].status.conditions[0].message}"))
                  .out,
              ::testing::HasSubstr("Insufficient cpu"));
}

TEST(StackTest, MembersThatKeepApartFitOnlyWhenEachHasANode) {
  SimProcess sim({"--workload-delay", "100"});  // three nodes of 8 cpu, 32Gi
  ASSERT_TRUE(sim.running());
  fs::path filler = sim.dir() / "filler.yaml", seed = sim.dir() / "zk.yaml";
  std::ofstream(filler) << kFiller;
  std::ofstream(seed) << kApartStack;
  ASSERT_EQ(sim.kubectl("create -f " + q(filler)).code, 0);
  CommandResult r = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("a pod of zk: 0/3 nodes are available: 1 Insufficient "
                                          "cpu, 2 node(s) didn't match pod anti-affinity rules"))
      << r.out;
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 2");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(sim.kubectl("get deployments -n default -o name").out, ::testing::IsEmpty());

  ASSERT_EQ(sim.kubectl("delete pod filler").code, 0);
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  Pods at = placement(sim, 3, "");
  EXPECT_EQ(nodes_of(at, {"zk"}).size(), 3u)
      << "one member on each node: " << sim.kubectl("get pods -o wide").out;
}

// A custom resource whose operator makes its pods from a PodTemplateSpec-shaped field, named by
// nothing but the CRD's schema (its spec keeps unknown fields, declaring only containers): planter
// finds the template from the schema, writes the stack's policy into it, and the sim's operator
// (which reads the schema its own way) makes the pods from it, so they land where the stack fits.
const char* kTemplateShapedRunner = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: runners.example.org
  annotations: {sim.planter.io/operator: Deployment}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: runners, singular: runner, kind: Runner}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {scale: {specReplicasPath: .spec.runners, statusReplicasPath: .status.runners}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              runners: {type: integer}
              podTemplate:
                type: object
                properties:
                  metadata: {type: object, x-kubernetes-preserve-unknown-fields: true}
                  spec:
                    type: object
                    x-kubernetes-preserve-unknown-fields: true
                    properties:
                      containers:
                        type: array
                        items: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {stack: ci}}
  atomic: {defaults: {cpu: "1", memory: 1Gi}}
  colocate: true
---
apiVersion: example.org/v1
kind: Runner
metadata: {name: r, namespace: default, labels: {stack: ci}}
spec:
  runners: 3
  podTemplate: {spec: {containers: [{name: run, image: runner}]}}
)";

TEST(StackTest, ATemplateShapedCustomResourcesPodsLandWhereTheStackFits) {
  SimProcess sim({"--workload-delay", "100", "--crd-delay", "100"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "runner.yaml";
  std::ofstream(seed) << kTemplateShapedRunner;
  CommandResult r =
      planter("plant --timeout 60 --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  Pods at = placement(sim, 3, "");
  std::set<std::string> nodes;
  for (const auto& [workload, on] : at.nodes) nodes.insert(on.begin(), on.end());
  EXPECT_EQ(nodes.size(), 1u) << "co-located: " << sim.kubectl("get pods -o wide").out;
  ASSERT_EQ(at.stack.size(), 3u) << "every pod carries the stack's label, from the template";
  for (const auto& [pod, stack] : at.stack) EXPECT_EQ(stack, "ci") << pod;
  for (const auto& [pod, qos] : at.qos)
    EXPECT_EQ(qos, "Guaranteed") << pod << ": the atomic defaults reached the pod";
}

// What-if before planting: `plan --fit` reads the cluster (and writes nothing) and says per stack
// where it would land, or why it cannot.
TEST(StackTest, PlanFitSaysWhereEachStackWouldLandAndWritesNothing) {
  SimProcess sim;  // three nodes of 8 cpu, 32Gi
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "two.yaml";
  std::ofstream(seed) << kBigStack << R"(---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: small}
spec:
  selector: {matchLabels: {app: solo}}
  atomic: {defaults: {cpu: "3", memory: 1Gi}}
  colocate: true
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: solo, namespace: default, labels: {app: solo}}
spec:
  selector: {matchLabels: {app: solo}}
  template:
    metadata: {labels: {app: solo}}
    spec: {containers: [{name: main, image: nginx}]}
)";
  auto writes = [&] {
    size_t n = 0;
    for (const auto& e : parse_audit(sim.audit_lines()))
      n += e.verb == "create" || e.verb == "patch" || e.verb == "update" || e.verb == "apply" ||
                   e.verb == "delete"
               ? 1
               : 0;
    return n;
  };
  size_t writes_before = writes();
  CommandResult r = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 1) << "a stack does not fit\n" << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("stack small on SELF: fits on node management-node-"))
      << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("(leaves 5 cpu, 31Gi free)")) << r.out;
  EXPECT_THAT(r.out, ::testing::HasSubstr("stack big on SELF: stack big needs 11 cpu, 14Gi, 6 "
                                          "pods on one node; 0/3 nodes are available"))
      << r.out;
  r = planter("plan " + q(seed) + " --fit -o json --kubeconfig " + q(sim.kubeconfig()));
  json::value doc = json::parse(r.out);
  std::map<std::string, bool> fits;
  for (const auto& s : doc.at("stacks").as_array())
    for (const auto& f : s.at("fit").as_array())
      fits[std::string(s.at("name").as_string())] = f.at("fits").as_bool();
  EXPECT_EQ(fits, (std::map<std::string, bool>{{"big", false}, {"small", true}}));
  EXPECT_EQ(writes(), writes_before) << "--fit only reads";
}

// A co-located stack whose claim binds to local volumes made by hand (a StorageClass with
// kubernetes.io/no-provisioner, WaitForFirstConsumer; the volume on one node): the claim is in
// the seed, not yet on the cluster, and planter reads it as the cluster will hold it. Both
// `plan --fit` and planting steer the stack to the volume's node, though the others have as much
// room; the sim's scheduler binds the claim to that volume and runs the pod there.
const char* kLocalVolumeStack = R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: db}
spec:
  selector: {matchLabels: {app: db}}
  atomic: {defaults: {cpu: 500m, memory: 512Mi}}
  colocate: true
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  storageClassName: handmade
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: default, labels: {app: db}}
spec:
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: main, image: postgres}]
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
)";

const char* kHandmadeStorage = R"(apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: handmade}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: disk-on-2}
spec:
  storageClassName: handmade
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [management-node-2]}
)";

TEST(StackTest, AStackOnLocalVolumesGoesToTheNodeWhoseVolumeItsClaimBinds) {
  SimProcess sim({"--workload-delay", "100"});  // three nodes of 8 cpu, 32Gi
  ASSERT_TRUE(sim.running());
  fs::path storage = sim.dir() / "storage.yaml";
  std::ofstream(storage) << kHandmadeStorage;
  ASSERT_EQ(sim.kubectl("create -f " + q(storage)).code, 0);
  fs::path seed = sim.dir() / "db.yaml";
  std::ofstream(seed) << kLocalVolumeStack;
  CommandResult r = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("stack db on SELF: fits on node management-node-2"))
      << r.out;
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 60");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  Pods at = placement(sim, 1, "");
  EXPECT_EQ(nodes_of(at, {"db"}), std::set<std::string>{"management-node-2"})
      << sim.kubectl("get pods,pvc -o wide").out;
  EXPECT_EQ(sim.kubectl("get pvc data -o jsonpath={.spec.volumeName}").out, "disk-on-2");
}

}  // namespace
}  // namespace planter::testing
