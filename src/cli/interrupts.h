// SIGINT and SIGTERM while `plant`, `uproot` or `replant` runs, as a CI job or a person at the
// terminal sends them: planting stops (requests in flight finish), the summary of what waits is
// printed as at --timeout, and the exit code is 128 + the signal (130, 143). Before planting has
// begun (planning, reading the clusters) nothing was declared: that is said and the command exits
// at once. A second signal exits at once too. With `--sim --keep`, the signal that ends serving
// is waited for here (wait()).
//
// Constructed before any thread starts: it blocks both signals for every thread, and takes them
// on a thread of its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace planter::cli {

class Interrupts {
 public:
  Interrupts();
  ~Interrupts();
  Interrupts(const Interrupts&) = delete;
  Interrupts& operator=(const Interrupts&) = delete;

  // Requested by the first signal once running(true).
  std::stop_token stop_token() const { return stop_.get_token(); }
  // Whether declaring has begun (a signal then stops it rather than ending the process).
  void running(bool on) { running_ = on; }
  // The signal that came (0: none).
  int signal() const { return signal_; }
  // Blocks until a signal comes.
  void wait();

 private:
  void take();

  std::stop_source stop_;
  std::atomic<bool> running_{false}, closing_{false};
  std::atomic<int> signal_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread waiter_;
};

}  // namespace planter::cli
