// What the tests of choosing clusters share (cluster_choice_test, cluster_spread_test,
// cluster_taints_test): a management sim with no workload cluster of its own, a fleet of planter
// Clusters the test describes applied and Ready, a seed planted from text, where planter wrote
// an object (the audit log) and where its pods run (kubectl).
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "plant/audit_order.h"
#include "sim/sim_process.h"

namespace planter::testing {

class ClusterFleetTest : public ::testing::Test {
 protected:
  // `fleet`: the Cluster objects, YAML.
  explicit ClusterFleetTest(std::string fleet) : fleet_(std::move(fleet)) {}

  void SetUp() override {
    ASSERT_TRUE(sim_.running());
    std::filesystem::path file = sim_.dir() / "fleet.yaml";
    std::ofstream(file) << fleet_;
    ASSERT_EQ(sim_.kubectl("apply -f " + q(file)).code, 0);
    ASSERT_EQ(sim_.kubectl("wait --for=condition=Ready clusters --all --timeout=30s").code, 0);
  }

  // `planter VERB --kubeconfig ... SEED FLAGS` with the seed written from `seed_text`.
  CommandResult plant(const std::string& verb, const std::string& seed_text,
                      const std::string& flags = "") {
    std::filesystem::path seed = sim_.dir() / "seed.yaml";
    std::ofstream(seed) << seed_text;
    return planter(verb + " --kubeconfig " + q(sim_.kubeconfig()) + " " + q(seed) + " " + flags);
  }

  // The clusters planter wrote `object` ("apps|Deployment|web|web") on, from audit entry `from`.
  std::vector<std::string> written_on(const std::string& object, size_t from = 0) const {
    std::vector<std::string> out;
    for (const AuditEntry& e : parse_audit(sim_.audit_lines()))
      if (e.index >= from && e.user == "admin" && e.verb == "apply" && e.object == object)
        out.push_back(e.cluster);
    return out;
  }

  // The nodes the pods of namespace `ns` run on in `cluster`, once `count` of them run.
  std::vector<std::string> running_on(const std::string& cluster, const std::string& ns,
                                      size_t count) const {
    std::vector<std::string> nodes;
    for (int i = 0; i < 100; ++i) {
      CommandResult r = sim_.kubectl("--context " + cluster + " get pods -n " + ns +
                                     " --field-selector=status.phase=Running -o json");
      if (r.code == 0) {
        nodes.clear();
        boost::json::value list = boost::json::parse(r.out);  // kept: the loop reads into it
        for (const boost::json::value& p : list.at("items").as_array())
          nodes.emplace_back(p.at("spec").at("nodeName").as_string());
        if (nodes.size() == count) return nodes;
      }
      // sleep-ok(poll): the step of a wait for observed state with a deadline
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << count << " pods of " << ns << " did not run on " << cluster << ": "
                  << sim_.kubectl("--context " + cluster + " get pods -A -o wide").out;
    return nodes;
  }

  SimProcess sim_{std::vector<std::string>{"--clusters", "0"}};

 private:
  std::string fleet_;
};

}  // namespace planter::testing
