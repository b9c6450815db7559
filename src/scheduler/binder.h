// The scheduler's writers: a few threads that carry out what a scheduling cycle decided (claims
// bound, pods bound, their Events and conditions written), so that the next cycle does not wait
// for the API server, as kube-scheduler binds in goroutines of its own. Jobs run in any order on
// any of the threads; one job's writes run in its order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace planter::scheduler {

class Binder {
 public:
  explicit Binder(int threads);
  // Waits for the jobs queued to finish.
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  void run(std::function<void()> job);
  // Jobs queued or running.
  size_t busy() const;

 private:
  void work();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace planter::scheduler
