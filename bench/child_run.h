// A command run as a child process by the benchmarks that time planter as a user runs it: its wall
// time, exit code and peak resident memory, its output thrown away.
//
// The peak is the child's own VmHWM (/proc/PID/status), read every 10 ms while it runs, not
// wait4's ru_maxrss: a child started by posix_spawn (vfork) or fork() begins with this process's
// high-water mark, so ru_maxrss says whichever is larger, and this process may hold a sim of
// thousands of clusters (a 500 MiB Python process that spawns /bin/true is told 509 MiB for it).
// What the child grows in its last 10 ms is not seen.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace planter::bench {

struct ChildRun {
  int code = -1;
  double seconds = 0;
  double peak_rss_mib = 0;
};

// `argv` (no shell); when it is planter's own command, PLANT_BENCH_WRAP (words split at spaces)
// goes before it: "heaptrack -o FILE" finds what its memory is.
inline ChildRun run_child(const std::vector<std::string>& argv, const std::string& planter) {
  std::vector<std::string> words;
  if (const char* wrap = std::getenv("PLANT_BENCH_WRAP"); wrap && argv.front() == planter) {
    std::istringstream in(wrap);
    for (std::string w; in >> w;) words.push_back(w);
  }
  words.insert(words.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (std::string& w : words) args.push_back(w.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  ChildRun r;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) == 0) {
    int status = 0;
    std::string status_file = "/proc/" + std::to_string(pid) + "/status";
    long peak_kib = 0;
    while (waitpid(pid, &status, WNOHANG) == 0) {
      std::ifstream in(status_file);
      for (std::string line; std::getline(in, line);)
        if (line.starts_with("VmHWM:")) peak_kib = std::max(peak_kib, std::stol(line.substr(6)));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.peak_rss_mib = static_cast<double>(peak_kib) / 1024.0;
  }
  posix_spawn_file_actions_destroy(&actions);
  return r;
}

}  // namespace planter::bench
