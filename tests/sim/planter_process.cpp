#include "sim/planter_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/sim_process.h"

extern char** environ;

namespace planter::testing {

PlanterProcess::PlanterProcess(std::vector<std::string> args, std::filesystem::path log)
    : args_(std::move(args)), log_(std::move(log)) {
  start();
}

void PlanterProcess::start() {
  std::vector<std::string> argv_s = {PLANTER_BINARY};
  argv_s.insert(argv_s.end(), args_.begin(), args_.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string log = log_.string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (posix_spawn(&pid_, PLANTER_BINARY, &actions, nullptr, argv.data(), environ) != 0) {
    ADD_FAILURE() << "cannot start planter " << args_.front();
    pid_ = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
}

bool PlanterProcess::running() {
  if (pid_ <= 0) return false;
  int status;
  if (waitpid(pid_, &status, WNOHANG) == 0) return true;
  pid_ = -1;
  return false;
}

int PlanterProcess::stop(int sig) {
  if (pid_ <= 0) return -1;
  kill(pid_, sig);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string PlanterProcess::log() const {
  return read_file(log_);
}

}  // namespace planter::testing
