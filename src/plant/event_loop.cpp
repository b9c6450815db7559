#include "plant/event_loop.h"

namespace planter::plant {

void EventLoop::post(std::function<void()> fn) {
  bool sleeping;
  {
    std::lock_guard lock(mu_);
    ready_.push_back(std::move(fn));
    sleeping = waiting_;
  }
  // A busy loop takes what was posted when it next looks: only a sleeping one needs waking.
  if (sleeping) cv_.notify_one();
}

void EventLoop::post_after(std::chrono::milliseconds delay, std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    timers_.push(Timer{Clock::now() + delay, seq_++, std::move(fn)});
  }
  cv_.notify_one();
}

void EventLoop::stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_one();
}

EventLoop::End EventLoop::run(std::optional<Clock::time_point> deadline, std::stop_token cancel) {
  std::stop_callback on_cancel(cancel, [this] {
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
    }
    cv_.notify_one();
  });
  std::unique_lock lock(mu_);
  while (!stopped_) {
    if (cancelled_) return End::kCancelled;
    auto now = Clock::now();
    while (!timers_.empty() && timers_.top().at <= now) {
      ready_.push_back(std::move(const_cast<Timer&>(timers_.top()).fn));
      timers_.pop();
    }
    if (!ready_.empty()) {
      // Everything posted so far, in order, under one lock: the clients' threads post an answer
      // each, and taking them one lock at a time made both sides wait on the mutex.
      std::deque<std::function<void()>> batch;
      batch.swap(ready_);
      lock.unlock();
      while (!batch.empty()) {
        batch.front()();
        batch.pop_front();
        if (stopped_ || cancelled_) break;  // stop() or a cancel, from within or elsewhere
      }
      lock.lock();
      // What a stop left unrun stays first in line, as it would have without the batch.
      while (!batch.empty()) {
        ready_.push_front(std::move(batch.back()));
        batch.pop_back();
      }
      continue;
    }
    if (deadline && now >= *deadline) return End::kDeadline;
    std::optional<Clock::time_point> wake = deadline;
    if (!timers_.empty() && (!wake || timers_.top().at < *wake)) wake = timers_.top().at;
    waiting_ = true;
    if (wake)
      cv_.wait_until(lock, *wake);
    else
      cv_.wait(lock);
    waiting_ = false;
  }
  return End::kStopped;
}

}  // namespace planter::plant
