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
  std::vector<Point3> shapes;
  std::vector<std::array<double, 3>> dims;  // the points' own (m, n, k)
  std::vector<double> effs;
  for (const auto& p : c.gemm_points)
    if (p.dtype == dtype_name(dtype)) {
      shapes.push_back(log2_shape(p.m, p.n, p.k));
      dims.push_back({p.m, p.n, p.k});
      effs.push_back(p.efficiency);
    }
  if (shapes.empty()) return std::nullopt;
  // Clamp the query to the measured range, axis by axis.
  Point3 x = log2_shape(m, n, k);
  std::array<double, 3> shape = {m, n, k};
  for (std::size_t a = 0; a < 3; ++a) {
    const auto [lo, hi] = std::ranges::minmax(dims, {}, [a](const auto& d) { return d[a]; });
    // The boundary's own dimension (not exp2 of its logarithm, which may miss the integer).
    if (shape[a] < lo[a]) shape[a] = lo[a];
    if (shape[a] > hi[a]) shape[a] = hi[a];
    x[a] = std::log2(shape[a]);
  }
  if (clamped) *clamped = shape;
  std::vector<Candidate> near;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    near.push_back({squared_distance(x, shapes[i]), effs[i]});
  std::ranges::stable_sort(near, {}, &Candidate::distance2);
  near.resize(std::min<std::size_t>(near.size(), kNearestGemmPoints));
  if (near.front().distance2 < 1e-18) return near.front().efficiency;
  // eff = sum w_i eff_i / sum w_i, w_i = 1 / d_i^2
  double weighted = 0, weights = 0;
  for (const auto& cand : near) {
    weighted += cand.efficiency / cand.distance2;
    weights += 1 / cand.distance2;
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
