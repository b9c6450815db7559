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
#include <vector>

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

// `n` requests sent at once (`start(i, done)` sends the i-th), each waited for until the deadline;
// their answers in that order, a transport error for each that none came for.
template <class T>
std::vector<ApiResult<T>> bounded_calls(
    size_t n, const std::function<void(size_t, std::function<void(ApiResult<T>)>)>& start,
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::optional<ApiResult<T>>> answers;
    size_t left = 0;
  };
  auto state = std::make_shared<State>();
  state->answers.resize(n);
  state->left = n;
  for (size_t i = 0; i < n; ++i)
    start(i, [state, i](ApiResult<T> r) {
      std::lock_guard lock(state->mu);
      if (state->answers[i]) return;
      state->answers[i].emplace(std::move(r));
      if (--state->left == 0) state->cv.notify_all();
    });
  std::unique_lock lock(state->mu);
  auto answered = [&] { return state->left == 0; };
  if (deadline)
    state->cv.wait_until(lock, *deadline, answered);
  else
    state->cv.wait(lock, answered);
  std::vector<ApiResult<T>> out;
  out.reserve(n);
  for (auto& a : state->answers) {
    if (a) {
      out.push_back(std::move(*a));
      continue;
    }
    ApiError e;
    e.reason = "Transport";
    e.message = "no answer before the command's deadline (--timeout)";
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace planter::kube
