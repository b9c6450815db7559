#include "sim/sim_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

extern char** environ;

namespace planter::testing {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path make_temp_dir() {
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() / ("planter-sim-test-" + std::to_string(rd()));
  fs::create_directories(dir);
  return dir;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

ServerProcess::ServerProcess(const std::string& command) {
  out_ = popen(("exec " + command).c_str(), "r");
  char line[64] = {};
  if (!out_ || !fgets(line, sizeof line, out_) || std::sscanf(line, "%d %d", &port_, &pid_) != 2) {
    ADD_FAILURE() << "`" << command << "` did not print its port and pid: " << line;
    port_ = 0;
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  if (out_) pclose(out_);
}

std::string read_file(const fs::path& p) {
  return slurp(p);
}

fs::path SimProcess::kubeconfig_with_token(const std::string& token) const {
  std::string text = read_file(kubeconfig());
  std::string marker = "token: ";
  for (size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    size_t end = text.find('\n', at);
    text.replace(at + marker.size(), end - at - marker.size(), token);
  }
  fs::path out = dir_ / (token + ".kubeconfig");
  std::ofstream(out) << text;
  return out;
}

bool file_says(const fs::path& p, std::string_view text, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (slurp(p).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    // sleep-ok(poll): file_says(), a line another process logs
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

CommandResult run_shell(const std::string& command) {
  fs::path dir = make_temp_dir();
  std::string full = "( " + command + " ) >" + quote((dir / "out").string()) + " 2>" +
                     quote((dir / "err").string()) + " </dev/null";
  int status = std::system(full.c_str());
  CommandResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  fs::remove_all(dir);
  return r;
}

std::string q(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

CommandResult planter(const std::string& args) {
  return run_shell(std::string(PLANTER_BINARY) + " " + args);
}

std::string kubectl_binary() {
  fs::path tools = fs::path(PLANTER_SOURCE_DIR) / "build" / "tools" / "kubectl";
  return fs::exists(tools) ? tools.string() : "kubectl";
}

std::string helm_binary() {
  fs::path tools = fs::path(PLANTER_SOURCE_DIR) / "build" / "tools" / "helm";
  return fs::exists(tools) ? tools.string() : "helm";
}

std::string file_server_command(const fs::path& folder) {
  return "python3 -c 'import http.server, os, socketserver, sys; "
         "s = socketserver.TCPServer((\"127.0.0.1\", 0), "
         "lambda *a: http.server.SimpleHTTPRequestHandler(*a, directory=sys.argv[1])); "
         "print(s.server_address[1], os.getpid(), flush=True); s.serve_forever()' " +
         q(folder) + " 2>/dev/null";
}

std::string python_with_kubernetes() {
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

SimProcess::SimProcess(std::vector<std::string> extra_args) : dir_(make_temp_dir()) {
  start(std::move(extra_args));
}

void SimProcess::kill_hard() {
  if (pid_ <= 0) return;
  kill(pid_, SIGKILL);
  int status;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  url_.clear();
}

int SimProcess::port() const {
  size_t colon = url_.rfind(':');
  return colon == std::string::npos ? 0 : std::atoi(url_.c_str() + colon + 1);
}

void SimProcess::start(std::vector<std::string> extra_args, int port) {
  std::vector<std::string> args = {PLANTER_BINARY,     "sim",
                                   "--port",           std::to_string(port),
                                   "--kubeconfig-out", kubeconfig().string(),
                                   "--audit-log",      audit_log().string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string out = (dir_ / "sim.out").string();
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_t pid;
  if (posix_spawn(&pid, PLANTER_BINARY, &actions, nullptr, argv.data(), environ) != 0) {
    ADD_FAILURE() << "cannot start " << PLANTER_BINARY;
    return;
  }
  posix_spawn_file_actions_destroy(&actions);
  pid_ = pid;
  const std::string marker = "serving the management cluster at ";
  for (int i = 0; i < 200 && url_.empty(); ++i) {
    std::string text = slurp(dir_ / "sim.out");
    if (size_t p = text.find(marker); p != std::string::npos) {
      size_t end = text.find('\n', p);
      if (end != std::string::npos) url_ = text.substr(p + marker.size(), end - p - marker.size());
    }
    // sleep-ok(poll): the sim's URL in its output
    if (url_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  if (url_.empty()) ADD_FAILURE() << "planter sim did not come up: " << slurp(dir_ / "sim.out");
}

SimProcess::~SimProcess() {
  if (pid_ > 0) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      // It ended before the test did: a crash (a sanitizer's report is in its output) or an exit
      // the test did not ask for. Said with its last words, never silently.
      std::string text = slurp(dir_ / "sim.out");
      if (text.size() > 8000) text = "..." + text.substr(text.size() - 8000);
      ADD_FAILURE() << "planter sim ended during the test ("
                    << (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                            : "exit " + std::to_string(WEXITSTATUS(status)))
                    << "); its output:\n"
                    << text;
    } else {
      kill(pid_, SIGTERM);
      waitpid(pid_, &status, 0);
    }
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

CommandResult SimProcess::kubectl(const std::string& args) const {
  return run_shell(kubectl_binary() + " --kubeconfig " + quote(kubeconfig().string()) +
                   " --cache-dir " + quote((dir_ / "kubectl-cache").string()) + " " + args);
}

CommandResult SimProcess::helm(const std::string& args) const {
  std::string env = "KUBECONFIG=" + quote(kubeconfig().string()) +
                    " HELM_CACHE_HOME=" + quote((dir_ / "helm-cache").string()) +
                    " HELM_CONFIG_HOME=" + quote((dir_ / "helm-config").string()) +
                    " HELM_DATA_HOME=" + quote((dir_ / "helm-data").string());
  return run_shell(env + " " + helm_binary() + " " + args);
}

std::vector<std::string> SimProcess::audit_lines() const {
  std::vector<std::string> lines;
  std::ifstream in(audit_log());
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace planter::testing
