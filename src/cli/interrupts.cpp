#include "cli/interrupts.h"

#include <fmt/format.h>
#include <pthread.h>

#include <algorithm>
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

void Interrupts::doing(std::string step) {
  std::lock_guard lock(mu_);
  step_ = std::move(step);
}

void Interrupts::talking_to(std::string clusters) {
  std::lock_guard lock(mu_);
  clusters_ = std::move(clusters);
}

void Interrupts::set_deadline(std::chrono::steady_clock::time_point deadline, double seconds) {
  {
    std::lock_guard lock(mu_);
    deadline_ = deadline;
    seconds_ = seconds;
  }
}

void Interrupts::nothing_done(std::string words) {
  std::lock_guard lock(mu_);
  nothing_ = std::move(words);
}

std::string Interrupts::nothing() const {
  std::lock_guard lock(mu_);
  return nothing_;
}

void Interrupts::disarm() {
  std::lock_guard lock(mu_);
  deadline_.reset();
}

std::string Interrupts::step() const {
  std::lock_guard lock(mu_);
  return clusters_.empty() ? step_ : fmt::format("{} ({})", step_, clusters_);
}

void Interrupts::take() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  for (;;) {
    std::optional<std::chrono::steady_clock::time_point> end;
    {
      std::lock_guard lock(mu_);
      if (deadline_) end = *deadline_ + kGrace;
    }
    // A second at a time, so that a deadline set later is seen.
    std::chrono::steady_clock::duration wait = std::chrono::seconds(1);
    if (end)
      wait = std::clamp<std::chrono::steady_clock::duration>(
          *end - std::chrono::steady_clock::now(), std::chrono::milliseconds(1), wait);
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    int sig = sigtimedwait(&signals, nullptr, &ts);
    if (closing_) return;
    if (sig != SIGINT && sig != SIGTERM) {
      bool over = false;
      double seconds = 0;
      {
        std::lock_guard lock(mu_);
        over = deadline_ && std::chrono::steady_clock::now() >= *deadline_ + kGrace;
        seconds = seconds_;
      }
      if (!over) continue;
      std::fflush(stdout);
      fmt::print(stderr,
                 "\nerror: --timeout {}s reached while {}, which did not end by itself: "
                 "stopped{}\n",
                 seconds, step(), running_ ? "" : "; " + nothing());
      std::fflush(stderr);
      std::_Exit(1);
    }
    if (signal_ != 0 || !running_) {
      std::fflush(stdout);
      if (signal_ != 0)
        fmt::print(stderr, "\n{}: stopping now\n", name_of(sig));
      else
        fmt::print(stderr, "\ninterrupted ({}) while {}: stopped; {}\n", name_of(sig), step(),
                   nothing());
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
