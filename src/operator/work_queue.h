// The controller's queue of keys to reconcile ("ns/name"), with client-go's work queue
// semantics: a key is queued at most once however often it is added; a key added while a worker
// has it is queued again when the worker is done with it, so no key is reconciled twice at once;
// a key added with a delay (a requeue) waits in the delay queue until due. The hooks feed the
// workqueue_* metrics.
//
// Threads: every member may be called from any thread; get() blocks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "operator/delay_queue.h"

namespace planter::op {

class WorkQueue {
 public:
  using Clock = std::chrono::steady_clock;

  struct Hooks {
    std::function<void(size_t depth)> added;                 // a key queued (depth after)
    std::function<void()> retried;                           // a key added with a delay
    std::function<void(double waited, size_t depth)> taken;  // a worker took a key
  };

  explicit WorkQueue(Hooks hooks = {});

  void add(const std::string& key);
  // Adds `key` once `delay` has passed (at once when it is not positive).
  void add_after(const std::string& key, std::chrono::milliseconds delay);
  // The next key to reconcile, once there is one; nothing once shut down.
  std::optional<std::string> get();
  // The worker is done with `key`: queued again if it was added meanwhile. True when it was
  // added with a delay while the worker had it (controller-runtime's result "requeue_after").
  bool done(const std::string& key);
  // get() returns nothing from now on, in every thread waiting in it.
  void shut_down();

  size_t depth() const;    // keys queued, not counting those delayed
  size_t delayed() const;  // keys waiting for their delay
 private:
  // mu_ held: queues `key` unless it is queued already or a worker has it.
  void queue_locked(const std::string& key);
  // mu_ held: `key` joins the queue's end.
  void push_locked(const std::string& key);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  Hooks hooks_;
  std::deque<std::string> queue_;
  std::set<std::string> dirty_;                         // queued, or added while a worker has it
  std::set<std::string> processing_;                    // a worker has it
  std::set<std::string> requeued_;                      // added with a delay while a worker had it
  std::map<std::string, Clock::time_point> queued_at_;  // for the wait a key had
  DelayQueue<std::string> later_;
  bool shutting_down_ = false;
};

}  // namespace planter::op
