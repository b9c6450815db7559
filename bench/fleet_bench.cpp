// What a big simulated fleet costs: `planter sim --clusters N` brought up in this process as the
// command brings it up (Server::create provisions edge1..edgeN before it serves), timed, with
// the resident memory it adds; then the same with --state-dir, and a restart from that state.
// Each scenario runs in a child process of its own, so its memory figure starts clean. Last,
// the `planter sim --clusters N` command itself: time until it says it serves, and its resident
// memory then and three seconds later. Numbers only; nothing passes or fails on time.
//
// Usage: fleet_bench [CLUSTERS]   (default 200)
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "rss.h"
#include "sim/server.h"

using Clock = std::chrono::steady_clock;

extern char** environ;

namespace {

using planter::bench::rss_mib;

void scenario(const char* label, int clusters, const std::string& state_dir) {
  planter::sim::ServerOptions options;
  options.insecure_http = true;
  options.fleet.clusters = clusters;
  options.fleet.state_dir = state_dir;
  double before = rss_mib();
  auto start = Clock::now();
  auto server = planter::sim::Server::create(options);
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  if (!server) {
    std::fprintf(stderr, "fleet_bench: %s\n", server.error().message.c_str());
    std::exit(1);
  }
  std::printf("%-34s %5zu clusters  %7.3f s  +%6.1f MiB resident (%.1f MiB in all)\n", label,
              (*server)->cluster_names().size(), secs, rss_mib() - before, rss_mib());
}

void run(const char* label, int clusters, const std::string& state_dir) {
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid == 0) {
    scenario(label, clusters, state_dir);
    std::fflush(stdout);
    std::_Exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::exit(1);
}

// Resident set size of another process in MiB.
void command(int clusters) {
  int out[2];
  if (::pipe(out) != 0) return;
  std::string n = std::to_string(clusters);
  std::vector<std::string> args = {PLANTER_BINARY,    "sim",        "--port", "0",
                                   "--insecure-http", "--clusters", n};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  auto start = Clock::now();
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, PLANTER_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (spawned != 0) {
    std::fprintf(stderr, "fleet_bench: cannot start %s\n", PLANTER_BINARY);
    std::exit(1);
  }
  std::string text;
  char buf[4096];
  while (text.find("serving") == std::string::npos) {
    ssize_t got = ::read(out[0], buf, sizeof buf);
    if (got <= 0) break;
    text.append(buf, static_cast<size_t>(got));
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  double rss = rss_mib(pid);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  std::printf("%-34s %5d clusters  %7.3f s  %7.1f MiB resident (%.1f MiB 3 s later)\n",
              "planter sim --clusters (process)", clusters + 1, secs, rss, rss_mib(pid));
  ::kill(pid, SIGTERM);
  ::waitpid(pid, nullptr, 0);
  ::close(out[0]);
}

}  // namespace

int main(int argc, char** argv) {
  int clusters = argc > 1 ? std::atoi(argv[1]) : 200;
  std::printf("fleet_bench: --clusters %d (each with 3 nodes and 4 namespaces)\n", clusters);
  run("in memory", clusters, "");
  auto dir = std::filesystem::temp_directory_path() /
             ("planter-fleet-bench-" + std::to_string(::getpid()));
  run("with --state-dir (first start)", clusters, dir.string());
  run("restart from --state-dir", clusters, dir.string());
  std::filesystem::remove_all(dir);
  command(clusters);
  return 0;
}
