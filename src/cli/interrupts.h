// SIGINT and SIGTERM while `plant`, `uproot`, `replant` or `diff` runs, as a CI job or a person at
// the terminal sends them, and the command's --timeout as a bound nothing outlives.
//
// - A signal once declaring (or uprooting, pruning, waiting for health) has begun stops it
//   (requests in flight finish), the summary of what waits is printed as at --timeout, and the
//   exit code is 128 + the signal (130, 143).
// - A signal before that (planning, reading the clusters, the preflight, a diff) ends the
//   command at once, saying which step it stopped and that nothing was declared. A second signal
//   exits at once too.
// - The command's deadline (--timeout from its start): steps end themselves by then; whatever
//   has not ended a few seconds later (a server that never answers, an exec plugin that hangs) is
//   ended here, exit 1, naming the step and the clusters it was talking to.
// With `--sim --keep`, the signal that ends serving is waited for here (wait()).
//
// Constructed before any thread starts: it blocks both signals for every thread, and takes them
// on a thread of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

namespace planter::cli {

class Interrupts {
 public:
  // How long past the deadline a step may take to end itself before the command is ended.
  static constexpr std::chrono::seconds kGrace{3};

  Interrupts();
  ~Interrupts();
  Interrupts(const Interrupts&) = delete;
  Interrupts& operator=(const Interrupts&) = delete;

  // Requested by the first signal once running(true).
  std::stop_token stop_token() const { return stop_.get_token(); }
  // Whether declaring has begun (a signal then stops it rather than ending the process).
  void running(bool on) { running_ = on; }
  // The step under way, in words ("the preflight"), and the clusters it talks to ("SELF at
  // https://10.0.0.1:6443"): what an early signal or the deadline names.
  void doing(std::string step);
  void talking_to(std::string clusters);
  // What a stop before running(true) leaves undone ("nothing was declared", the default).
  void nothing_done(std::string words);
  // The command's deadline (none: no bound); disarm() once its work is over (--keep serves on).
  void set_deadline(std::chrono::steady_clock::time_point deadline, double seconds);
  void disarm();
  // The signal that came (0: none).
  int signal() const { return signal_; }
  // Blocks until a signal comes.
  void wait();

 private:
  void take();
  std::string step() const;
  std::string nothing() const;

  std::stop_source stop_;
  std::atomic<bool> running_{false}, closing_{false};
  std::atomic<int> signal_{0};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string step_ = "starting", clusters_, nothing_ = "nothing was declared";
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  double seconds_ = 0;
  std::thread waiter_;
};

}  // namespace planter::cli
