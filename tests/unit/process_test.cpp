// Child processes (plugins, exec credential plugins): planter is never held by one.
#include "model/process.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace planter {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// True once `pid` is gone or a zombie (an orphan waits for init to reap it).
bool gone(const std::string& pid) {
  for (int i = 0; i < 50; ++i) {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    auto close = line.rfind(')');
    if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z')
      return true;
    // sleep-ok(poll): the step of a wait for observed state with a deadline
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

TEST(Process, AGrandchildHoldingStdoutDoesNotHoldTheCaller) {
  // sleep-ok(child): a grandchild that outlives its shell
  ProcessSpec spec{.path = "/bin/sh", .args = {"-c", "sleep 30 & echo $!"}};
  auto start = Clock::now();
  auto run = run_process(spec);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_TRUE(run->succeeded()) << describe_exit(*run, spec);
  EXPECT_LT(Clock::now() - start, 5s);
  // And the grandchild went with it.
  std::string grandchild = run->out.substr(0, run->out.find('\n'));
  ASSERT_FALSE(grandchild.empty());
  EXPECT_TRUE(gone(grandchild)) << "pid " << grandchild << " outlived its parent's run";
}

TEST(Process, CancelKillsTheChildAndItsGroup) {
  std::atomic<bool> cancel = false;
  // sleep-ok(child): a child that runs until cancelled
  ProcessSpec spec{.path = "/bin/sh", .args = {"-c", "sleep 30; echo never"}, .cancel = &cancel};
  std::thread canceller([&] {
    // sleep-ok(time): a cancel while the child runs
    std::this_thread::sleep_for(200ms);
    cancel = true;
  });
  auto start = Clock::now();
  auto run = run_process(spec);
  canceller.join();
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->cancelled);
  EXPECT_FALSE(run->succeeded());
  EXPECT_EQ(run->out, "");
  EXPECT_LT(Clock::now() - start, 5s);
  EXPECT_EQ(describe_exit(*run, spec), "was stopped: planter is shutting down");
  // Once cancelled, nothing more starts.
  auto again = run_process(spec);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->cancelled);
}

TEST(Process, TimeoutKillsWhatTheChildStarted) {
  // sleep-ok(child): children that outlive the timeout
  ProcessSpec spec{.path = "/bin/sh", .args = {"-c", "sleep 30 & sleep 30"}, .timeout = 300ms};
  auto start = Clock::now();
  auto run = run_process(spec);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->timed_out);
  EXPECT_LT(Clock::now() - start, 5s);
}

}  // namespace
}  // namespace planter
