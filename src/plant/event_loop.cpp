#include "plant/event_loop.h"

namespace planter::plant {

void EventLoop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    ready_.push_back(std::move(fn));
  }
  cv_.notify_one();
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
      auto fn = std::move(ready_.front());
      ready_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
      continue;
    }
    if (deadline && now >= *deadline) return End::kDeadline;
    std::optional<Clock::time_point> wake = deadline;
    if (!timers_.empty() && (!wake || timers_.top().at < *wake)) wake = timers_.top().at;
    if (wake)
      cv_.wait_until(lock, *wake);
    else
      cv_.wait(lock);
  }
  return End::kStopped;
}

}  // namespace planter::plant
