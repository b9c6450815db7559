#include "operator/slice_pool.h"

#include <algorithm>
#include <utility>

namespace planter::op {

struct SlicePool::Job {
  std::string tenant;
  Slice slice;
  bool cancelled = false;
  bool running = false;
  bool woken = false;  // while running: wake() came, the next slice has no pause
};

SlicePool::SlicePool(size_t workers) {
  workers = std::max<size_t>(workers, 1);
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

SlicePool::~SlicePool() {
  stop();
}

std::shared_ptr<SlicePool::Job> SlicePool::submit(std::string tenant, Slice slice) {
  auto job = std::make_shared<Job>();
  job->tenant = std::move(tenant);
  job->slice = std::move(slice);
  {
    std::lock_guard lock(mu_);
    ready(job);
  }
  cv_.notify_one();
  return job;
}

void SlicePool::ready(std::shared_ptr<Job> job) {
  auto& queue = ready_[job->tenant];
  if (queue.empty()) turns_.push_back(job->tenant);
  queue.push_back(std::move(job));
}

std::shared_ptr<SlicePool::Job> SlicePool::next() {
  while (!turns_.empty()) {
    std::string tenant = std::move(turns_.front());
    turns_.pop_front();
    auto it = ready_.find(tenant);
    if (it == ready_.end()) continue;  // defensive: a tenant's turn outlives no queue
    std::shared_ptr<Job> job = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty())
      ready_.erase(it);
    else
      turns_.push_back(std::move(tenant));  // its next job waits for the others' turns
    return job;
  }
  return nullptr;
}

void SlicePool::cancel(const std::shared_ptr<Job>& job) {
  if (!job) return;
  std::unique_lock lock(mu_);
  job->cancelled = true;
  if (auto it = ready_.find(job->tenant); it != ready_.end()) {
    std::erase(it->second, job);
    if (it->second.empty()) {
      ready_.erase(it);
      std::erase(turns_, job->tenant);
    }
  }
  resting_.erase_if([&](const std::shared_ptr<Job>& j) { return j == job; });
  settled_.wait(lock, [&] { return !job->running; });
}

void SlicePool::wake(const std::shared_ptr<Job>& job) {
  if (!job) return;
  {
    std::lock_guard lock(mu_);
    if (job->cancelled || stopping_) return;
    if (job->running) {
      job->woken = true;
      return;
    }
    size_t before = resting_.size();
    resting_.erase_if([&](const std::shared_ptr<Job>& j) { return j == job; });
    if (resting_.size() == before) return;  // queued already
    ready(job);
  }
  cv_.notify_one();
}

void SlicePool::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [_, queue] : ready_)
      for (auto& job : queue) job->cancelled = true;
    resting_.for_each([](std::shared_ptr<Job>& job) { job->cancelled = true; });
    ready_.clear();
    turns_.clear();
    resting_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : workers_)
    if (t.joinable()) t.join();
}

SlicePool::Gauges SlicePool::gauges() const {
  std::lock_guard lock(mu_);
  size_t queued = 0;
  for (const auto& [_, queue] : ready_) queued += queue.size();
  return {running_, queued, resting_.size()};
}

void SlicePool::work() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    resting_.take_due(Clock::now(), [this](std::shared_ptr<Job> job) { ready(std::move(job)); });
    std::shared_ptr<Job> job = next();
    if (!job) {
      if (std::optional<Clock::time_point> due = resting_.next_due())
        cv_.wait_until(lock, *due);
      else
        cv_.wait(lock);
      continue;
    }
    job->running = true;
    ++running_;
    lock.unlock();
    std::optional<std::chrono::milliseconds> again = job->slice();
    lock.lock();
    job->running = false;
    --running_;
    bool woken = std::exchange(job->woken, false);
    if (again && !job->cancelled && !stopping_) {
      resting_.add(job, Clock::now() + (woken ? std::chrono::milliseconds(0) : *again));
      cv_.notify_one();  // a worker may need a shorter wait
    }
    settled_.notify_all();
  }
}

}  // namespace planter::op
