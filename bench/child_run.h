// A command run as a child process by the benchmarks that time planter as a user runs it: its wall
// time, exit code and peak resident memory (wait4), its output thrown away.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
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
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  }
  posix_spawn_file_actions_destroy(&actions);
  return r;
}

}  // namespace planter::bench
