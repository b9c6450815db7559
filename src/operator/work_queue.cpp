#include "operator/work_queue.h"

#include <utility>

namespace planter::op {

WorkQueue::WorkQueue(Hooks hooks) : hooks_(std::move(hooks)) {}

void WorkQueue::queue_locked(const std::string& key) {
  if (!dirty_.insert(key).second) return;
  if (processing_.contains(key)) return;  // queued by done()
  push_locked(key);
}

void WorkQueue::push_locked(const std::string& key) {
  queue_.push_back(key);
  queued_at_[key] = Clock::now();
  if (hooks_.added) hooks_.added(queue_.size());
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  queue_locked(key);
  cv_.notify_one();
}

void WorkQueue::add_after(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  if (hooks_.retried) hooks_.retried();
  if (processing_.contains(key)) requeued_.insert(key);
  if (delay.count() <= 0) {
    queue_locked(key);
  } else {
    later_.add(key, Clock::now() + delay);
  }
  cv_.notify_one();  // a waiter may need a shorter wait
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  while (!shutting_down_) {
    later_.take_due(Clock::now(), [this](std::string key) { queue_locked(key); });
    if (queue_.empty()) {
      if (std::optional<Clock::time_point> due = later_.next_due())
        cv_.wait_until(lock, *due);
      else
        cv_.wait(lock);
      continue;
    }
    std::string key = std::move(queue_.front());
    queue_.pop_front();
    dirty_.erase(key);
    processing_.insert(key);
    auto since = queued_at_.extract(key);
    if (hooks_.taken)
      hooks_.taken(since ? std::chrono::duration<double>(Clock::now() - since.mapped()).count() : 0,
                   queue_.size());
    return key;
  }
  return std::nullopt;
}

bool WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  bool requeued = requeued_.erase(key) > 0;
  if (dirty_.contains(key)) {  // added while the worker had it
    push_locked(key);
    cv_.notify_one();
  }
  return requeued;
}

void WorkQueue::shut_down() {
  {
    std::lock_guard lock(mu_);
    shutting_down_ = true;
    later_.clear();
  }
  cv_.notify_all();
}

size_t WorkQueue::depth() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

size_t WorkQueue::delayed() const {
  std::lock_guard lock(mu_);
  return later_.size();
}

}  // namespace planter::op
