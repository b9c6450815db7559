// Running a child process without a shell: argv as given, extra environment variables, the
// whole of `input` on stdin, stdout and stderr captured, a timeout and a cap on stdout.
//
// Used by the seed's plugins and by kubeconfig exec credential plugins. The child runs in its
// own process group, so a timeout or a cancel kills whatever it started too (what it moved to
// another session or group is out of reach). The call returns once the child has exited and its
// pipes are drained, even if a grandchild keeps them open. Thread-safe: each call owns its pipes;
// SIGPIPE is ignored process-wide the first time (a child that closes stdin early must not kill
// planter).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/result.h"

namespace planter {

struct ProcessSpec {
  std::string path;               // an executable; without a '/' it is looked up in PATH
  std::vector<std::string> args;  // argv[1..]
  std::vector<std::pair<std::string, std::string>> env;  // set on top of planter's own
  std::string input;
  std::chrono::milliseconds timeout{30'000};
  size_t max_output_bytes = 256u << 20;
  // Set from another thread to stop waiting: the child is killed within 100 ms (or never started).
  const std::atomic<bool>* cancel = nullptr;
  // In a sandbox (model/sandbox.h): no network, and every process it starts ends with it.
  bool sandbox = false;
  // Only kKeptEnvironment of planter's environment (and `env`), not all of it.
  bool clean_environment = false;
};

// What a child with ProcessSpec::clean_environment still gets of planter's environment.
inline constexpr std::string_view kKeptEnvironment[] = {"PATH",     "HOME", "LANG",   "LC_ALL",
                                                        "LC_CTYPE", "TZ",   "TMPDIR", "USER"};

struct ProcessOutput {
  int exit_code = 0;  // valid when signal == 0
  int signal = 0;     // the signal that ended the process, or 0
  bool timed_out = false;
  bool output_too_large = false;
  bool cancelled = false;
  std::string out;
  std::string err;           // its last MiB at most
  std::string sandbox_note;  // why a ProcessSpec::sandbox child runs unsandboxed; empty when it is

  bool succeeded() const {
    return !timed_out && !output_too_large && !cancelled && signal == 0 && exit_code == 0;
  }
};

// `name` looked up in PATH as execvp would: the executable's path, or nothing when no entry of
// PATH has it.
std::optional<std::string> find_executable(const std::string& name);

// Fails only when the process could not be started at all (the message names the path).
Result<ProcessOutput> run_process(const ProcessSpec& spec);

// "exited with status 3", "timed out after 30000 ms and was killed", ...
std::string describe_exit(const ProcessOutput& p, const ProcessSpec& spec);

// The last `max_lines` lines of `s`, without trailing blank space.
std::string tail_lines(const std::string& s, size_t max_lines);

}  // namespace planter
