// The planting engine's own thread of control: work posted from any thread (the clients'
// transport threads, where watch events arrive) runs one item at a time on the thread that calls
// run(), so the engine's state needs no locks. Timers are for backoff and deadlines only; nothing
// here polls.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <stop_token>
#include <vector>

namespace planter::plant {

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;

  // Both may be called from any thread, also from inside posted work.
  void post(std::function<void()> fn);
  void post_after(std::chrono::milliseconds delay, std::function<void()> fn);

  enum class End { kStopped, kDeadline, kCancelled };
  // Runs posted work until stop() (kStopped), `deadline` (kDeadline) or a stop request on
  // `cancel` (kCancelled), whichever comes first.
  End run(std::optional<Clock::time_point> deadline = std::nullopt, std::stop_token cancel = {});
  void stop();

 private:
  struct Timer {
    Clock::time_point at;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Timer& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> ready_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  uint64_t seq_ = 0;
  // Set under mu_ (so that a sleeping run() sees them); atomic so that run() can look between the
  // items of a batch without the lock.
  std::atomic<bool> stopped_{false};
  std::atomic<bool> cancelled_{false};
  bool waiting_ = false;  // run() sleeps on cv_: a post must wake it
};

}  // namespace planter::plant
