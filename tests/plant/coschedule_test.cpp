// Coscheduling with an anchor: a group of Jobs sharing a ReadWriteOnce `local` claim, planted on
// a cluster where one node is big but busy (the node kube-scheduler least prefers) and the others
// are small and empty. The sim's scheduler judges; the audit log shows the order.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "plant/audit_order.h"
#include "sim/planter_process.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;

// Three Jobs of `cpu` each, mounting one claim of `storage_class`; `extra` goes into each Job's
// metadata.
std::string group(const std::string& cpu, const std::string& storage_class,
                  const std::string& extra = "") {
  std::string out = R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: )" +
                    storage_class +
                    R"(
  resources: {requests: {storage: 1Gi}}
)";
  for (const char* step : {"a", "b", "c"})
    out += std::string("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: step-") + step +
           "\n  namespace: default\n  labels: {group: ci}\n" + extra + R"(spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: step
        image: busybox
        resources: {requests: {cpu: ")" +
           cpu + R"(", memory: 256Mi}}
        volumeMounts: [{name: work, mountPath: /work}]
      volumes: [{name: work, persistentVolumeClaim: {claimName: shared}}]
)";
  return out;
}

const char* kAnchorStack = R"(---
apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: ci}
spec:
  selector: {matchLabels: {group: ci}}
  coschedule: {mode: anchor}
)";

// A node of 32 cpu with 20 of them taken: 12 free, more than any small node has, but a smaller
// share free than the empty 8-cpu nodes, so kube-scheduler's scoring sends small pods elsewhere.
const char* kBusyBigNode = R"(apiVersion: v1
kind: Node
metadata:
  name: big-node
  labels: {kubernetes.io/hostname: big-node}
status:
  allocatable: {cpu: "32", memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: filler, namespace: default}
spec:
  nodeName: big-node
  containers: [{name: filler, image: pause, resources: {requests: {cpu: "20", memory: 1Gi}}}]
)";

struct PodAt {
  std::string node, phase, scheduling;  // scheduling: the PodScheduled condition's message
};

// The pods of the Jobs (and the anchor), once `count` of them are bound or `settle` says so.
std::map<std::string, PodAt> job_pods(const SimProcess& sim, size_t bound,
                                      std::chrono::seconds limit = std::chrono::seconds(20)) {
  std::map<std::string, PodAt> out;
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    auto r = sim.kubectl("get pods -n default -o json");
    if (r.code == 0) {
      json::value list = json::parse(r.out);
      out.clear();
      size_t n = 0;
      for (const auto& p : list.at("items").as_array()) {
        const auto& o = p.as_object();
        std::string name(o.at("metadata").at("name").as_string());
        if (name == "filler") continue;
        PodAt at;
        if (auto* node = o.at("spec").as_object().if_contains("nodeName"))
          at.node = std::string(node->as_string());
        at.phase = std::string(o.at("status").at("phase").as_string());
        if (auto* conds = o.at("status").as_object().if_contains("conditions"))
          for (const auto& c : conds->as_array())
            if (c.at("type") == "PodScheduled")
              if (auto* m = c.as_object().if_contains("message"))
                at.scheduling = std::string(m->as_string());
        n += at.node.empty() ? 0 : 1;
        out[name] = std::move(at);
      }
      if (n >= bound) return out;
    }
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return out;
}

TEST(CoscheduleTest, WithoutItAPodOfTheGroupCannotFollowTheVolume) {
  SimProcess sim({"--workload-delay", "3000"});
  ASSERT_TRUE(sim.running());
  fs::path node = sim.dir() / "node.yaml", seed = sim.dir() / "group.yaml";
  std::ofstream(node) << kBusyBigNode;
  std::ofstream(seed) << group("3", "local");
  ASSERT_EQ(sim.kubectl("apply -f " + q(node)).code, 0);
  CommandResult r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // The first pod went to a small node, the claim bound there, and the third does not fit.
  // Read again until the scheduler has said why the third waits (its PodScheduled condition).
  auto pods = job_pods(sim, 2);
  auto said_why = [&] {
    for (const auto& [name, at] : pods)
      if (at.node.empty() && !at.scheduling.empty()) return true;
    return false;
  };
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       !said_why() && std::chrono::steady_clock::now() < end;)
    pods = job_pods(sim, 2);
  ASSERT_TRUE(said_why()) << sim.kubectl("get pods -o wide").out;
  size_t pending = 0;
  std::set<std::string> nodes;
  for (const auto& [name, at] : pods) {
    if (at.node.empty()) {
      ++pending;
      EXPECT_THAT(at.scheduling, HasSubstr("volume node affinity conflict")) << name;
    } else {
      nodes.insert(at.node);
    }
  }
  EXPECT_EQ(pending, 1u) << sim.kubectl("get pods -o wide").out;
  EXPECT_EQ(nodes.size(), 1u);
  EXPECT_FALSE(nodes.contains("big-node"));
}

TEST(CoscheduleTest, TheAnchorGoesWhereTheWholeGroupFitsAndIsBoundBeforeAnyMember) {
  SimProcess sim({"--workload-delay", "3000"});
  ASSERT_TRUE(sim.running());
  fs::path node = sim.dir() / "node.yaml", seed = sim.dir() / "group.yaml";
  std::ofstream(node) << kBusyBigNode;
  std::ofstream(seed) << group("3", "local") << kAnchorStack;
  ASSERT_EQ(sim.kubectl("apply -f " + q(node)).code, 0);
  CommandResult r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto pods = job_pods(sim, 4);
  ASSERT_EQ(pods.size(), 4u) << sim.kubectl("get pods -o wide").out;
  for (const auto& [name, at] : pods) EXPECT_EQ(at.node, "big-node") << name;
  EXPECT_TRUE(pods.contains("ci-anchor-0"));
  // The anchor pod was bound before any Job was written.
  std::optional<size_t> anchor_bound, first_job;
  for (const AuditEntry& e : parse_audit(sim.audit_lines())) {
    if (e.verb == "bind" && e.object == "|Pod|default|ci-anchor-0" && !anchor_bound)
      anchor_bound = e.index;
    if (e.verb == "apply" && e.object.starts_with("batch|Job|default|step-") && !first_job)
      first_job = e.index;
  }
  ASSERT_TRUE(anchor_bound && first_job);
  EXPECT_LT(*anchor_bound, *first_job);
  // The anchor mounts the claim, so it bound on the anchor's node.
  json::value pvc = json::parse(sim.kubectl("get pvc shared -o json").out);
  EXPECT_EQ(pvc.at("metadata").at("annotations").at("volume.kubernetes.io/selected-node"),
            "big-node");
}

TEST(CoscheduleTest, AnAnchorWhoseNodeIsCordonedBeforeTheMembersStartIsPlacedAgain) {
  SimProcess sim({"--workload-delay", "300"});  // three nodes of 8 cpu
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "group.yaml";
  // The members wait for a ConfigMap the test creates once the anchor's node is cordoned.
  std::ofstream(seed) << group("2", "standard",
                               "  annotations: {planter.nephio.org/external-dependencies: "
                               "\"v1|ConfigMap|default|go\"}\n")
                      << kAnchorStack;
  fs::path report = sim.dir() / "report.json";
  auto planting = std::async(std::launch::async, [&] {
    return planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) +
                   " --timeout 60 --report " + q(report));
  });
  auto first = job_pods(sim, 1);
  ASSERT_TRUE(first.contains("ci-anchor-0"));
  std::string cordoned = first["ci-anchor-0"].node;
  ASSERT_FALSE(cordoned.empty());
  ASSERT_EQ(sim.kubectl("cordon " + cordoned).code, 0);
  // The anchor is declared again, steered elsewhere, and its StatefulSet replaces its pod.
  std::string moved;
  for (int i = 0; i < 100 && (moved.empty() || moved == cordoned); ++i) {
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    moved = sim.kubectl("get pod ci-anchor-0 -o jsonpath={.spec.nodeName}").out;
  }
  ASSERT_NE(moved, cordoned) << sim.kubectl("get pods -o wide").out;
  ASSERT_EQ(sim.kubectl("create configmap go").code, 0);
  CommandResult r = planting.get();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("apps/v1 StatefulSet default/ci-anchor: to be declared again: "
                               "placing the anchor again: the anchor's node " +
                               cordoned + " is cordoned"))
      << r.out;
  json::value rep = json::parse(read_file(report));
  for (const auto& u : rep.at("units").as_array()) {
    if (!u.at("object").as_string().starts_with("batch/v1|Job|")) continue;
    EXPECT_THAT(std::string(u.at("steered").as_string()), HasSubstr("node " + moved));
  }
  auto pods = job_pods(sim, 4);
  ASSERT_EQ(pods.size(), 4u) << sim.kubectl("get pods -o wide").out;
  for (const auto& [name, at] : pods) EXPECT_EQ(at.node, moved) << name;
}

// mode scheduler: the same group as one gang of planter's second scheduler. Without the scheduler
// running, the members wait for it (and only the PodGroup and the claim are declared).
TEST(CoscheduleTest, TheSchedulerModePlacesTheGroupAsOneGangOfPlantersScheduler) {
  SimProcess sim({"--workload-delay", "3000"});
  ASSERT_TRUE(sim.running());
  fs::path node = sim.dir() / "node.yaml", seed = sim.dir() / "group.yaml";
  std::ofstream(node) << kBusyBigNode;
  std::string stack = kAnchorStack;
  stack.replace(stack.find("mode: anchor"), 12, "mode: scheduler");
  std::ofstream(seed) << group("3", "local") << stack;
  ASSERT_EQ(sim.kubectl("apply -f " + q(node)).code, 0);
  fs::path crd =
      fs::path(PLANTER_SOURCE_DIR) / "deploy/scheduler/scheduling.x-k8s.io_podgroups.yaml";
  ASSERT_EQ(sim.kubectl("apply -f " + q(crd)).code, 0);

  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 2");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("waiting for scheduler planter answers (Lease "
                               "kube-system/planter-scheduler held): not found"))
      << r.out;
  EXPECT_THAT(sim.kubectl("get jobs -o name").out, ::testing::IsEmpty());
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.x-k8s.io ci -o jsonpath={.spec.minMember}").out,
            "3");

  PlanterProcess scheduler({"scheduler", "--kubeconfig", sim.kubeconfig().string(),
                            "--metrics-addr", "0", "--health-addr", "0"},
                           sim.dir() / "scheduler.log");
  r = planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err << scheduler.log();
  auto pods = job_pods(sim, 3);
  ASSERT_EQ(pods.size(), 3u) << sim.kubectl("get pods -o wide").out << scheduler.log();
  for (const auto& [name, at] : pods) EXPECT_EQ(at.node, "big-node") << name;
  // Bound by planter's scheduler, not the sim's.
  size_t binds = 0;
  for (const AuditEntry& e : parse_audit(sim.audit_lines())) {
    if (e.verb != "bind" || !e.object.starts_with("|Pod|default|step-")) continue;
    ++binds;
    EXPECT_NE(e.user, "system:kube-scheduler") << e.object;
  }
  EXPECT_EQ(binds, 3u);
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.x-k8s.io ci -o jsonpath={.status.phase}").out,
            "Scheduled");
}

// A gang that can never fit (three pods of 20 cpu, nodes of 8) waits like an atomic stack:
// nothing of it is declared, and at --timeout plant says which gang waits and why, in the fit
// model's words, and exits 1, where it used to declare the Jobs and exit 0 with pods pending.
TEST(CoscheduleTest, AGangThatCannotFitIsNotDeclaredAndPlantSaysWhy) {
  SimProcess sim;  // three nodes of 8 cpu
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "group.yaml";
  std::string stack = kAnchorStack;
  stack.replace(stack.find("mode: anchor"), 12, "mode: scheduler");
  std::ofstream(seed) << group("20", "standard") << stack;
  fs::path crd =
      fs::path(PLANTER_SOURCE_DIR) / "deploy/scheduler/scheduling.x-k8s.io_podgroups.yaml";
  ASSERT_EQ(sim.kubectl("apply -f " + q(crd)).code, 0);
  PlanterProcess scheduler({"scheduler", "--kubeconfig", sim.kubeconfig().string(),
                            "--metrics-addr", "0", "--health-addr", "0"},
                           sim.dir() / "scheduler.log");
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 4");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack ci needs"));
  EXPECT_THAT(r.out, HasSubstr("3 Insufficient cpu")) << r.out;
  EXPECT_THAT(sim.kubectl("get jobs,pods -o name").out, ::testing::IsEmpty())
      << "no member of a gang that cannot fit is declared";
}

// Mode gang: a stack of three 5-cpu workers and a driver, as one gang of the cluster's own
// kube-scheduler. `workers` is how many workers, `extra` more of the Stack's spec.
std::string gang_seed(int workers, const std::string& extra = "") {
  return fmt::format(R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {{name: train}}
spec:
  selector: {{matchLabels: {{stack: train}}}}
  coschedule: {{mode: gang}}
{1}---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: workers, namespace: default, labels: {{stack: train}}}}
spec:
  replicas: {0}
  selector: {{matchLabels: {{app: workers}}}}
  template:
    metadata: {{labels: {{app: workers}}}}
    spec:
      containers: [{{name: main, image: registry.example/train:1, resources: {{requests: {{cpu: "5"}}}}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {{name: driver, namespace: default, labels: {{stack: train}}}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: main, image: registry.example/train:1, resources: {{requests: {{cpu: "1"}}}}}}]
)",
                     workers, extra);
}

// The Workload, then the PodGroup, then the members (the audit log's order); the sim's own
// kube-scheduler binds every pod of the gang, and the PodGroup says PodGroupScheduled.
TEST(CoscheduleTest, TheGangModeLetsTheClustersKubeSchedulerPlaceTheStackAsOneGang) {
  SimProcess sim;  // three nodes of 8 cpu: one 5-cpu worker each, the driver beside one
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "gang.yaml";
  std::ofstream(seed) << gang_seed(3);
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto pods = job_pods(sim, 4);
  ASSERT_EQ(pods.size(), 4u) << sim.kubectl("get pods -o wide").out;
  for (const auto& [name, at] : pods) EXPECT_FALSE(at.node.empty()) << name;
  json::value listed = json::parse(sim.kubectl("get pods -n default -o json").out);
  for (const json::value& p : listed.at("items").as_array())
    EXPECT_EQ(p.at("spec").at("schedulingGroup").at("podGroupName"), "train")
        << p.at("metadata").at("name");
  size_t workload = 0, group = 0, first_member = 0, binds = 0;
  for (const AuditEntry& e : parse_audit(sim.audit_lines())) {
    bool write = e.verb == "create" || e.verb == "apply" || e.verb == "patch";
    if (write && e.object == "scheduling.k8s.io|Workload|default|train" && !workload)
      workload = e.index;
    if (write && e.object == "scheduling.k8s.io|PodGroup|default|train" && !group) group = e.index;
    if (write &&
        (e.object == "apps|Deployment|default|workers" || e.object == "batch|Job|default|driver") &&
        !first_member)
      first_member = e.index;
    if (e.verb == "bind") {
      ++binds;
      EXPECT_EQ(e.user, "system:kube-scheduler") << e.object;
    }
  }
  EXPECT_NE(workload, 0u);
  EXPECT_LT(workload, group) << "the Workload before the PodGroup made from it";
  EXPECT_LT(group, first_member) << "the PodGroup before any member";
  EXPECT_EQ(binds, 4u);
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.k8s.io train -o "
                        "jsonpath={.status.conditions[0].type}={.status.conditions[0].status}")
                .out,
            "PodGroupScheduled=True");
}

// A gang no node set holds (four 5-cpu workers, three 8-cpu nodes) waits like an atomic stack:
// none of its members is declared, and at --timeout plant names the gang and why.
TEST(CoscheduleTest, AGangModeStackThatCannotFitIsNotDeclaredAndPlantSaysWhy) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "gang.yaml";
  std::ofstream(seed) << gang_seed(4);
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 4");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack train needs")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("Insufficient cpu")) << r.out;
  EXPECT_THAT(sim.kubectl("get deployments,jobs,pods -o name").out, ::testing::IsEmpty());
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.k8s.io -o name").out,
            "podgroup.scheduling.k8s.io/train\n")
      << "the gang's PodGroup is there, waiting for members that fit";
}

// spec.topology required on a gang: three 5-cpu workers in one zone. Zone 0 has two 8-cpu nodes,
// zone 1 one: no zone holds the stack, so nothing of it is declared and plant says which domain
// came closest; a third node in zone 1 lets it in, all in that zone (steered there, and the
// PodGroup's topology constraint says so to kube-scheduler).
TEST(CoscheduleTest, ATopologyHeldGangLandsInOneZoneAndWaitsWhileNoZoneHoldsIt) {
  SimProcess sim({"--zones", "2"});
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "gang.yaml";
  std::ofstream(seed) << gang_seed(3, "  topology: {key: topology.kubernetes.io/zone}\n");
  std::string plant = "plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed);
  CommandResult r = planter(plant + " --timeout 3");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("pods in one topology.kubernetes.io/zone domain; 0/2 domains can "
                               "hold it; the best domain, topology.kubernetes.io/zone=zone-0"))
      << r.out;
  EXPECT_THAT(sim.kubectl("get deployments,jobs,pods -o name").out, ::testing::IsEmpty());
  fs::path node = sim.dir() / "node.yaml";
  std::ofstream(node) << R"(apiVersion: v1
kind: Node
metadata:
  name: zone-1-b
  labels: {kubernetes.io/hostname: zone-1-b, topology.kubernetes.io/zone: zone-1}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: zone-1-c
  labels: {kubernetes.io/hostname: zone-1-c, topology.kubernetes.io/zone: zone-1}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)";
  ASSERT_EQ(sim.kubectl("apply -f " + q(node)).code, 0);
  r = planter(plant + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto pods = job_pods(sim, 4);
  ASSERT_EQ(pods.size(), 4u) << sim.kubectl("get pods -o wide").out;
  for (const auto& [name, at] : pods) {
    json::value node_of =
        json::parse(sim.kubectl("get node " + at.node + " -o json").out).as_object();
    EXPECT_EQ(node_of.at("metadata").at("labels").at("topology.kubernetes.io/zone"), "zone-1")
        << name << " on " << at.node;
  }
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.k8s.io train -o "
                        "jsonpath={.spec.schedulingConstraints.topology[0].key}")
                .out,
            "topology.kubernetes.io/zone");
}

// What each unit's last apply did, from plant's --report: "Kind/ns/name" -> "replaced".
std::map<std::string, std::string> applied_by_object(const fs::path& report) {
  std::map<std::string, std::string> out;
  json::value rep = json::parse(read_file(report));
  for (const auto& u : rep.at("units").as_array()) {
    std::string id(u.at("object").as_string());  // apiVersion|Kind|ns|name
    id = id.substr(id.find('|') + 1);
    std::replace(id.begin(), id.end(), '|', '/');
    if (const json::value* a = u.as_object().if_contains("applied"))
      out[id] = std::string(a->as_string());
  }
  return out;
}

// A replant that drops the gang's topology changes its Workload's template and its PodGroup's
// constraints, which the server lets no update change: `planter diff` says both are made again,
// and the replant deletes and re-creates them. The PodGroup's protection finalizer keeps it
// while its worker runs, and the replant waits; once the gang's members are gone, the PodGroup
// is made again without the constraint and the members, declared again, join it.
TEST(CoscheduleTest, AReplantThatChangesTheGangMakesItsWorkloadAndPodGroupAgain) {
  SimProcess sim;  // three nodes of 8 cpu
  ASSERT_TRUE(sim.running());
  fs::path seed = sim.dir() / "gang.yaml", report = sim.dir() / "report.json";
  std::ofstream(seed) << gang_seed(1, "  topology: {key: kubernetes.io/hostname}\n");
  std::string target = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(seed);
  CommandResult r = planter("plant " + target + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ASSERT_EQ(job_pods(sim, 2).size(), 2u) << sim.kubectl("get pods -o wide").out;

  std::ofstream(seed) << gang_seed(1);
  r = planter("diff " + target);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("to be deleted and created again (planter.nephio.org/on-immutable: "
                               "replace):\n  scheduling.k8s.io/v1beta1 Workload default/train on "
                               "SELF: spec.podGroupTemplates cannot change\n"
                               "  scheduling.k8s.io/v1beta1 PodGroup default/train on SELF: "
                               "spec.schedulingConstraints cannot change"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("-  schedulingConstraints:")) << r.out;

  auto replanting = std::async(std::launch::async, [&] {
    return planter("replant " + target + " --timeout 60 --report " + q(report));
  });
  std::string deleting;
  for (int i = 0; i < 200 && deleting.empty(); ++i) {
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    deleting =
        sim.kubectl(
               "get podgroups.scheduling.k8s.io train -o jsonpath={.metadata.deletionTimestamp}")
            .out;
  }
  ASSERT_FALSE(deleting.empty()) << "the replant deletes the PodGroup";
  // sleep-ok(none): the replant, waiting, must not make the PodGroup again meanwhile
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.k8s.io train -o "
                        "jsonpath={.metadata.deletionTimestamp}{.metadata.finalizers}")
                .out,
            deleting + "[\"scheduling.k8s.io/podgroup-protection\"]")
      << "held while the worker runs";
  // The gang ends: its members go (and come again with the replant, a new gang of two). The
  // driver first: its pod is done and does not hold the PodGroup, the worker's does, so once
  // the worker goes the replant goes on, and a Job deleted after that would stay deleted.
  ASSERT_EQ(sim.kubectl("delete job driver").code, 0);
  ASSERT_EQ(sim.kubectl("delete deployment workers").code, 0);
  r = replanting.get();
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("preflight: scheduling.k8s.io/v1beta1 PodGroup default/train on "
                               "SELF is deleted and created again: spec.schedulingConstraints "
                               "cannot change"))
      << r.out;
  auto applied = applied_by_object(report);
  EXPECT_EQ(applied["PodGroup/default/train"], "replaced");
  EXPECT_EQ(applied["Workload/default/train"], "replaced");
  EXPECT_EQ(sim.kubectl("get podgroups.scheduling.k8s.io train -o "
                        "jsonpath={.spec.schedulingConstraints}")
                .out,
            "");
  auto pods = job_pods(sim, 2);  // the driver's, done, and a new worker's
  bool worker_bound = false;
  for (const auto& [name, at] : pods)
    worker_bound |= name.starts_with("workers-") && !at.node.empty();
  EXPECT_TRUE(worker_bound) << sim.kubectl("get pods -o wide").out;
}

// A user's own object with an immutable change is refused before anything is written, saying
// how to have it made again; annotated, the replant makes it again.
TEST(CoscheduleTest, AnImmutableChangeOfAnObjectThatDoesNotSaySoIsRefusedBeforeAnyWrite) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  auto workload = [](int min_count, const std::string& annotations) {
    return fmt::format(R"(apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: default}}
data: {{min: "{0}"}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata:
  name: batch
  namespace: default
{1}spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {{gang: {{minCount: {0}}}}}
)",
                       min_count, annotations);
  };
  fs::path seed = sim.dir() / "workload.yaml";
  std::string target = "--kubeconfig " + q(sim.kubeconfig()) + " " + q(seed);
  std::ofstream(seed) << workload(2, "");
  ASSERT_EQ(planter("plant " + target + " --timeout 20").code, 0);
  std::ofstream(seed) << workload(3, "");
  CommandResult r = planter("plant " + target + " --timeout 20");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("workload.yaml:6: scheduling.k8s.io/v1beta1 Workload default/batch"))
      << r.err;
  EXPECT_THAT(r.err, HasSubstr("field is immutable")) << r.err;
  EXPECT_THAT(r.err, HasSubstr("annotate the object planter.nephio.org/on-immutable: replace"))
      << r.err;
  EXPECT_EQ(sim.kubectl("get configmap settings -o jsonpath={.data.min}").out, "2")
      << "nothing is written";

  std::ofstream(seed) << workload(3, "  annotations: {planter.nephio.org/on-immutable: replace}\n");
  r = planter("replant " + target + " --timeout 20");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(sim.kubectl("get workloads.scheduling.k8s.io batch -o "
                        "jsonpath={.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount}")
                .out,
            "3");
}

// One seed, four kinds of cluster: a mode-gang stack of three 2-cpu workers is ganged with what
// each cluster serves (plant/gang_paths.h) and its pods are placed together on every one.
struct GangCluster {
  const char* name;
  const char* api_level;
  bool plugins_crd;       // scheduler-plugins' PodGroup CRD installed
  const char* says;       // what plant says of the gang ("" for v1beta1, as planned)
  const char* group_api;  // the PodGroup's apiVersion; "" for an anchor
};

class GangPathTest : public ::testing::TestWithParam<GangCluster> {};

TEST_P(GangPathTest, TheSameSeedPlacesTheGroupTogether) {
  const GangCluster& c = GetParam();
  SimProcess sim({"--api-level", c.api_level});
  ASSERT_TRUE(sim.running());
  if (c.plugins_crd) {
    ASSERT_EQ(sim.kubectl("apply -f " + q(fs::path(PLANTER_SOURCE_DIR) /
                                          "deploy/scheduler/scheduling.x-k8s.io_podgroups.yaml"))
                  .code,
              0);
  }
  // Served once established (as `kubectl get` sees it), before planter asks.
  for (int i = 0; c.plugins_crd && i < 100; ++i) {
    if (sim.kubectl("get podgroups.scheduling.x-k8s.io").code == 0) break;
    // sleep-ok(poll): the step of a wait for the CRD to be served, with a bound
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::optional<PlanterProcess> scheduler;
  if (c.plugins_crd)
    scheduler.emplace(
        std::vector<std::string>{"scheduler", "--kubeconfig", sim.kubeconfig().string(),
                                 "--metrics-addr", "0", "--health-addr", "0"},
        sim.dir() / "scheduler.log");
  fs::path seed = sim.dir() / "gang.yaml";
  std::ofstream(seed) << R"(apiVersion: planter.nephio.org/v1alpha1
kind: Stack
metadata: {name: train}
spec:
  selector: {matchLabels: {stack: train}}
  coschedule: {mode: gang}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: workers, namespace: default, labels: {stack: train}}
spec:
  replicas: 3
  selector: {matchLabels: {app: workers}}
  template:
    metadata: {labels: {app: workers}}
    spec:
      containers: [{name: main, image: registry.example/train:1, resources: {requests: {cpu: "2"}}}]
)";
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed) + " --timeout 30");
  ASSERT_EQ(r.code, 0) << r.out << r.err << (scheduler ? scheduler->log() : "");
  if (*c.says) {
    EXPECT_THAT(r.out, HasSubstr(std::string("stack train: its cluster gangs it with ") + c.says))
        << r.out;
  } else {
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("gangs it with"))) << r.out;
  }
  std::map<std::string, PodAt> pods = job_pods(sim, 3);
  std::set<std::string> nodes;
  size_t workers = 0;
  for (const auto& [name, at] : pods) {
    if (!name.starts_with("workers-")) continue;
    ++workers;
    EXPECT_FALSE(at.node.empty()) << name;
    nodes.insert(at.node);
  }
  EXPECT_EQ(workers, 3u) << sim.kubectl("get pods -o wide").out;
  if (*c.group_api) {
    json::value groups = json::parse(sim.kubectl("get podgroups -A -o json").out);
    ASSERT_EQ(groups.at("items").as_array().size(), 1u);
    EXPECT_EQ(groups.at("items").as_array()[0].at("apiVersion"), c.group_api);
  } else {
    EXPECT_EQ(nodes.size(), 1u) << "an anchor holds the group on one node";
    EXPECT_EQ(sim.kubectl("get statefulset train-anchor -o name").code, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Clusters, GangPathTest,
    ::testing::Values(GangCluster{"Kubernetes137", "1.37", false, "", "scheduling.k8s.io/v1beta1"},
                      GangCluster{"Kubernetes136", "1.36", false,
                                  "Kubernetes' PodGroup (scheduling.k8s.io/v1alpha2)",
                                  "scheduling.k8s.io/v1alpha2"},
                      GangCluster{"SchedulerPlugins", "1.33", true,
                                  "scheduler-plugins' PodGroup with planter's scheduler",
                                  "scheduling.x-k8s.io/v1alpha1"},
                      GangCluster{"Neither", "1.33", false, "an anchor on one node", ""}),
    [](const auto& info) { return std::string(info.param.name); });

// `planter plant --sim` runs planter's scheduler for the simulated management cluster itself:
// the members do not wait for a scheduler nobody started.
TEST(CoscheduleTest, PlantWithTheEmbeddedSimNeedsNoSchedulerStarted) {
  fs::path dir = fs::temp_directory_path() / ("planter-cosched-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path seed = dir / "group.yaml";
  std::string stack = kAnchorStack;
  stack.replace(stack.find("mode: anchor"), 12, "mode: scheduler");
  std::ofstream(seed) << group("1", "standard") << stack;
  CommandResult r = planter("plant --sim " + q(seed) + " --timeout 30");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 5 units"));
  fs::remove_all(dir);
}

// The same on a workload cluster the seed creates: its scheduler starts once the simulated fleet
// serves the cluster.
TEST(CoscheduleTest, PlantWithTheEmbeddedSimSchedulesOnAWorkloadClusterTheSeedCreates) {
  fs::path dir = fs::temp_directory_path() / ("planter-cosched-edge-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path seed = dir / "group.yaml";
  std::string stack = kAnchorStack;
  stack.replace(stack.find("mode: anchor"), 12, "mode: scheduler");
  std::ofstream(seed) << "apiVersion: planter.nephio.org/v1alpha1\nkind: Cluster\nmetadata: "
                         "{name: edge1, namespace: default}\n---\n"
                      << group("1", "standard") << stack;
  CommandResult r = planter("plant --sim --default-cluster edge1 " + q(seed) + " --timeout 30");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("planted 6 units"));
  EXPECT_THAT(r.out, HasSubstr("edge1  scheduling.x-k8s.io/v1alpha1 PodGroup default/ci: created"));
  fs::remove_all(dir);
}

// A pipeline run whose claim carries the run's label (so the claim is a member of the stack too),
// three steps of 3 cpu mounting it, co-scheduled with an isolated anchor.
std::string isolated_run(const std::string& name) {
  std::string out = "---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
                    "-work, namespace: default, labels: {run: " + name +
                    "}}\nspec:\n  accessModes: [ReadWriteOnce]\n  storageClassName: local\n"
                    "  resources: {requests: {storage: 1Gi}}\n";
  for (const char* step : {"a", "b", "c"})
    out += "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name + "-" + step +
           "\n  namespace: default\n  labels: {run: " + name + R"(}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: step
        image: busybox
        resources: {requests: {cpu: "3", memory: 256Mi}}
        volumeMounts: [{name: work, mountPath: /work}]
      volumes: [{name: work, persistentVolumeClaim: {claimName: )" +
           name + "-work}}]\n";
  out += "---\napiVersion: planter.nephio.org/v1alpha1\nkind: Stack\nmetadata: {name: " + name +
         "}\nspec:\n  selector: {matchLabels: {run: " + name +
         "}}\n  coschedule: {mode: anchor, isolate: true}\n";
  return out;
}

const char* kTwoBigNodes = R"(apiVersion: v1
kind: Node
metadata:
  name: big-0
  labels: {kubernetes.io/hostname: big-0}
status:
  allocatable: {cpu: "20", memory: 64Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: big-1
  labels: {kubernetes.io/hostname: big-1}
status:
  allocatable: {cpu: "20", memory: 64Gi, pods: "110"}
)";

// Tekton's failure, as the issue tells it: two isolated runs, each whole on one node, and small
// decoy nodes (the sim's three of 8 cpu, too small for a run of 9). The first run takes a big node;
// the second's anchor may not share it (isolation), so planter must place it on the other big node,
// not where the scheduler alone would put it. Every pod runs where its run's claim is.
TEST(CoscheduleTest, TwoIsolatedRunsLandOnTwoNodesWhereEachWholeRunFits) {
  SimProcess sim({"--workload-delay", "100"});
  ASSERT_TRUE(sim.running());
  fs::path nodes = sim.dir() / "nodes.yaml", seed = sim.dir() / "runs.yaml";
  std::ofstream(nodes) << kTwoBigNodes;
  std::ofstream(seed) << isolated_run("run-x") << isolated_run("run-y");
  ASSERT_EQ(sim.kubectl("apply -f " + q(nodes)).code, 0);
  CommandResult fit = planter("plan " + q(seed) + " --fit --kubeconfig " + q(sim.kubeconfig()));
  EXPECT_EQ(fit.code, 0) << fit.out << fit.err;
  CommandResult r =
      planter("plant --timeout 60 --kubeconfig " + q(sim.kubeconfig()) + " " + q(seed));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  auto pods = job_pods(sim, 8);
  ASSERT_EQ(pods.size(), 8u) << sim.kubectl("get pods -o wide").out;
  std::map<std::string, std::set<std::string>> nodes_of_run;
  for (const auto& [name, at] : pods) nodes_of_run[name.substr(0, 5)].insert(at.node);
  ASSERT_EQ(nodes_of_run.size(), 2u);
  for (const auto& [run, on] : nodes_of_run) {
    ASSERT_EQ(on.size(), 1u) << run
                             << " is whole on one node: " << sim.kubectl("get pods -o wide").out;
    EXPECT_THAT(*on.begin(), ::testing::StartsWith("big-")) << run;
    // plan --fit said where, and it is where the pods went.
    EXPECT_THAT(fit.out, HasSubstr("stack " + run + " on SELF: fits on node " + *on.begin()))
        << fit.out;
  }
  EXPECT_NE(*nodes_of_run["run-x"].begin(), *nodes_of_run["run-y"].begin())
      << "isolated runs share no node";
  // The claims, members of their stacks, did not wait for the anchors that mount them.
  for (const char* run : {"run-x", "run-y"}) {
    json::value pvc = json::parse(sim.kubectl(std::string("get pvc ") + run + "-work -o json").out);
    EXPECT_EQ(pvc.at("status").at("phase"), "Bound") << run;
  }
}

}  // namespace
}  // namespace planter::testing
