// Node configuration in the seed (docs/node-configuration.md), planted on `planter sim` with the
// sim's audit log as the oracle: a PerformanceProfile with its MachineConfigPool, an SR-IOV
// policy and network, the GPU Operator's ClusterPolicy, and workloads that need each. The sim
// plays the operators (its own reading of their objects); planter must declare each consumer
// only once nodes have what it needs and its provider says it is done.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "plant/audit_order.h"
#include "sanitized.h"
#include "shared_dir.h"
#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const fs::path kCorpus = fs::path(PLANTER_SHARED_DIR) / "corpus";
const fs::path kData = fs::path(PLANTER_TEST_DATA) / "plant";

// The CRDs the seed needs from the SR-IOV Network Operator's install (the rest of it is
// envsubst templates): NetworkAttachmentDefinition, SriovNetworkNodePolicy,
// SriovNetworkNodeState, SriovNetwork.
std::string sriov_crds() {
  std::string text = read_file(kCorpus / "sriov-network-operator/seed.yaml");
  std::regex separator("\n---[ \t]*\n");
  std::regex wanted(
      "name: (network-attachment-definitions|sriovnetworknodepolicies|sriovnetworknodestates|"
      "sriovnetworks)\\.");
  std::string out;
  for (std::sregex_token_iterator it(text.begin(), text.end(), separator, -1), end; it != end;
       ++it) {
    std::string doc = *it;
    if (doc.find("kind: CustomResourceDefinition") != std::string::npos &&
        std::regex_search(doc, wanted))
      out += doc + "\n---\n";
  }
  return out;
}

// The audit log's time of a line, in seconds of the day.
double seconds_of(const std::string& line) {
  json::object o = json::parse(line).as_object();
  std::string ts(o.at("ts").as_string());  // 2026-11-27T10:11:18.500682671Z
  return std::stod(ts.substr(11, 2)) * 3600 + std::stod(ts.substr(14, 2)) * 60 +
         std::stod(ts.substr(17, ts.size() - 18));
}

TEST(NodeConfigurationTest, EachConsumerIsDeclaredOnceItsNodesAreConfiguredAndItsProviderIsDone) {
  REQUIRE_SHARED(kCorpus);
  SimProcess sim;
  ASSERT_TRUE(sim.running());
  fs::path crds = sim.dir() / "sriov-crds.yaml";
  std::ofstream(crds) << sriov_crds();
  std::string args =
      q(crds) + " " + q(kData / "node-configuration.yaml") + " --default-cluster edge1";
  CommandResult planned = planter("plan -o wide " + args);
  ASSERT_EQ(planned.code, 0) << planned.err;
  EXPECT_THAT(planned.out, HasSubstr("node-capability hugepages-1Gi ≥ 2Gi, openshift.io/intelnics "
                                     "≥ 1, node-role.kubernetes.io/cnf= on edge1 "
                                     "(Cluster/default/edge1, PerformanceProfile/cnf-perf, "
                                     "SriovNetworkNodePolicy/sriov-network-operator/intel-data)"));
  EXPECT_THAT(planned.out, HasSubstr("node-capability nvidia.com/gpu ≥ 1 on edge1 "
                                     "(ClusterPolicy/gpu-cluster-policy)"));
  CommandResult r =
      planter("plant --kubeconfig " + q(sim.kubeconfig()) + " " + args + " --timeout 120");
  ASSERT_EQ(r.code, 0) << r.out << r.err;

  std::vector<std::string> lines = sim.audit_lines();
  CommandResult json_plan = planter("plan -o json " + args);
  ASSERT_EQ(json_plan.code, 0);
  OrderCheck check = check_plant_order(json::parse(json_plan.out).as_object(), parse_audit(lines));
  EXPECT_EQ(check.units_written, 17u);
  EXPECT_THAT(check.violations, IsEmpty());

  // The oracle's own reading of the log: when each node came back configured, and when each
  // consumer was created. The MachineConfigPool is Updated once all three CNF nodes are; the
  // ClusterPolicy ready once both GPU nodes are.
  std::map<std::string, double> configured;  // node -> time
  std::map<std::string, std::pair<size_t, double>> created;
  std::map<std::string, size_t> configured_at;
  for (size_t i = 0; i < lines.size(); ++i) {
    json::object o = json::parse(lines[i]).as_object();
    std::string object = o.contains("object") ? std::string(o.at("object").as_string()) : "";
    if (o.contains("what") && o.at("what") == "configured") {
      std::string node = object.substr(object.rfind('|') + 1);
      configured[node] = seconds_of(lines[i]);
      configured_at[node] = i;
    }
    if (o.contains("verb") && o.at("user") == "admin" && o.at("cluster") == "edge1" &&
        !created.contains(object))
      created[object] = {i, seconds_of(lines[i])};
  }
  ASSERT_EQ(configured.size(), 5u) << "every CNF and GPU node is configured once";
  auto upf = created.find("apps/v1|Deployment|cnf|upf");
  auto train = created.find("batch/v1|Job|cnf|train");
  ASSERT_NE(upf, created.end());
  ASSERT_NE(train, created.end());
  for (const char* node : {"edge1-cnf-1", "edge1-cnf-2", "edge1-cnf-3"})
    EXPECT_LT(configured_at.at(node), upf->second.first) << node;
  for (const char* node : {"edge1-gpu-1", "edge1-gpu-2"})
    EXPECT_LT(configured_at.at(node), train->second.first) << node;
  // Released by the change that enables it, not by polling: within a second of the last node
  // its provider waited for. A wall-time bound, so not under the sanitizers (planter and the sim
  // at -O0 with ASan on two cores): there the order above is the check.
  if (!kSanitized) {
    EXPECT_LT(upf->second.second - configured.at("edge1-cnf-3"), 1.0);
    EXPECT_LT(train->second.second - configured.at("edge1-gpu-2"), 1.0);
  }

  // What the providers say, as their operators write it.
  EXPECT_EQ(sim.kubectl("--context edge1 get mcp worker-cnf -o jsonpath="
                        "{.status.updatedMachineCount}/{.status.machineCount}")
                .out,
            "3/3");
  EXPECT_EQ(sim.kubectl("--context edge1 get clusterpolicy gpu-cluster-policy -o "
                        "jsonpath={.status.state}")
                .out,
            "ready");
  EXPECT_EQ(sim.kubectl("--context edge1 get sriovnetworknodestates -n sriov-network-operator -o "
                        "jsonpath={.items[*].status.syncStatus}")
                .out,
            "Succeeded Succeeded Succeeded");
  EXPECT_THAT(sim.kubectl("--context edge1 get network-attachment-definitions -n cnf data -o "
                          "jsonpath={.metadata.annotations}")
                  .out,
              HasSubstr("openshift.io/intelnics"));

  // Where the pods run, and that none waited for lack of it or was refused by its kubelet.
  ASSERT_EQ(sim.kubectl("--context edge1 rollout status deployment/upf -n cnf --timeout 60s").code,
            0);
  ASSERT_EQ(sim.kubectl("--context edge1 wait --for=condition=complete job/train -n cnf "
                        "--timeout 60s")
                .code,
            0);
  std::string where = sim.kubectl(
                             "--context edge1 get pods -n cnf -o jsonpath="
                             "'{range .items[*]}{.metadata.name} {.spec.nodeName}{\"\\n\"}"
                             "{end}'")
                          .out;
  std::istringstream in(where);
  std::set<std::string> upf_nodes;
  for (std::string pod, node; in >> pod >> node;) {
    if (pod.starts_with("upf-")) {
      EXPECT_TRUE(node.starts_with("edge1-cnf-")) << pod << " on " << node;
      upf_nodes.insert(node);
    } else {
      EXPECT_TRUE(node.starts_with("edge1-gpu-")) << pod << " on " << node;
    }
  }
  EXPECT_EQ(upf_nodes.size(), 2u) << where;
  std::string events = sim.kubectl("--context edge1 get events -n cnf").out;
  EXPECT_THAT(events, Not(HasSubstr("FailedScheduling")));
  EXPECT_THAT(events, Not(HasSubstr("UnexpectedAdmissionError")));
}

// A pod bound to a node whose kubelet is not Ready (rebooting into its configuration) fails its
// device admission as a real kubelet fails it after a reboot: what declaring before the node is
// configured leads to.
TEST(NodeConfigurationTest, APodOnARebootingNodeFailsWithUnexpectedAdmissionError) {
  SimProcess sim({"--node-resource", "nvidia.com/gpu=1"});
  ASSERT_TRUE(sim.running());
  CommandResult down = sim.kubectl(
      "patch node management-node-2 --subresource=status --type=json -p "
      "'[{\"op\": \"replace\", \"path\": \"/status/conditions/3/status\", \"value\": "
      "\"False\"}]'");
  ASSERT_EQ(down.code, 0) << down.err;
  fs::path pod = sim.dir() / "gpu.yaml";
  std::ofstream(pod) << "apiVersion: v1\nkind: Pod\nmetadata: {name: gpu, namespace: default}\n"
                        "spec:\n  nodeName: management-node-2\n  containers:\n  - name: c\n"
                        "    image: cuda:12\n    resources: {limits: {nvidia.com/gpu: \"1\"}}\n";
  ASSERT_EQ(sim.kubectl("create -f " + q(pod)).code, 0);
  CommandResult failed =
      sim.kubectl("wait --for=jsonpath={.status.phase}=Failed pod/gpu --timeout 30s");
  ASSERT_EQ(failed.code, 0) << sim.kubectl("get pod gpu -o yaml").out;
  EXPECT_EQ(sim.kubectl("get pod gpu -o jsonpath={.status.reason}").out,
            "UnexpectedAdmissionError");
  EXPECT_THAT(sim.kubectl("get pod gpu -o jsonpath={.status.message}").out,
              HasSubstr("cannot allocate unhealthy devices nvidia.com/gpu"));
}

}  // namespace
}  // namespace planter::testing
