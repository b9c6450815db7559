// The Kubernetes Python client against `planter sim`: list, create, patch, a label selector,
// an AlreadyExists error, and a watch that receives ADDED, MODIFIED and DELETED.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "sim/sim_process.h"

namespace planter::testing {
namespace {

namespace json = boost::json;

void check_python_client(const std::vector<std::string>& sim_args) {
  SimProcess sim(sim_args);
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/python_client.py";
  auto r = run_shell(python_with_kubernetes() + " " + script + " " + sim.kubeconfig().string());
  ASSERT_EQ(r.code, 0) << r.err;
  json::value v = json::parse(r.out);
  const auto& o = v.as_object();
  json::array namespaces = o.at("namespaces").as_array();
  EXPECT_EQ(namespaces, (json::array{"default", "kube-node-lease", "kube-public", "kube-system"}));
  EXPECT_EQ(o.at("selected"), (json::array{"from-python"}));
  EXPECT_EQ(o.at("duplicate"), (json::object{{"status", 409}, {"reason", "AlreadyExists"}}));
  EXPECT_EQ(o.at("events"), (json::array{json::array{"ADDED", "from-python", "green"},
                                         json::array{"MODIFIED", "from-python", "blue"},
                                         json::array{"DELETED", "from-python", "blue"}}));
}

TEST(PythonClientTest, OverHttpsWithToken) {
  check_python_client({});
}

TEST(PythonClientTest, OverPlainHttp) {
  check_python_client({"--insecure-http"});
}

}  // namespace
}  // namespace planter::testing

namespace planter::testing {
namespace {

// Raw HTTP checks of Status errors, pagination, watch resume/410/bookmarks/timeouts,
// finalizers, garbage collection and the CRD lifecycle (tests/sim/api_conformance.py).
TEST(ApiConformanceTest, RawHttp) {
  SimProcess sim({"--insecure-http", "--watch-history", "20", "--bookmark-interval", "1",
                  "--crd-delay", "100"});
  ASSERT_TRUE(sim.running());
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/api_conformance.py";
  auto r = run_shell("python3 " + script + " " + sim.url());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
}

// Bodies over the limit, requests that are not HTTP, idle connections, and a sim out of file
// descriptors (tests/sim/connection_limits.py).
TEST(ApiConformanceTest, ConnectionLimits) {
  std::string script = std::string(PLANTER_SOURCE_DIR) + "/tests/sim/connection_limits.py";
  auto r = run_shell("python3 " + script + " " + PLANTER_BINARY);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace planter::testing
