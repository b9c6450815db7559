// A synchronous request tried again while it fails transiently (refused, reset, 429, 5xx, no
// answer) and time remains, with jittered exponential backoff (backoff_delay): for the few reads
// planter makes before planting (the management cluster's cluster objects, discovery of the kinds
// a seed needs), where the engine's own retries do not apply yet.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>

#include "kube/api_error.h"
#include "kube/rate_limiter.h"
#include "model/jitter_seed.h"

namespace planter::kube {

// Calls `call` (returning ApiResult<T>) until it succeeds, fails for good, or the next try would
// start after `deadline`; `on_retry` hears each transient failure before the wait. `random` spreads
// the waits (a test fixes it); when empty, a generator of this call's own.
template <class Call>
auto retry_transient(Call call, std::chrono::steady_clock::time_point deadline,
                     const std::function<void(const ApiError&)>& on_retry = nullptr,
                     std::function<uint64_t()> random = nullptr) -> decltype(call()) {
  if (!random) random = [gen = std::mt19937_64{jitter_seed()}]() mutable { return gen(); };
  for (int attempt = 1;; ++attempt) {
    auto result = call();
    if (result || !result.error().transient()) return result;
    auto wait = backoff_delay(attempt, std::chrono::milliseconds(200),
                              std::chrono::milliseconds(5'000), random());
    if (std::chrono::steady_clock::now() + wait >= deadline) return result;
    if (on_retry) on_retry(result.error());
    std::this_thread::sleep_for(wait);
  }
}

}  // namespace planter::kube
