// Dynamic Resource Allocation planted on `planter sim` (docs/dra.md): the GPU Operator in DRA mode
// makes the driver's DeviceClass and publishes each GPU node's devices; planter declares the
// ResourceClaimTemplate once that class exists and the Job once its template does (the sim's
// audit log is the oracle of the order); the sim's scheduler allocates two GPUs on one PCIe root
// to each of the Job's pods, which run on the GPU nodes (kubectl).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <set>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const fs::path kData = fs::path(PLANTER_TEST_DATA) / "plant";

TEST(DraTest, TheJobsPodsGetTwoGpusEachOnTheGpuNodesAfterTheDriversClassExists) {
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  std::string args = q(kData / "dra.yaml") + " --default-cluster edge1";
  CommandResult planned = planter("plan -o wide " + args);
  ASSERT_EQ(planned.code, 0) << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("DeviceClass/gpu.nvidia.com exists (not in seed)"));
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + args + " --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  // The order: nothing declared before its requirements held.
  CommandResult json_plan = planter("plan -o json " + args);
  ASSERT_EQ(json_plan.code, 0);
  OrderCheck check =
      check_plant_order(json::parse(json_plan.out).as_object(), parse_audit(sim.audit_lines()));
  EXPECT_THAT(check.violations, IsEmpty());

  // The Job's two pods each run on a GPU node with two GPUs of one PCIe root.
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=complete job/train -n ml "
                        "--timeout 60s")
                .code,
            0)
      << sim.kubectl("--context edge1 get pods,resourceclaims -n ml -o yaml").out;
  json::object claims =
      json::parse(sim.kubectl("--context edge1 get resourceclaims -n ml -o json").out).as_object();
  json::object pods =
      json::parse(sim.kubectl("--context edge1 get pods -n ml -o json").out).as_object();
  ASSERT_EQ(pods.at("items").as_array().size(), 2u);
  std::set<std::string> nodes;
  for (const json::value& p : pods.at("items").as_array())
    nodes.insert(std::string(p.at("spec").at("nodeName").as_string()));
  EXPECT_EQ(nodes, (std::set<std::string>{"edge1-gpu-1", "edge1-gpu-2"}));
  ASSERT_EQ(claims.at("items").as_array().size(), 2u);
  for (const json::value& c : claims.at("items").as_array()) {
    const json::array& results =
        c.at("status").at("allocation").at("devices").at("results").as_array();
    ASSERT_EQ(results.size(), 2u);
    for (const json::value& d : results)
      EXPECT_EQ(d.at("driver").as_string(), "gpu.nvidia.com");
  }
  EXPECT_EQ(sim.kubectl("--context edge1 get gpucluster gpu-cluster -o jsonpath={.status.state}")
                .out,
            "ready");
}

}  // namespace
}  // namespace planter::testing
