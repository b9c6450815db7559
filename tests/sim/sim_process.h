// Test support: a `planter sim` started as a user starts it (its own process, a real socket),
// and real clients (kubectl, helm, the Python client) run against it as subprocesses.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace planter::testing {

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::filesystem::path& p);

// kubectl's answer that an object is not there: a non-zero exit and the server's NotFound. Any
// other failure (a wrong context, a server that is down, a kubectl that did not run) is not
// "absent", and fails the check.
inline ::testing::AssertionResult is_not_found(const CommandResult& r) {
  if (r.code != 0 && r.err.find("(NotFound)") != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "kubectl did not say NotFound (exit " << r.code << "): " << r.err << r.out;
}

// Whether the file another process writes (a `planter plant -v` log, say) comes to hold `text`
// within `limit`: the wait on a state that process reports.
bool file_says(const std::filesystem::path& p, std::string_view text, std::chrono::seconds limit);

// Runs a shell command; stdout and stderr are captured separately.
CommandResult run_shell(const std::string& command);

// A path quoted for the shell: 'path'.
std::string q(const std::filesystem::path& p);
// `planter ARGS` as a user runs it, through the shell.
CommandResult planter(const std::string& args);

// Where the clients are: build/tools (scripts/install-clients), else the machine's PATH.
std::string kubectl_binary();
std::string helm_binary();
std::string python_with_kubernetes();  // Debian's python3, which has python3-kubernetes

// A CRD of a kind no built-in has (example.org/v1 Widget, namespaced, any fields): for tests of
// what waits for a kind until its CRD comes.
inline constexpr const char* kAnyWidgetCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";

// A server a test starts with a shell `command` that prints "PORT PID" on its first line (a
// Python web server, say), killed when this goes. port() is 0 when it did not say.
// The shell command of a Python web server on loopback serving the files of `folder`, for
// ServerProcess.
std::string file_server_command(const std::filesystem::path& folder);

class ServerProcess {
 public:
  explicit ServerProcess(const std::string& command);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;
  int port() const { return port_; }

 private:
  FILE* out_ = nullptr;
  int port_ = 0, pid_ = 0;
};

class SimProcess {
 public:
  // Starts `planter sim --port 0 --kubeconfig-out ... --audit-log ...` plus `extra_args` and
  // waits until it serves. Fails the calling test (ADD_FAILURE) when it does not come up.
  explicit SimProcess(std::vector<std::string> extra_args = {});
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  bool running() const { return pid_ > 0 && !url_.empty(); }
  int pid() const { return pid_; }
  // Kills the sim with SIGKILL (no chance to tidy up), keeping its folder.
  void kill_hard();
  // Starts it again in the same folder, with these arguments after the usual ones, on `port`
  // (0: any free one).
  void start(std::vector<std::string> extra_args, int port = 0);
  // The port it serves on, from its URL.
  int port() const;
  const std::string& url() const { return url_; }
  std::filesystem::path dir() const { return dir_; }
  std::filesystem::path kubeconfig() const { return dir_ / "kubeconfig"; }
  // A copy of the kubeconfig that authenticates with `token` (one of --token-auth-file's).
  std::filesystem::path kubeconfig_with_token(const std::string& token) const;
  std::filesystem::path audit_log() const { return dir_ / "audit.jsonl"; }

  // "kubectl --kubeconfig K --cache-dir D <args>"
  CommandResult kubectl(const std::string& args) const;
  // helm with its config, cache and data folders inside the test's folder.
  CommandResult helm(const std::string& args) const;

  // Audit log lines, parsed lazily by the caller.
  std::vector<std::string> audit_lines() const;

 private:
  std::filesystem::path dir_;
  int pid_ = -1;
  std::string url_;
};

}  // namespace planter::testing
