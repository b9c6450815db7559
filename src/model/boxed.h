// An optional value kept on the heap: a pointer's size when empty. For fields that are rarely set
// in structures held by the hundred thousand (a requirement's object outside the seed).
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace planter {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: as std::optional converts
  Boxed(T value) : p_(std::make_unique<T>(std::move(value))) {}  // NOLINT: ditto
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const { return *p_; }
  T& operator*() { return *p_; }
  const T* operator->() const { return p_.get(); }
  T* operator->() { return p_.get(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace planter
