// Items that become due at a time: the one timed structure of the operator, behind its work
// queue's requeues (work_queue.h) and the slice pool's pauses between slices (slice_pool.h), as
// client-go's delaying queue is behind its rate-limited work queue. Not thread-safe: its owner
// holds its own lock.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <utility>

namespace planter::op {

template <class T>
class DelayQueue {
 public:
  using Clock = std::chrono::steady_clock;

  void add(T item, Clock::time_point due) { items_.emplace(due, std::move(item)); }

  // Hands every item due by `now` to `take`, earliest first, and forgets it.
  template <class F>
  void take_due(Clock::time_point now, F&& take) {
    while (!items_.empty() && items_.begin()->first <= now) {
      T item = std::move(items_.begin()->second);
      items_.erase(items_.begin());
      take(std::move(item));
    }
  }

  // When the earliest item is due; nothing when there is none (a waiter waits for news).
  std::optional<Clock::time_point> next_due() const {
    if (items_.empty()) return std::nullopt;
    return items_.begin()->first;
  }

  template <class Pred>
  void erase_if(Pred&& pred) {
    std::erase_if(items_, [&](const auto& entry) { return pred(entry.second); });
  }

  template <class F>
  void for_each(F&& f) {
    for (auto& [_, item] : items_) f(item);
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() { items_.clear(); }

 private:
  std::multimap<Clock::time_point, T> items_;
};

}  // namespace planter::op
