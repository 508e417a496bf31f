// A value or the diagnostics that explain why there is none (std::expected is C++23). Bad input
// crosses library boundaries as this type, never as an exception.
#pragma once

#include <utility>
#include <variant>

#include "simulator/core/diagnostics.h"

namespace shardsim {

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}              // NOLINT: implicit by design
  Expected(Diagnostics errors) : v_(std::move(errors)) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // REQUIRES: ok().
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  // REQUIRES: !ok().
  [[nodiscard]] const Diagnostics& errors() const { return std::get<1>(v_); }

 private:
  std::variant<T, Diagnostics> v_;
};

}  // namespace shardsim
