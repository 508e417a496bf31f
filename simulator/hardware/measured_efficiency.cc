// Measured-table lookups (contracts and formulas in measured_efficiency.h).
#include "simulator/hardware/measured_efficiency.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace shardsim {
namespace {

using Point3 = std::array<double, 3>;

Point3 log2_shape(double m, double n, double k) {
  return {std::log2(m), std::log2(n), std::log2(k)};
}

double squared_distance(const Point3& a, const Point3& b) {
  double d = 0;
  for (std::size_t i = 0; i < 3; ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return d;
}

struct Candidate {
  double distance2;
  double efficiency;
};

}  // namespace

std::optional<double> measured_gemm_efficiency(const ComputeModel& c, double m, double n, double k,
                                               Dtype dtype, std::array<double, 3>* clamped) {
  // Allocation-free (this runs for every GEMM a plan prices): one pass for the dtype's range per
  // axis, one for the nearest points.
  const std::string want = dtype_name(dtype);  // short: no allocation
  bool any = false;
  Point3 lo{}, hi{};  // the points' own dimensions (not logarithms)
  for (const auto& p : c.gemm_points) {
    if (p.dtype != want) continue;
    const Point3 d = {p.m, p.n, p.k};
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = any ? std::min(lo[a], d[a]) : d[a];
      hi[a] = any ? std::max(hi[a], d[a]) : d[a];
    }
    any = true;
  }
  if (!any) return std::nullopt;
  // Clamp the query to the measured range, axis by axis, to the boundary's own dimension (not
  // exp2 of its logarithm, which may miss the integer).
  std::array<double, 3> shape = {m, n, k};
  for (std::size_t a = 0; a < 3; ++a) shape[a] = std::clamp(shape[a], lo[a], hi[a]);
  if (clamped) *clamped = shape;
  const Point3 x = log2_shape(shape[0], shape[1], shape[2]);
  // The kNearestGemmPoints nearest, ascending distance; ties keep table order (insertion moves
  // only past strictly larger distances), as a stable sort would.
  std::array<Candidate, kNearestGemmPoints> near{};
  std::size_t count = 0;
  for (const auto& p : c.gemm_points) {
    if (p.dtype != want) continue;
    const Candidate cand{squared_distance(x, log2_shape(p.m, p.n, p.k)), p.efficiency};
    std::size_t i = std::min<std::size_t>(count, kNearestGemmPoints);
    if (i == kNearestGemmPoints && !(cand.distance2 < near[i - 1].distance2)) continue;
    if (i == kNearestGemmPoints) --i;  // the last one drops out
    while (i > 0 && cand.distance2 < near[i - 1].distance2) {
      near[i] = near[i - 1];
      --i;
    }
    near[i] = cand;
    count = std::min<std::size_t>(count + 1, kNearestGemmPoints);
  }
  if (near[0].distance2 < 1e-18) return near[0].efficiency;
  // eff = sum w_i eff_i / sum w_i, w_i = 1 / d_i^2
  double weighted = 0, weights = 0;
  for (std::size_t i = 0; i < count; ++i) {
    weighted += near[i].efficiency / near[i].distance2;
    weights += 1 / near[i].distance2;
  }
  return weighted / weights;
}

double memory_bound_efficiency(const ComputeModel& c, double bytes, MemoryKernel kernel) {
  const std::string_view name = memory_kernel_name(kernel);
  const auto of = [&c](std::string_view k) {
    return std::ranges::any_of(c.memory_bound_points,
                               [k](const MemoryBoundPoint& p) { return p.kernel == k; });
  };
  const std::string_view curve = !name.empty() && of(name) ? name : std::string_view{};
  if (curve.empty() && !of(curve)) return c.memory_bound_efficiency;
  // The neighbours of `bytes` on the curve (points of one kernel ascend in bytes).
  const MemoryBoundPoint *lo = nullptr, *hi = nullptr;
  for (const auto& p : c.memory_bound_points) {
    if (p.kernel != curve) continue;
    if (p.bytes <= bytes) lo = &p;
    if (p.bytes >= bytes && hi == nullptr) hi = &p;
  }
  if (lo == nullptr && hi == nullptr) return c.memory_bound_efficiency;  // bytes is NaN
  if (lo == nullptr) return hi->efficiency;                              // below the first point
  if (hi == nullptr || hi == lo) return lo->efficiency;
  // t = (ln bytes - ln b_lo) / (ln b_hi - ln b_lo); eff = eff_lo + t (eff_hi - eff_lo)
  const double t = std::log(bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
  return lo->efficiency + t * (hi->efficiency - lo->efficiency);
}

}  // namespace shardsim
