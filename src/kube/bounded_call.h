// A request answered synchronously, but waited for only until a deadline: what a command bounded
// by --timeout asks before and after planting (inventories, the reads of clusters). The answer that
// comes after the deadline is dropped; the caller gets a transport error saying none came.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "kube/api_error.h"

namespace planter::kube {

// `start` sends the request with the callback it is given. No deadline: waits for the answer.
template <class T>
ApiResult<T> bounded_call(const std::function<void(std::function<void(ApiResult<T>)>)>& start,
                          std::optional<std::chrono::steady_clock::time_point> deadline) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<ApiResult<T>> answer;
  };
  auto state = std::make_shared<State>();
  start([state](ApiResult<T> r) {
    std::lock_guard lock(state->mu);
    state->answer.emplace(std::move(r));
    state->cv.notify_all();
  });
  std::unique_lock lock(state->mu);
  auto answered = [&] { return state->answer.has_value(); };
  if (deadline)
    state->cv.wait_until(lock, *deadline, answered);
  else
    state->cv.wait(lock, answered);
  if (state->answer) return std::move(*state->answer);
  ApiError e;
  e.reason = "Transport";
  e.message = "no answer before the command's deadline (--timeout)";
  return e;
}

}  // namespace planter::kube
