// A client-side rate limiter: a token bucket of `burst` tokens refilled at `qps` per second, as
// client-go's flowcontrol limiter. Time comes in as an argument, so tests drive it.
// Not thread-safe: one transport thread owns it.
#pragma once

#include <algorithm>
#include <chrono>

namespace planter::kube {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  // qps <= 0: unlimited.
  RateLimiter(double qps, int burst) : qps_(qps), burst_(std::max(burst, 1)), tokens_(burst_) {}

  // Takes a token if one is there (returns zero) or says how long until one will be (and takes
  // nothing).
  Clock::duration try_take(Clock::time_point now) {
    if (qps_ <= 0) return Clock::duration::zero();
    refill(now);
    if (tokens_ >= 1.0) {
      tokens_ -= 1.0;
      return Clock::duration::zero();
    }
    auto wait = std::chrono::duration<double>((1.0 - tokens_) / qps_);
    return std::max<Clock::duration>(std::chrono::duration_cast<Clock::duration>(wait),
                                     std::chrono::microseconds(100));
  }

 private:
  void refill(Clock::time_point now) {
    if (last_ == Clock::time_point{}) last_ = now;
    double elapsed = std::chrono::duration<double>(now - last_).count();
    if (elapsed > 0) {
      tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
      last_ = now;
    }
  }

  double qps_;
  int burst_;
  double tokens_;
  Clock::time_point last_{};
};

// Exponential backoff with jitter: attempt n (1-based) waits between half and all of
// min(cap, base * 2^(n-1)), so clients that failed together do not come back together.
inline std::chrono::milliseconds backoff_delay(int attempt, std::chrono::milliseconds base,
                                               std::chrono::milliseconds cap, uint64_t random) {
  int64_t full = base.count();
  for (int i = 1; i < attempt && full < cap.count(); ++i) full *= 2;
  full = std::min<int64_t>(full, cap.count());
  int64_t half = full / 2;
  return std::chrono::milliseconds(
      half + (full - half > 0
                  ? static_cast<int64_t>(random % static_cast<uint64_t>(full - half + 1))
                  : 0));
}

}  // namespace planter::kube
