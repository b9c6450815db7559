#include "operator/slice_pool.h"

#include <algorithm>

namespace planter::op {

struct SlicePool::Job {
  Slice slice;
  bool cancelled = false;
  bool running = false;
};

SlicePool::SlicePool(size_t workers) {
  workers = std::max<size_t>(workers, 1);
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

SlicePool::~SlicePool() {
  stop();
}

std::shared_ptr<SlicePool::Job> SlicePool::submit(Slice slice) {
  auto job = std::make_shared<Job>();
  job->slice = std::move(slice);
  {
    std::lock_guard lock(mu_);
    ready_.push_back(job);
  }
  cv_.notify_one();
  return job;
}

void SlicePool::cancel(const std::shared_ptr<Job>& job) {
  if (!job) return;
  std::unique_lock lock(mu_);
  job->cancelled = true;
  std::erase(ready_, job);
  std::erase_if(resting_, [&](const auto& entry) { return entry.second == job; });
  settled_.wait(lock, [&] { return !job->running; });
}

void SlicePool::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& job : ready_) job->cancelled = true;
    for (auto& [_, job] : resting_) job->cancelled = true;
    ready_.clear();
    resting_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

SlicePool::Gauges SlicePool::gauges() const {
  std::lock_guard lock(mu_);
  return {running_, ready_.size(), resting_.size()};
}

void SlicePool::work() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    auto now = Clock::now();
    while (!resting_.empty() && resting_.begin()->first <= now) {
      ready_.push_back(std::move(resting_.begin()->second));
      resting_.erase(resting_.begin());
    }
    if (ready_.empty()) {
      if (resting_.empty())
        cv_.wait(lock);
      else
        cv_.wait_until(lock, resting_.begin()->first);
      continue;
    }
    std::shared_ptr<Job> job = std::move(ready_.front());
    ready_.pop_front();
    job->running = true;
    ++running_;
    lock.unlock();
    std::optional<std::chrono::milliseconds> again = job->slice();
    lock.lock();
    job->running = false;
    --running_;
    if (again && !job->cancelled && !stopping_) {
      resting_.emplace(Clock::now() + *again, job);
      cv_.notify_one();  // a worker may need a shorter wait
    }
    settled_.notify_all();
  }
}

}  // namespace planter::op
