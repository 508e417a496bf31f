// Strong unit types. Every quantity that crosses a library boundary carries its unit in its type;
// values are SI (bytes, seconds, FLOP, FLOP/s, bytes/s). Conversions to human units live here only.
#pragma once

#include <compare>

namespace shardsim {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : v_(v) {}
  [[nodiscard]] constexpr double value() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    v_ -= o.v_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.v_ + b.v_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.v_ - b.v_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.v_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.v_ / k); }
  friend constexpr double operator/(Quantity a, Quantity b) { return a.v_ / b.v_; }
  friend constexpr auto operator<=>(Quantity, Quantity) = default;

 private:
  double v_ = 0.0;
};

struct BytesTag {};
struct SecondsTag {};
struct FlopsTag {};
struct FlopsPerSecTag {};
struct BytesPerSecTag {};

using Bytes = Quantity<BytesTag>;              // bytes
using Seconds = Quantity<SecondsTag>;          // seconds
using Flops = Quantity<FlopsTag>;              // floating-point operations
using FlopsPerSec = Quantity<FlopsPerSecTag>;  // FLOP/s
using BytesPerSec = Quantity<BytesPerSecTag>;  // bytes/s

inline constexpr double kGiB = 1073741824.0;  // 2^30 bytes
inline constexpr double kMiB = 1048576.0;     // 2^20 bytes
inline constexpr double kGB = 1e9;            // 10^9 bytes (SI)

[[nodiscard]] constexpr double to_gib(Bytes b) {
  return b.value() / kGiB;
}
[[nodiscard]] constexpr double to_gb(Bytes b) {
  return b.value() / kGB;
}

}  // namespace shardsim
