// What the operator tests share: `planter operator` in its own process, waits on a Seed's
// status, Seeds and RBAC written as YAML, the audit-log order check.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "model/diagnostics.h"
#include "model/gzip.h"
#include "model/yaml.h"
#include "plant/audit_order.h"
#include "seed/seed.h"
#include "shared_dir.h"
#include "sim/sim_process.h"

extern char** environ;

namespace planter::testing {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

inline const fs::path kCorpus = fs::path(PLANTER_SHARED_DIR) / "corpus";
inline const fs::path kSource = PLANTER_SOURCE_DIR;
inline const fs::path kData = fs::path(PLANTER_TEST_DATA) / "plant";

#define SKIP_WITHOUT_CORPUS() REQUIRE_SHARED(kCorpus)

// `planter operator` in its own process; its log goes to a file in `dir`.
class OperatorProcess {
 public:
  OperatorProcess(fs::path kubeconfig, fs::path dir, std::vector<std::string> extra = {})
      : kubeconfig_(std::move(kubeconfig)), dir_(std::move(dir)), extra_(std::move(extra)) {
    start();
  }
  ~OperatorProcess() { stop(SIGTERM); }

  void start() {
    std::vector<std::string> args = {PLANTER_BINARY,
                                     "operator",
                                     "--kubeconfig",
                                     kubeconfig_.string(),
                                     "--metrics-addr",
                                     "127.0.0.1:0",
                                     "--health-addr",
                                     "127.0.0.1:0",
                                     "--allow-file-urls",
                                     "--retry-failed",
                                     "2"};
    args.insert(args.end(), extra_.begin(), extra_.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    std::string log = this->log_path().string();
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (posix_spawn(&pid_, PLANTER_BINARY, &actions, nullptr, argv.data(), environ) != 0)
      ADD_FAILURE() << "cannot start the operator";
    posix_spawn_file_actions_destroy(&actions);
  }
  // True while the process it started has not exited (a crash or restart would end it).
  bool running() {
    if (pid_ <= 0) return false;
    int status;
    if (waitpid(pid_, &status, WNOHANG) == 0) return true;
    pid_ = -1;
    return false;
  }
  // Sends `sig` and waits for the exit; the wait status (-1 when it was not running).
  int stop(int sig) {
    if (pid_ <= 0) return -1;
    kill(pid_, sig);
    int status = -1;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  fs::path log_path() const {
    return dir_ / fmt::format("operator-{}.log", static_cast<const void*>(this));
  }
  std::string log() const { return read_file(log_path()); }
  // The port it serves `what` ("metrics", "health probes") on, from its log; 0 before it says.
  int port(const std::string& what) const {
    std::string text = log(), marker = "serving " + what + " ";
    size_t at = text.find(marker);
    if (at == std::string::npos) return 0;
    size_t p = text.find("port=", at);
    return p == std::string::npos ? 0 : std::atoi(text.c_str() + p + 5);
  }

 private:
  fs::path kubeconfig_, dir_;
  std::vector<std::string> extra_;
  pid_t pid_ = -1;
};

// Polls until `done` holds (tests may poll; planter does not).
inline bool eventually(const std::function<bool()>& done, std::chrono::seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    // sleep-ok(poll): eventually(), the operator tests' wait on state
    std::this_thread::sleep_for(200ms);
  }
  return done();
}

// GET http://127.0.0.1:PORT/PATH, the body (Python's urllib: no HTTP client of planter's).
inline std::string http_get(int port, const std::string& path) {
  CommandResult r = run_shell(fmt::format(
      "python3 -c 'import sys, urllib.request; "
      "sys.stdout.write(urllib.request.urlopen(\"http://127.0.0.1:{}{}\").read().decode())'",
      port, path));
  EXPECT_EQ(r.code, 0) << r.err;
  return r.out;
}

// The value of the sample `series` (name and labels, exactly as printed) in a Prometheus text
// exposition, or -1 when it is not there.
inline double sample(const std::string& metrics, const std::string& series) {
  // Found at `at` in "\n" + metrics, the series starts at `at` in metrics.
  size_t at = ("\n" + metrics).find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::atof(metrics.c_str() + at + series.size() + 1);
}

inline std::string seed_field(const SimProcess& sim, const std::string& ns, const std::string& name,
                              const std::string& path) {
  return sim.kubectl(fmt::format("get seed {} -n {} -o jsonpath='{{{}}}'", name, ns, path)).out;
}

// The message of a Seed's Failed condition.
inline std::string failed_message(const SimProcess& sim, const std::string& ns,
                                  const std::string& name) {
  return seed_field(sim, ns, name, ".status.conditions[?(@.type==\"Failed\")].message");
}

inline bool phase_is(const SimProcess& sim, const std::string& ns, const std::string& name,
                     const std::string& phase) {
  return seed_field(sim, ns, name, ".status.phase") == phase;
}

inline void apply_yaml(const SimProcess& sim, const std::string& yaml) {
  fs::path f = sim.dir() / fmt::format("apply-{}.yaml", std::hash<std::string>{}(yaml));
  std::ofstream(f) << yaml;
  CommandResult r = sim.kubectl("apply -f " + q(f));
  ASSERT_EQ(r.code, 0) << r.err;
}

inline std::string seed_object(const std::string& ns, const std::string& name,
                               const std::string& source, const std::string& more = "") {
  return fmt::format(
      "apiVersion: planter.nephio.org/v1alpha1\nkind: Seed\nmetadata:\n  name: {}\n  namespace: "
      "{}\nspec:\n  source:\n{}\n{}",
      name, ns, source, more);
}

inline json::object plan_of(const std::string& args) {
  CommandResult r = planter("plan -o json " + args);
  EXPECT_EQ(r.code, 0) << r.err;
  return json::parse(r.out).as_object();
}

inline void expect_in_order(const json::object& plan, const std::vector<std::string>& audit,
                            const std::string& writers) {
  OrderCheck check = check_plant_order(plan, parse_audit(audit), writers);
  EXPECT_EQ(check.units_written, plan.at("units").as_array().size());
  EXPECT_GT(check.requirements_checked, 0u);
  EXPECT_THAT(check.violations, IsEmpty());
}

inline std::string hello_configmap(const SimProcess& sim, const std::string& ns) {
  CommandResult r = sim.kubectl(fmt::format("create configmap hello -n {} --from-file=seed.yaml={}",
                                            ns, q(kSource / "examples/hello-world/seed.yaml")));
  EXPECT_EQ(r.code, 0) << r.err;
  return "    configMapRef: {name: hello}";
}

// A ServiceAccount NAME in `ns` bound to a Role of the same name with `rules` (a YAML list).
inline std::string role_for(const std::string& ns, const std::string& name,
                            const std::string& rules) {
  return fmt::format(R"(apiVersion: v1
kind: ServiceAccount
metadata: {{name: {1}, namespace: {0}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: {1}, namespace: {0}}}
rules: {2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: {1}, namespace: {0}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {1}}}
subjects:
- {{kind: ServiceAccount, name: {1}, namespace: {0}}}
)",
                     ns, name, rules);
}

inline constexpr const char* kConfigMapRules =
    R"([{apiGroups: [""], resources: [configmaps], verbs: [get, create, patch]}])";

}  // namespace planter::testing
