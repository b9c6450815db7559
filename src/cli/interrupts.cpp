#include "cli/interrupts.h"

#include <fmt/format.h>
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "cli/stop_signals.h"

namespace planter::cli {

namespace {

const char* name_of(int sig) {
  return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

}  // namespace

Interrupts::Interrupts() {
  block_stop_signals();
  waiter_ = std::thread([this] { take(); });
}

Interrupts::~Interrupts() {
  closing_ = true;
  pthread_kill(waiter_.native_handle(), SIGTERM);
  waiter_.join();
}

void Interrupts::take() {
  for (;;) {
    int sig = wait_for_stop_signal();
    if (closing_) return;
    if (signal_ != 0 || !running_) {
      std::fflush(stdout);
      fmt::print(stderr, "{}{}: stopping now{}\n", signal_ != 0 ? "\n" : "", name_of(sig),
                 signal_ != 0 ? "" : "; nothing was declared");
      std::fflush(stderr);
      std::_Exit(128 + sig);
    }
    {
      std::lock_guard lock(mu_);
      signal_ = sig;
    }
    cv_.notify_all();
    stop_.request_stop();
  }
}

void Interrupts::wait() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return signal_ != 0; });
}

}  // namespace planter::cli
