// Test support: a long-running `planter` subcommand (the scheduler, the operator) as a child
// process with its output in a log file, stopped with a signal of the test's choice.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace planter::testing {

class PlanterProcess {
 public:
  // Runs `planter <args...>` with stdout and stderr appended to `log`.
  PlanterProcess(std::vector<std::string> args, std::filesystem::path log);
  ~PlanterProcess() { stop(SIGTERM); }
  PlanterProcess(const PlanterProcess&) = delete;
  PlanterProcess& operator=(const PlanterProcess&) = delete;

  void start();
  // True while the process has not exited.
  bool running();
  // Sends `sig` and waits for the process to end; returns its exit code (128 + the signal that
  // killed it), or -1 when it was not running.
  int stop(int sig);
  std::string log() const;

 private:
  std::vector<std::string> args_;
  std::filesystem::path log_;
  pid_t pid_ = -1;
};

}  // namespace planter::testing
