// Result<T>: a value or an error message, returned across module boundaries instead of
// throwing. Expected<T, E> is the general form (a small stand-in for C++23's std::expected), for
// layers whose errors carry more than a message (kube::ApiError).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace planter {

// A failure that a caller reports or wraps; the message is meant for a person.
struct Error {
  std::string message;
};

template <typename T, typename E>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit
  Expected(E error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

  // Precondition: !ok().
  const E& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, E> state_;
};

template <typename T>
using Result = Expected<T, Error>;

}  // namespace planter
