// Dynamic Resource Allocation planted on `planter sim` (docs/dra.md): the GPU Operator in DRA mode
// makes the driver's DeviceClass and publishes each GPU node's devices; planter declares the
// ResourceClaimTemplate once that class exists and the Job once its template does (the sim's
// audit log is the oracle of the order); the sim's scheduler allocates two GPUs on one PCIe root
// to each of the Job's pods, which run on the GPU nodes (kubectl).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <future>
#include <set>
#include <thread>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const fs::path kData = fs::path(PLANTER_TEST_DATA) / "plant";

// The nodes the pods of namespace ml on edge1 that `selector` picks are bound to.
std::multiset<std::string> pod_nodes(const SimProcess& sim, const std::string& selector) {
  json::value pods =
      json::parse(sim.kubectl("--context edge1 get pods -n ml -l " + selector + " -o json").out);
  std::multiset<std::string> out;
  for (const json::value& p : pods.at("items").as_array())
    if (const json::value* node = p.at("spec").as_object().if_contains("nodeName"))
      out.insert(std::string(node->as_string()));
  return out;
}

TEST(DraTest, TheJobsPodsGetTwoGpusEachOnTheGpuNodesAfterTheDriversClassExists) {
  // Each pod stays 5 s in ContainerCreating, so both hold their GPUs at once.
  SimProcess sim({"--workload-delay", "5000"});
  ASSERT_TRUE(sim.running());
  std::string args = q(kData / "dra.yaml") + " --default-cluster edge1";
  CommandResult planned = planter("plan -o wide " + args);
  ASSERT_EQ(planned.code, 0) << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("DeviceClass/gpu.nvidia.com exists (not in seed) "
                                     "(device-claims), GPUCluster/gpu-cluster exists"))
      << "the template waits for the driver's class, and for what makes it";
  EXPECT_THAT(planned.out, HasSubstr("node-capability devices for its claims on edge1"));
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + args + " --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  // The order: nothing declared before its requirements held.
  CommandResult json_plan = planter("plan -o json " + args);
  ASSERT_EQ(json_plan.code, 0);
  std::vector<AuditEntry> audit = parse_audit(sim.audit_lines());
  OrderCheck check = check_plant_order(json::parse(json_plan.out).as_object(), audit);
  EXPECT_THAT(check.violations, IsEmpty());
  // The Job waits for a node whose published devices can serve its claims: declared only after
  // the driver published the first GPU node's slice.
  size_t first_slice = 0, job = 0;
  for (const AuditEntry& e : audit) {
    if (e.cluster != "edge1" || e.verb.empty()) continue;
    if (e.object.starts_with("resource.k8s.io|ResourceSlice|") && !first_slice)
      first_slice = e.index;
    if (e.object == "batch|Job|ml|train" && !job) job = e.index;
  }
  EXPECT_NE(first_slice, 0u);
  EXPECT_GT(job, first_slice) << "the Job was declared before any GPU was published";

  // The Job's two pods are bound, each on a GPU node with two GPUs of one PCIe root.
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=jsonpath={.status.active}=2 job/train -n ml "
                        "--timeout 30s")
                .code,
            0);
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=PodScheduled pod -l "
                        "job-name=train -n ml --timeout 30s")
                .code,
            0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;
  json::object claims =
      json::parse(sim.kubectl("--context edge1 get resourceclaims -n ml -o json").out).as_object();
  EXPECT_EQ(pod_nodes(sim, "job-name=train"),
            (std::multiset<std::string>{"edge1-gpu-1", "edge1-gpu-2"}));
  ASSERT_EQ(claims.at("items").as_array().size(), 2u);
  for (const json::value& c : claims.at("items").as_array()) {
    const json::array& results =
        c.at("status").at("allocation").at("devices").at("results").as_array();
    ASSERT_EQ(results.size(), 2u);
    for (const json::value& d : results) EXPECT_EQ(d.at("driver").as_string(), "gpu.nvidia.com");
  }
  EXPECT_EQ(
      sim.kubectl("--context edge1 get gpucluster gpu-cluster -o jsonpath={.status.state}").out,
      "ready");

  // Finished, the pods give their GPUs back.
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=complete job/train -n ml "
                        "--timeout 60s")
                .code,
            0);
  auto allocated = [&] {
    json::value now =
        json::parse(sim.kubectl("--context edge1 get resourceclaims -n ml -o json").out);
    int n = 0;
    for (const json::value& c : now.at("items").as_array())
      n += c.as_object().contains("status") && c.at("status").as_object().contains("allocation");
    return n;
  };
  int left = allocated();
  for (auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
       left > 0 && std::chrono::steady_clock::now() < end; left = allocated())
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // sleep-ok(poll): claims' status
  EXPECT_EQ(left, 0) << sim.kubectl("--context edge1 get resourceclaims -n ml -o yaml").out;
}

// `nvidia.com/gpu: 2` in a Deployment's requests on a DRA cluster, where no node lists it: planter
// waits for the GPU Operator's GPUCluster and counts the GPUs the nodes publish (it counted
// allocatable, and waited for ever), saying the driver's progress meanwhile; the sim's scheduler
// serves each pod from the driver's devices through its DeviceClass's extendedResourceName.
TEST(DraTest, AnExtendedResourceIsServedByTheDriversDevices) {
  SimProcess sim({"--configure-delay", "1500"});  // the GPU nodes publish 1.5 s apart
  ASSERT_TRUE(sim.running());
  std::string args = q(kData / "dra-extended.yaml") + " --default-cluster edge1";
  fs::path log = sim.dir() / "plant.log";
  CommandResult r = planter("plant -v --kubeconfig " + q(sim.kubeconfig()) + " " + args +
                            " --timeout 120 >" + q(log) + " 2>&1");
  ASSERT_EQ(r.code, 0) << read_file(log);
  // Counted in devices: none is published yet, and the driver says how far it is.
  EXPECT_THAT(read_file(log),
              HasSubstr("1 node of edge1 with nvidia.com/gpu ≥ 2: 0/3 nodes have it (3 cannot "
                        "allocate all claims); GPUCluster gpu-cluster notReady (0 of 2 GPU nodes "
                        "published their devices)"));
  CommandResult json_plan = planter("plan -o json " + args);
  ASSERT_EQ(json_plan.code, 0);
  OrderCheck check =
      check_plant_order(json::parse(json_plan.out).as_object(), parse_audit(sim.audit_lines()));
  EXPECT_THAT(check.violations, IsEmpty());

  ASSERT_EQ(sim.kubectl("--context edge1 rollout status deployment/infer -n ml --timeout 60s").code,
            0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;
  json::object pods =
      json::parse(sim.kubectl("--context edge1 get pods -n ml -l app=infer -o json").out)
          .as_object();
  std::set<std::string> nodes;
  for (const json::value& p : pods.at("items").as_array()) {
    nodes.insert(std::string(p.at("spec").at("nodeName").as_string()));
    const json::object& status = p.at("status").as_object();
    ASSERT_TRUE(status.contains("extendedResourceClaimStatus")) << json::serialize(status);
    std::string claim(status.at("extendedResourceClaimStatus").at("resourceClaimName").as_string());
    json::value c = json::parse(
        sim.kubectl("--context edge1 get resourceclaim " + claim + " -n ml -o json").out);
    EXPECT_EQ(c.at("status").at("allocation").at("devices").at("results").as_array().size(), 2u);
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"edge1-gpu-1", "edge1-gpu-2"}));
  EXPECT_THAT(
      sim.kubectl("--context edge1 get nodes -o jsonpath={.items[*].status.allocatable}").out,
      Not(HasSubstr("nvidia.com/gpu")));
}

// A training Job in an NVIDIA ComputeDomain: the domain's controller makes the claim template
// the Job's pods name, so planter orders the Job after the domain and waits for the template on
// the cluster; each pod gets its node's IMEX channel (one per node: one pod on each of the two
// clique nodes) and the domain turns Ready once both nodes' daemons run.
TEST(DraTest, AComputeDomainsJobRunsOnePodPerCliqueNodeOnceItsTemplateExists) {
  SimProcess sim({"--workload-delay", "3000", "--configure-delay", "500"});
  ASSERT_TRUE(sim.running());
  std::string args = q(kData / "dra-compute-domain.yaml") + " --default-cluster edge1";
  CommandResult planned = planter("plan -o wide " + args);
  ASSERT_EQ(planned.code, 0) << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("ResourceClaimTemplate/ml/training-channel exists (not in "
                                     "seed) (device-claims), ComputeDomain/ml/training exists"));
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + args + " --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  CommandResult json_plan = planter("plan -o json " + args);
  ASSERT_EQ(json_plan.code, 0);
  OrderCheck check =
      check_plant_order(json::parse(json_plan.out).as_object(), parse_audit(sim.audit_lines()));
  EXPECT_THAT(check.violations, IsEmpty());

  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=PodScheduled pod -l "
                        "job-name=train -n ml --timeout 30s")
                .code,
            0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;
  EXPECT_EQ(pod_nodes(sim, "job-name=train"),
            (std::multiset<std::string>{"edge1-nvl-1", "edge1-nvl-2"}));
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=jsonpath={.status.status}=Ready "
                        "computedomain/training -n ml --timeout 30s")
                .code,
            0)
      << sim.kubectl("--context edge1 get computedomain training -n ml -o yaml").out;
}

// An atomic stack of two pods that claim two GPUs each, on edge1's two GPU nodes of two GPUs
// while another pod holds one node's two: planter's fit model allocates the claims on the
// published devices (it read node allocatable only, where DRA lists no GPU), so `plan --fit`
// says why not in the DynamicResources plugin's words and planting waits, declaring nothing of
// the stack; once the holder goes, the stack is released whole and the sim's scheduler puts its
// pods where `plan --fit` said.
TEST(DraTest, AnAtomicStackOfTwoGpuPodsWaitsUntilTwoGpuNodesAreFree) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string kubeconfig = " --kubeconfig " + q(sim.kubeconfig());
  CommandResult r = planter("plant" + kubeconfig + " " + q(kData / "dra.yaml") +
                            " --default-cluster edge1 --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  // The Job's pods finish, and their claims give their GPUs back.
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=complete job/train -n ml "
                        "--timeout 60s")
                .code,
            0);
  ASSERT_EQ(sim.kubectl("--context edge1 create -f " + q(kData / "dra-holder.yaml")).code, 0);
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=Ready pod/holder -n ml "
                        "--timeout 60s")
                .code,
            0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;

  std::string stack = q(kData / "dra-stack.yaml") + " --default-cluster edge1";
  // The first pod takes the free GPU node's two; no node can allocate the second's.
  const std::string why = "a pod of trainer: 0/3 nodes are available: 3 cannot allocate all claims";
  r = planter("plan --fit" + kubeconfig + " " + stack);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr(why)) << r.out;

  fs::path log = sim.dir() / "plant.log";
  auto planting = std::async(std::launch::async, [&] {
    return planter("plant -v" + kubeconfig + " " + stack + " --timeout 90 >" + q(log) + " 2>&1");
  });
  ASSERT_TRUE(file_says(log, why, std::chrono::seconds(30))) << read_file(log);
  EXPECT_THAT(sim.kubectl("--context edge1 get deployments -n ml -o name").out, IsEmpty())
      << "nothing of the stack is declared while two GPU nodes are not free";
  ASSERT_EQ(sim.kubectl("--context edge1 delete pod holder -n ml --wait=false").code, 0);
  r = planting.get();
  ASSERT_EQ(r.code, 0) << read_file(log);
  ASSERT_EQ(
      sim.kubectl("--context edge1 rollout status deployment/trainer -n ml --timeout 60s").code, 0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;
  EXPECT_EQ(pod_nodes(sim, "app=trainer"),
            (std::multiset<std::string>{"edge1-gpu-1", "edge1-gpu-2"}));

  // Fitted again with its own pods running, the stack stands for them: their devices are its.
  r = planter("plan --fit" + kubeconfig + " " + stack);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("stack trainers on edge1: fits across 2 node(s): edge1-gpu-1, "
                               "edge1-gpu-2"))
      << r.out;
}

}  // namespace
}  // namespace planter::testing
