// `planter scheduler` against the sim: gangs of scheduler-plugins' PodGroup API placed all or
// nothing, two gangs competing for room, and a scheduler killed in the middle of a gang. The
// sim's own scheduler leaves these pods alone (their schedulerName is planter); the sim's
// binding subresource refuses a second binding, and its audit log shows every one.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
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
using namespace std::chrono_literals;
using ::testing::HasSubstr;

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds limit,
                std::chrono::milliseconds step = 50ms) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(step);
  }
  return done();
}

void apply_yaml(const SimProcess& sim, const std::string& yaml) {
  fs::path f = sim.dir() / fmt::format("apply-{}.yaml", std::hash<std::string>{}(yaml));
  std::ofstream(f) << yaml;
  CommandResult r = sim.kubectl("apply -f " + q(f));
  ASSERT_EQ(r.code, 0) << r.err;
}

// A PodGroup and its pods, each asking `cpu`; `volumes`, when given, is each pod's spec.volumes.
std::string gang(const std::string& name, int pods, int min_member, const std::string& cpu,
                 int timeout_s = 60, const std::string& volumes = "") {
  std::string out = fmt::format(R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {{name: {0}, namespace: default}}
spec: {{minMember: {1}, scheduleTimeoutSeconds: {2}}}
)",
                                name, min_member, timeout_s);
  for (int i = 0; i < pods; ++i)
    out += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata:
  name: {0}-{1}
  namespace: default
  labels: {{scheduling.x-k8s.io/pod-group: {0}}}
spec:
  schedulerName: planter
  containers: [{{name: main, image: busybox, resources: {{requests: {{cpu: "{2}", memory: 256Mi}}}}}}]
)",
                       name, i, cpu) +
           (volumes.empty() ? "" : "  volumes: " + volumes + "\n");
  return out;
}

// pod name -> node ("" when not bound), for the pods of a gang (those labelled `label`=`group`).
std::map<std::string, std::string> nodes_of(
    const SimProcess& sim, const std::string& group,
    const std::string& label = "scheduling.x-k8s.io/pod-group") {
  std::map<std::string, std::string> out;
  auto r = sim.kubectl("get pods -n default -l " + label + "=" + group + " -o json");
  if (r.code != 0) {
    // Never an empty answer that "none is bound" would take for a pass.
    ADD_FAILURE() << "kubectl get pods failed: " << r.err;
    return out;
  }
  json::value list = json::parse(r.out);
  for (const auto& p : list.at("items").as_array()) {
    auto* node = p.at("spec").as_object().if_contains("nodeName");
    out[std::string(p.at("metadata").at("name").as_string())] =
        node ? std::string(node->as_string()) : "";
  }
  return out;
}

size_t bound(const std::map<std::string, std::string>& pods) {
  size_t n = 0;
  for (const auto& [pod, node] : pods) n += node.empty() ? 0 : 1;
  return n;
}

// A token for planter scheduler's ServiceAccount (deploy/scheduler/rbac.yaml), in a file the sim
// reads with --token-auth-file.
std::string scheduler_token_file() {
  fs::path tokens =
      fs::temp_directory_path() / fmt::format("planter-gang-tokens-{}.csv", ::getpid());
  std::ofstream(tokens) << "scheduler-token,system:serviceaccount:kube-system:planter-scheduler,"
                           "1,\"system:serviceaccounts,system:serviceaccounts:kube-system\"\n";
  return tokens.string();
}

// planter scheduler as deploy/scheduler ships it: its own ServiceAccount with the shipped RBAC,
// on a sim that authorizes by RBAC, so every test here also shows the shipped rules are enough.
// The sim's node names, as kubectl lists them.
std::vector<std::string> node_names(const SimProcess& sim) {
  json::value nodes = json::parse(sim.kubectl("get nodes -o json").out);
  std::vector<std::string> out;
  for (const json::value& n : nodes.at("items").as_array())
    out.emplace_back(n.at("metadata").at("name").as_string());
  return out;
}

// A ResourceSlice of two devices (gpu-0, gpu-1) of driver gpu.example.com for each node.
std::string two_gpu_slices(const std::vector<std::string>& nodes) {
  std::string out;
  for (const std::string& n : nodes)
    out += fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: {0}-gpus}}
spec:
  driver: gpu.example.com
  nodeName: {0}
  pool: {{name: {0}, generation: 1, resourceSliceCount: 1}}
  devices: [{{name: gpu-0}}, {{name: gpu-1}}]
)",
                       n);
  return out;
}

class GangTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(sim_.running());
    fs::path deploy = fs::path(PLANTER_SOURCE_DIR) / "deploy/scheduler";
    ASSERT_EQ(sim_.kubectl("apply -f " + q(deploy / "scheduling.x-k8s.io_podgroups.yaml") + " -f " +
                           q(deploy / "rbac.yaml"))
                  .code,
              0);
    ASSERT_TRUE(eventually(
        [&] { return sim_.kubectl("get podgroups.scheduling.x-k8s.io -n default").code == 0; },
        10s));
  }
  std::unique_ptr<PlanterProcess> scheduler(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"scheduler",
                                     "--kubeconfig",
                                     sim_.kubeconfig_with_token("scheduler-token").string(),
                                     "--metrics-addr",
                                     "0",
                                     "--health-addr",
                                     "0",
                                     "--leader-elect=false"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<PlanterProcess>(args, sim_.dir() / "scheduler.log");
  }
  // Three 8-cpu nodes; a claim is provisioned 300 ms after it can be (a slow backend), so that a
  // binding that does not wait for its claims to be Bound is seen in the audit log.
  SimProcess sim_{std::vector<std::string>{"--workload-delay", "100", "--volume-delay", "300",
                                           "--authorization", "RBAC", "--token-auth-file",
                                           scheduler_token_file()}};
};

TEST_F(GangTest, AGangBindsOnlyWhenAllOfItFitsAndANewNodeCompletesIt) {
  auto s = scheduler();
  apply_yaml(sim_, gang("g", 4, 4, "5"));  // one 5-cpu pod per node: three fit, not four
  // The scheduler has considered the gang once it says why the pods wait: only then does "none
  // is bound" mean something.
  std::string why;
  ASSERT_TRUE(eventually(
      [&] {
        why = sim_.kubectl("get pod g-0 -o jsonpath={.status.conditions[0].message}").out;
        return why.find("cannot be placed together") != std::string::npos;
      },
      30s))
      << why << s->log();
  auto pods = nodes_of(sim_, "g");
  ASSERT_EQ(pods.size(), 4u);
  EXPECT_EQ(bound(pods), 0u) << "none of the gang is bound\n" << s->log();
  EXPECT_THAT(why, HasSubstr("pod group default/g: 4 pods cannot be placed together")) << why;
  EXPECT_THAT(why, HasSubstr("Insufficient cpu"));
  EXPECT_TRUE(eventually(
      [&] {
        return sim_.kubectl("get podgroups.scheduling.x-k8s.io g -o jsonpath={.status.phase}")
                   .out == "Pending";
      },
      30s));
  EXPECT_THAT(sim_.kubectl("get events --field-selector involvedObject.kind=PodGroup").out,
              HasSubstr("FailedScheduling"));

  apply_yaml(sim_, R"(apiVersion: v1
kind: Node
metadata:
  name: new-node
  labels: {kubernetes.io/hostname: new-node}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)");
  // How fast is bench/planter_scheduler_bench's to say; here, that it happens.
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "g")) == 4; }, 30s, 20ms))
      << sim_.kubectl("get pods -o wide").out << s->log();
  EXPECT_TRUE(eventually(
      [&] {
        return sim_.kubectl("get podgroups.scheduling.x-k8s.io g -o jsonpath={.status.phase}")
                   .out == "Scheduled";
      },
      5s));
  EXPECT_THAT(sim_.kubectl("get events --field-selector reason=Scheduled").out,
              HasSubstr("Successfully assigned default/g-0 to"));
}

// Kubernetes' own PodGroup (scheduling.k8s.io/v1beta1) and pods of planter's scheduler joining it
// through spec.schedulingGroup, `pods` of them asking `cpu`; `constraints`, when given, is the
// PodGroup's spec.schedulingConstraints.
std::string upstream_gang(const std::string& name, int pods, int min_count, const std::string& cpu,
                          const std::string& constraints = "") {
  std::string out = fmt::format(R"(apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: {0}, namespace: default}}
spec:
  schedulingPolicy: {{gang: {{minCount: {1}}}}}
)",
                                name, min_count) +
                    (constraints.empty() ? "" : "  schedulingConstraints: " + constraints + "\n");
  for (int i = 0; i < pods; ++i)
    out += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {0}-{1}, namespace: default, labels: {{gang: {0}}}}}
spec:
  schedulerName: planter
  schedulingGroup: {{podGroupName: {0}}}
  containers: [{{name: main, image: busybox, resources: {{requests: {{cpu: "{2}", memory: 256Mi}}}}}}]
)",
                       name, i, cpu);
  return out;
}

std::string scheduled_condition(const SimProcess& sim, const std::string& group) {
  auto r = sim.kubectl("get podgroups.scheduling.k8s.io " + group + " -o json");
  if (r.code != 0) return "";
  json::value pg = json::parse(r.out);
  const json::value* conds = pg.as_object().contains("status")
                                 ? pg.at("status").as_object().if_contains("conditions")
                                 : nullptr;
  if (conds && conds->is_array())
    for (const json::value& c : conds->as_array())
      if (c.at("type") == "PodGroupScheduled") return std::string(c.at("status").as_string());
  return "";
}

// For a cluster whose kube-scheduler lacks the gang gate, planter's scheduler honours Kubernetes'
// own PodGroups with kube-scheduler's semantics: none bound until minCount of the group fit
// (four 5-cpu pods, three 8-cpu nodes), then all that fit; PodGroupScheduled says so.
TEST_F(GangTest, AnUpstreamPodGroupBindsOnlyOnceMinCountOfItFits) {
  auto s = scheduler();
  apply_yaml(sim_, upstream_gang("u", 4, 4, "5"));
  std::string why;
  ASSERT_TRUE(eventually(
      [&] {
        why = sim_.kubectl("get pod u-0 -o jsonpath={.status.conditions[0].message}").out;
        return why.find("minCount 4 not reached") != std::string::npos;
      },
      30s))
      << why << s->log();
  EXPECT_EQ(bound(nodes_of(sim_, "u", "gang")), 0u) << "none of the gang is bound\n" << s->log();
  EXPECT_THAT(why, HasSubstr("pod group default/u: minCount 4 not reached: 0 bound, 3 more fit"));
  EXPECT_THAT(why, HasSubstr("Insufficient cpu"));
  EXPECT_TRUE(eventually([&] { return scheduled_condition(sim_, "u") == "False"; }, 30s));
  apply_yaml(sim_, R"(apiVersion: v1
kind: Node
metadata:
  name: new-node
  labels: {kubernetes.io/hostname: new-node}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)");
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "u", "gang")) == 4; }, 30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
  EXPECT_TRUE(eventually([&] { return scheduled_condition(sim_, "u") == "True"; }, 10s))
      << sim_.kubectl("get podgroups.scheduling.k8s.io u -o yaml").out;
}

// An upstream PodGroup's topology constraint: the whole gang in one domain of the key. Two nodes
// of rack a, one of rack b, one 5-cpu pod per node: three such pods wait although the three nodes
// could hold them, and go to rack a once it has a third node.
TEST_F(GangTest, AnUpstreamPodGroupWithATopologyConstraintKeepsToOneRack) {
  std::vector<std::string> nodes = node_names(sim_);
  ASSERT_EQ(nodes.size(), 3u);
  for (size_t i = 0; i < nodes.size(); ++i)
    ASSERT_EQ(
        sim_.kubectl("label node " + nodes[i] + " example.com/rack=" + (i < 2 ? "a" : "b")).code,
        0);
  auto s = scheduler();
  apply_yaml(sim_, upstream_gang("r", 3, 3, "5", "{topology: [{key: example.com/rack}]}"));
  std::string why;
  ASSERT_TRUE(eventually(
      [&] {
        why = sim_.kubectl("get pod r-0 -o jsonpath={.status.conditions[0].message}").out;
        return why.find("minCount 3 not reached") != std::string::npos;
      },
      30s))
      << why << s->log();
  EXPECT_THAT(why, HasSubstr("2 more fit in one domain of example.com/rack"));
  EXPECT_EQ(bound(nodes_of(sim_, "r", "gang")), 0u) << s->log();
  apply_yaml(sim_, R"(apiVersion: v1
kind: Node
metadata:
  name: rack-a-3
  labels: {kubernetes.io/hostname: rack-a-3, example.com/rack: a}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
)");
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "r", "gang")) == 3; }, 30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
  for (const auto& [pod, node] : nodes_of(sim_, "r", "gang")) {
    json::value n = json::parse(sim_.kubectl("get node " + node + " -o json").out);
    EXPECT_EQ(n.at("metadata").at("labels").at("example.com/rack"), "a") << pod << " on " << node;
  }
}

// A gang's pods seen before their PodGroup (two watches, no order between them) wait for it, and
// are placed once it comes: the PodGroup arriving is a change that lets them be looked at again.
TEST_F(GangTest, PodsThatCameBeforeTheirPodGroupArePlacedWhenItComes) {
  auto s = scheduler();
  std::string all = gang("late", 2, 2, "1");
  size_t pods_start = all.find("---\n");
  apply_yaml(sim_, all.substr(pods_start + 4));  // the pods only
  std::string why;
  ASSERT_TRUE(eventually(
      [&] {
        why = sim_.kubectl("get pod late-0 -o jsonpath={.status.conditions[0].message}").out;
        return why.find("PodGroup default/late not found") != std::string::npos;
      },
      30s))
      << why << s->log();
  apply_yaml(sim_, all.substr(0, pods_start));  // the PodGroup
  EXPECT_TRUE(eventually([&] { return bound(nodes_of(sim_, "late")) == 2; }, 30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
}

// planter's scheduler counts every resource a node advertises (issue 30: it bound two pods of one
// GPU each to a node with one, which a kubelet rejects): of two single pods asking a GPU, on a
// cluster with one GPU, one is bound and the other waits in kube-scheduler's words.
TEST_F(GangTest, TwoOneGpuPodsOnOneGpuNodeOneBindsTheOtherWaits) {
  apply_yaml(sim_, R"(apiVersion: v1
kind: Node
metadata:
  name: gpu-node
  labels: {kubernetes.io/hostname: gpu-node}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "1"}
)");
  auto s = scheduler();
  std::string pods;
  for (const char* name : {"train-0", "train-1"})
    pods += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {0}, namespace: default, labels: {{app: train}}}}
spec:
  schedulerName: planter
  containers: [{{name: main, image: trainer, resources: {{limits: {{nvidia.com/gpu: "1"}}}}}}]
)",
                        name);
  apply_yaml(sim_, pods);
  auto node_of = [&](const char* pod) {
    return sim_.kubectl(std::string("get pod ") + pod + " -o jsonpath={.spec.nodeName}").out;
  };
  auto reason_of = [&](const char* pod) {
    return sim_
        .kubectl(std::string("get pod ") + pod + " -o " +
                 q("jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"))
        .out;
  };
  std::string waiting;
  ASSERT_TRUE(eventually(
      [&] {
        bool one_bound = (node_of("train-0") == "gpu-node") != (node_of("train-1") == "gpu-node");
        waiting = node_of("train-0").empty() ? "train-0" : "train-1";
        return one_bound && !reason_of(waiting.c_str()).empty();
      },
      30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
  EXPECT_EQ(reason_of(waiting.c_str()), "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.")
      << s->log();
  std::string bound_pod = waiting == "train-0" ? "train-1" : "train-0";
  EXPECT_TRUE(eventually(
      [&] {
        return sim_.kubectl("get pod " + bound_pod + " -o jsonpath={.status.phase}").out ==
               "Running";
      },
      30s))
      << "the kubelet admitted the one bound: " << sim_.kubectl("get pods -o wide").out;
}

// Dynamic Resource Allocation by planter scheduler, as kube-scheduler's DynamicResources does it:
// a gang of two pods that claim two GPUs each (a ResourceClaimTemplate) on a cluster whose GPU
// nodes publish two each: each pod's claim is allocated on its node and reserved for it before
// the pod is bound, one pod per GPU node; a third such pod finds no node with two free and waits
// in the plugin's words.
TEST_F(GangTest, AGangThatClaimsGpusHasThemAllocatedBeforeItsPodsAreBound) {
  std::vector<std::string> nodes = node_names(sim_);
  ASSERT_EQ(nodes.size(), 3u);
  std::string devices = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: pair, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, count: 2}}]
)";
  devices += two_gpu_slices({nodes[0], nodes[1]});
  apply_yaml(sim_, devices);
  auto s = scheduler();
  std::string pods = R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: train, namespace: default}
spec: {minMember: 2}
)";
  for (const char* name : {"train-0", "train-1", "extra"})
    pods += fmt::format(
        R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {0}, namespace: default, labels: {1}}}
spec:
  schedulerName: planter
  resourceClaims: [{{name: gpu, resourceClaimTemplateName: pair}}]
  containers: [{{name: main, image: trainer, resources: {{claims: [{{name: gpu}}]}}}}]
)",
        name, std::string(name) == "extra" ? "{}" : "{scheduling.x-k8s.io/pod-group: train}");
  apply_yaml(sim_, pods);
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "train")) == 2; }, 30s))
      << sim_.kubectl("get pods,resourceclaims -o wide").out << s->log();
  std::map<std::string, std::string> at = nodes_of(sim_, "train");
  EXPECT_EQ((std::set<std::string>{at["train-0"], at["train-1"]}),
            (std::set<std::string>{nodes[0], nodes[1]}));
  for (const auto& [pod, node] : at) {
    json::value p = json::parse(sim_.kubectl("get pod " + pod + " -o json").out);
    std::string claim(
        p.at("status").at("resourceClaimStatuses").at(0).at("resourceClaimName").as_string());
    json::value c = json::parse(sim_.kubectl("get resourceclaim " + claim + " -o json").out);
    const json::array& results =
        c.at("status").at("allocation").at("devices").at("results").as_array();
    ASSERT_EQ(results.size(), 2u) << json::serialize(c);
    for (const json::value& r : results) EXPECT_EQ(r.at("pool").as_string(), node) << pod;
    EXPECT_EQ(c.at("status").at("reservedFor").at(0).at("name").as_string(), pod);
  }
  // Allocated before bound: each claim's status was written before its pod's binding.
  std::vector<AuditEntry> audit = parse_audit(sim_.audit_lines());
  for (const auto& [pod, node] : at) {
    size_t bound_at = 0, reserved_at = 0;
    for (const AuditEntry& e : audit) {
      if (e.object == "|Pod|default|" + pod && e.verb == "bind") bound_at = e.index;
      if (e.object.starts_with("resource.k8s.io|ResourceClaim|default|" + pod + "-gpu-") &&
          e.verb == "update" && reserved_at == 0)
        reserved_at = e.index;
    }
    EXPECT_NE(reserved_at, 0u) << pod;
    EXPECT_LT(reserved_at, bound_at) << pod;
  }
  auto reason = [&] {
    return sim_
        .kubectl("get pod extra -o " +
                 q("jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"))
        .out;
  };
  ASSERT_TRUE(eventually([&] { return !reason().empty(); }, 30s)) << s->log();
  EXPECT_EQ(reason(), "0/3 nodes are available: 3 cannot allocate all claims.");
}

// Extended resources served by devices (KEP-5004), as kube-scheduler's DynamicResources PreBind
// serves them: a gang of two pods asking example.com/gpu: 2, which no node lists and a DeviceClass
// names as its extendedResourceName: each pod gets a claim of its own
// (`<pod>-extended-resources-`, owned by it) with two devices of its node allocated and reserved,
// and its status.extendedResourceClaimStatus maps its container's resource to the claim's
// request, before it is bound.
TEST_F(GangTest, AGangAskingAnExtendedResourceDevicesServeGetsAClaimPerPod) {
  std::vector<std::string> nodes = node_names(sim_);
  ASSERT_EQ(nodes.size(), 3u);
  const std::string &first = nodes[0], &second = nodes[1];
  std::string devices = R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
)";
  devices += two_gpu_slices({first, second});
  apply_yaml(sim_, devices);
  auto s = scheduler();
  std::string pods = R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: infer, namespace: default}
spec: {minMember: 2}
)";
  for (const char* name : {"infer-0", "infer-1"})
    pods += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {0}, namespace: default, labels: {{scheduling.x-k8s.io/pod-group: infer}}}}
spec:
  schedulerName: planter
  containers:
  - name: main
    image: server
    resources: {{requests: {{cpu: 100m, example.com/gpu: "2"}}, limits: {{example.com/gpu: "2"}}}}
)",
                        name);
  apply_yaml(sim_, pods);
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "infer")) == 2; }, 30s))
      << sim_.kubectl("get pods,resourceclaims -o wide").out << s->log();
  std::map<std::string, std::string> at = nodes_of(sim_, "infer");
  EXPECT_EQ((std::set<std::string>{at["infer-0"], at["infer-1"]}),
            (std::set<std::string>{first, second}));
  for (const auto& [pod, node] : at) {
    json::value p = json::parse(sim_.kubectl("get pod " + pod + " -o json").out);
    const json::value& ext = p.at("status").at("extendedResourceClaimStatus");
    EXPECT_EQ(ext.at("requestMappings"),
              json::parse(R"([{"containerName":"main","resourceName":"example.com/gpu",)"
                          R"("requestName":"container-0-request-1"}])"));
    std::string claim(ext.at("resourceClaimName").as_string());
    EXPECT_TRUE(claim.starts_with(pod + "-extended-resources-")) << claim;
    json::value c = json::parse(sim_.kubectl("get resourceclaim " + claim + " -o json").out);
    EXPECT_EQ(c.at("metadata").at("ownerReferences").at(0).at("name").as_string(), pod);
    const json::array& results =
        c.at("status").at("allocation").at("devices").at("results").as_array();
    ASSERT_EQ(results.size(), 2u) << json::serialize(c);
    for (const json::value& r : results) {
      EXPECT_EQ(r.at("pool").as_string(), node) << pod;
      EXPECT_EQ(r.at("request").as_string(), "container-0-request-1") << pod;
    }
    EXPECT_EQ(c.at("status").at("reservedFor").at(0).at("name").as_string(), pod);
  }
  // Running: the kubelet admits them though their nodes list no example.com/gpu.
  EXPECT_EQ(sim_.kubectl("wait --for=condition=Ready pod -l scheduling.x-k8s.io/pod-group=infer "
                         "--timeout 30s")
                .code,
            0)
      << sim_.kubectl("get pods -o yaml").out;
}

TEST_F(GangTest, OfTwoGangsThatCannotBothFitOneBindsWholeAndTheOtherLater) {
  auto s = scheduler();
  apply_yaml(sim_, gang("first", 3, 3, "5") + "---\n" + gang("second", 3, 3, "5"));
  ASSERT_TRUE(eventually(
      [&] { return bound(nodes_of(sim_, "first")) + bound(nodes_of(sim_, "second")) >= 3; }, 10s))
      << s->log();
  // The scheduler has considered the other gang once it says why that one waits.
  auto says_why = [&](const std::string& group) {
    return sim_.kubectl("get pod " + group + "-0 -o jsonpath={.status.conditions[0].message}")
               .out.find("cannot be placed together") != std::string::npos;
  };
  ASSERT_TRUE(eventually([&] { return says_why("first") || says_why("second"); }, 30s)) << s->log();
  size_t a = bound(nodes_of(sim_, "first")), b = bound(nodes_of(sim_, "second"));
  EXPECT_TRUE((a == 3 && b == 0) || (a == 0 && b == 3))
      << "one gang whole, the other not at all: " << a << " and " << b;
  std::string winner = a == 3 ? "first" : "second", waiting = a == 3 ? "second" : "first";
  ASSERT_EQ(
      sim_.kubectl("delete pods -l scheduling.x-k8s.io/pod-group=" + winner + " --grace-period 0")
          .code,
      0);
  EXPECT_TRUE(eventually([&] { return bound(nodes_of(sim_, waiting)) == 3; }, 10s))
      << sim_.kubectl("get pods -o wide").out << s->log();
}

// /metrics through prometheus-cpp: planter's families, kube-scheduler's
// scheduler_schedule_attempts_total{profile,result} and the process collector's.
TEST_F(GangTest, ItsMetricsCountWhatItScheduledAsKubeSchedulersDo) {
  PlanterProcess s({"scheduler", "--kubeconfig", sim_.kubeconfig().string(), "--metrics-addr",
                    "127.0.0.1:0", "--health-addr", "0", "--leader-elect=false"},
                   sim_.dir() / "scheduler.log");
  apply_yaml(sim_, gang("m", 2, 2, "1"));
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "m")) == 2; }, 30s)) << s.log();
  int port = 0;
  ASSERT_TRUE(eventually(
      [&] {
        std::string log = s.log();
        size_t at = log.find("serving metrics ");
        if (at == std::string::npos || log.find("port=", at) == std::string::npos) return false;
        port = std::atoi(log.c_str() + log.find("port=", at) + 5);
        return port > 0;
      },
      10s))
      << s.log();
  CommandResult r;
  auto scrape = [&] {
    r = run_shell(
        "python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(" +
        std::string("\"http://127.0.0.1:") + std::to_string(port) +
        "/metrics\").read().decode())'");
    return r.code == 0;
  };
  // The binding is seen through kubectl a moment before the scheduler has counted its answer.
  ASSERT_TRUE(eventually(
      [&] {
        return scrape() &&
               r.out.find("planter_scheduler_schedule_attempts_total{result=\"scheduled\"} 2\n") !=
                   std::string::npos;
      },
      10s))
      << r.err << r.out;
  for (const char* line :
       {"planter_scheduler_schedule_attempts_total{result=\"scheduled\"} 2\n",
        "scheduler_schedule_attempts_total{profile=\"planter\",result=\"scheduled\"} 2\n",
        "planter_scheduler_e2e_scheduling_duration_seconds_count 2\n",
        "planter_scheduler_pending_pods 0\n", "# TYPE process_resident_memory_bytes gauge\n",
        "# TYPE process_cpu_seconds_total counter\n", "planter_build_info{version=\""})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

// The claim the gangs below share, of the sim's WaitForFirstConsumer class `local`.
constexpr const char* kWorkClaim = R"(apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: work, namespace: default}
spec:
  storageClassName: local
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
)";

bool running(const SimProcess& sim, const std::string& pod) {
  return sim.kubectl("get pod " + pod + " -o jsonpath={.status.phase}").out == "Running";
}

// kube-scheduler's VolumeBinding for a gang: the claim its pods share (of the sim's
// WaitForFirstConsumer class `local`) is bound where they go before any of them is bound, so that
// the kubelet can mount it; unconstrained, two pods of 3 cpus would go to two nodes.
TEST_F(GangTest, AGangOnASharedWaitForFirstConsumerClaimBindsItWhereItsPodsGo) {
  auto s = scheduler();
  std::string yaml = kWorkClaim;
  // Each pod of the gang mounts the claim.
  yaml += "---\n" +
          gang("w", 2, 2, "3", 60, "[{name: work, persistentVolumeClaim: {claimName: work}}]");
  apply_yaml(sim_, yaml);
  ASSERT_TRUE(eventually([&] { return running(sim_, "w-0") && running(sim_, "w-1"); }, 30s))
      << sim_.kubectl("get pods,pvc -o wide").out << sim_.kubectl("get events").out << s->log();
  auto pods = nodes_of(sim_, "w");
  EXPECT_EQ(pods["w-0"], pods["w-1"]) << "the claim ties both pods to one node";
  EXPECT_EQ(sim_.kubectl("get pvc work -o jsonpath={.status.phase}").out, "Bound");
  json::value pvc = json::parse(sim_.kubectl("get pvc work -o json").out);
  EXPECT_EQ(json::value_to<std::string>(
                pvc.at("metadata").at("annotations").at("volume.kubernetes.io/selected-node")),
            pods["w-0"]);
  CommandResult mounts = sim_.kubectl("get events --field-selector reason=FailedMount -o name");
  ASSERT_EQ(mounts.code, 0) << mounts.err;
  EXPECT_EQ(mounts.out, "") << "never bound before its claim";
  // kube-scheduler's PreBind: each pod is bound only once its claims are Bound (the sim's audit
  // log has the claim's "bound", then the pods' bindings).
  std::optional<size_t> claim_bound;
  std::vector<size_t> pod_bindings;
  for (const AuditEntry& e : parse_audit(sim_.audit_lines())) {
    if (e.what == "bound" && e.object == "|PersistentVolumeClaim|default|work")
      claim_bound = e.index;
    if (e.verb == "bind" && e.object.starts_with("|Pod|default|w-"))
      pod_bindings.push_back(e.index);
  }
  ASSERT_TRUE(claim_bound) << "the audit log says when the claim became Bound";
  ASSERT_EQ(pod_bindings.size(), 2u);
  for (size_t b : pod_bindings) EXPECT_GT(b, *claim_bound) << "a pod bound before its claim";
}

// A claim that is not there yet holds its pods back (kube-scheduler's VolumeBinding PreFilter),
// whatever order the watches tell of them: the gang is bound only once the claim comes, and then
// where the claim is bound.
TEST_F(GangTest, AGangWhoseClaimComesLaterWaitsForIt) {
  auto s = scheduler();
  apply_yaml(sim_,
             gang("w", 2, 2, "3", 60, "[{name: work, persistentVolumeClaim: {claimName: work}}]"));
  auto why = [&] {
    return sim_
        .kubectl("get pod w-0 -o " +
                 q("jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"))
        .out;
  };
  // (Before its PodGroup is seen, a pod says that the group is not found: waited past.)
  ASSERT_TRUE(
      eventually([&] { return why().find("persistentvolumeclaim") != std::string::npos; }, 30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
  // The gang's first pod tried says it (either: they were created in the same second).
  EXPECT_THAT(why(),
              ::testing::MatchesRegex("pod group default/w: 2 pods cannot be placed "
                                      "together; pod default/w-[01]: 0/3 nodes are available: "
                                      "persistentvolumeclaim \"work\" not found\\."));
  EXPECT_EQ(nodes_of(sim_, "w"), (std::map<std::string, std::string>{{"w-0", ""}, {"w-1", ""}}));
  apply_yaml(sim_, kWorkClaim);
  ASSERT_TRUE(eventually([&] { return running(sim_, "w-0") && running(sim_, "w-1"); }, 30s))
      << sim_.kubectl("get pods,pvc -o wide").out << sim_.kubectl("get events").out << s->log();
  auto pods = nodes_of(sim_, "w");
  EXPECT_EQ(pods["w-0"], pods["w-1"]);
  EXPECT_EQ(sim_.kubectl("get pvc work -o jsonpath={.status.phase}").out, "Bound");
}

// How many times each pod was bound, from the sim's audit log (refused bindings are not there).
std::map<std::string, int> bindings(const SimProcess& sim) {
  std::map<std::string, int> out;
  for (const AuditEntry& e : parse_audit(sim.audit_lines()))
    if (e.verb == "bind") ++out[e.object];
  return out;
}

TEST_F(GangTest, ASchedulerKilledInTheMiddleOfAGangIsFinishedByTheNextOne) {
  auto s = scheduler({"--bind-interval", "0.4"});
  apply_yaml(sim_, gang("g", 4, 4, "1"));
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "g")) >= 1; }, 10s)) << s->log();
  s->stop(SIGKILL);
  size_t half = bound(nodes_of(sim_, "g"));
  ASSERT_GE(half, 1u);
  ASSERT_LT(half, 4u) << "killed in the middle of the gang";
  auto again = scheduler();
  EXPECT_TRUE(eventually([&] { return bound(nodes_of(sim_, "g")) == 4; }, 10s)) << again->log();
  for (const auto& [pod, n] : bindings(sim_)) EXPECT_EQ(n, 1) << pod << " bound twice";
}

// Issue 29: a gang's node deleted while the gang was being bound got the rest bound to it, and
// the PodGroup said Scheduled 4. Now the gang is released: none of its pods stays bound, and the
// PodGroup says why.
TEST_F(GangTest, AGangWhoseNodeGoesAwayMidBindingIsReleasedNeverScheduled) {
  auto s = scheduler({"--bind-interval", "0.5"});
  apply_yaml(sim_, gang("g", 4, 4, "1"));
  std::string node;
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& [pod, n] : nodes_of(sim_, "g"))
          if (!n.empty()) node = n;
        return !node.empty();
      },
      30s))
      << s->log();
  ASSERT_EQ(sim_.kubectl("delete node " + node).code, 0);
  EXPECT_TRUE(eventually(
      [&] {
        return s->log().find("node " + node + " went away") != std::string::npos &&
               bound(nodes_of(sim_, "g")) == 0;
      },
      30s))
      << sim_.kubectl("get pods -o wide").out << s->log();
  for (const auto& [pod, n] : nodes_of(sim_, "g")) EXPECT_NE(n, node) << pod;
  EXPECT_NE(sim_.kubectl("get podgroups.scheduling.x-k8s.io g -o jsonpath={.status.phase}").out,
            "Scheduled");
  EXPECT_THAT(sim_.kubectl("get events --field-selector involvedObject.kind=PodGroup").out,
              HasSubstr("went away"));
}

TEST_F(GangTest, AGangLeftPartlyBoundThatCannotFinishIsReleasedAtItsTimeout) {
  auto s = scheduler({"--bind-interval", "0.4"});
  apply_yaml(sim_, gang("g", 3, 3, "5", 2));
  ASSERT_TRUE(eventually([&] { return bound(nodes_of(sim_, "g")) >= 1; }, 10s)) << s->log();
  s->stop(SIGKILL);
  ASSERT_LT(bound(nodes_of(sim_, "g")), 3u);
  // The room the rest needs is gone: every node without a pod of the gang is cordoned.
  std::set<std::string> used;
  for (const auto& [pod, node] : nodes_of(sim_, "g"))
    if (!node.empty()) used.insert(node);
  for (int i = 1; i <= 3; ++i) {  // the sim numbers nodes from 1
    std::string node = fmt::format("management-node-{}", i);
    if (!used.contains(node)) {
      ASSERT_EQ(sim_.kubectl("cordon " + node).code, 0) << node;
    }
  }
  std::string cordoned =
      sim_.kubectl(
              "get nodes -o jsonpath='{range .items[?(@.spec.unschedulable)]}{.metadata.name} "
              "{end}'")
          .out;
  EXPECT_EQ(std::count(cordoned.begin(), cordoned.end(), ' '), 3 - std::ssize(used))
      << "every node without a pod of the gang is cordoned: " << cordoned;
  auto again = scheduler();
  EXPECT_TRUE(eventually(
      [&] {
        auto pods = nodes_of(sim_, "g");
        return bound(pods) == 0;
      },
      10s))
      << "the partly bound gang's pods are deleted after scheduleTimeoutSeconds\n"
      << sim_.kubectl("get pods -o wide").out << again->log();
  EXPECT_THAT(again->log(), HasSubstr("pod group default/g"));
}

}  // namespace
}  // namespace planter::testing
