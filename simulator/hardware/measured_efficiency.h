// Efficiencies looked up in a profile's measured tables (ComputeModel::gemm_points,
// memory_bound_points and attention_points). Pure functions; simulator/cost/compute.cc dispatches
// to them.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "simulator/core/dtype.h"
#include "simulator/core/memory_kernel.h"
#include "simulator/hardware/hardware.h"

namespace shardsim {

// GEMM efficiency of [m x k].[k x n] in `dtype` from the points of that dtype, or nullopt when
// the dtype has none (the caller then uses the roofline closed form).
// Interpolation: inverse-distance weighting in x = (log2 m, log2 n, log2 k) over the
// kNearestGemmPoints nearest points of the dtype (ties: table order):
//   x is first clamped per axis to the range the dtype's points span (outside the measured
//   range the efficiency is that of the nearest boundary, never extrapolated);
//   a point within 1e-9 of x gives its efficiency exactly; otherwise
//   eff = sum_i w_i eff_i / sum_i w_i with w_i = 1 / |x - x_i|^2.
// The result lies between the smallest and largest efficiency of the points used.
// `clamped`, when given, receives the shape after clamping (m, n, k), so a caller can tell a query
// outside the measured range and apply its own fallback there (simulator/cost/compute.cc).
// REQUIRES: m, n, k > 0.
inline constexpr int kNearestGemmPoints = 4;
[[nodiscard]] std::optional<double> measured_gemm_efficiency(
    const ComputeModel& c, double m, double n, double k, Dtype dtype,
    std::array<double, 3>* clamped = nullptr);

// Memory-bound efficiency of a kernel of class `kernel` moving `bytes`. The curve is the points
// of that class when the profile has any, else the points without a class; piecewise linear in
// ln(bytes) between the two neighbouring points of the curve, clamped to its first / last point's
// efficiency outside their range. With neither: memory_bound_efficiency. `measured`, when given,
// receives whether the value came from measured points (true) or the scalar (false).
[[nodiscard]] double memory_bound_efficiency(const ComputeModel& c, double bytes,
                                             MemoryKernel kernel = MemoryKernel::kAny,
                                             bool* measured = nullptr);

// Flash attention's measured efficiency (ComputeModel::attention_points) at sequence length
// `seq` and head dimension `head_dim`, from the points of `kernel` with the same mask; nullopt
// when the profile has none for that kernel and mask. Per measured head dimension, the points of
// that head dimension are a curve piecewise linear in ln(seq), clamped to its first / last point
// outside their range; between the two measured head dimensions around `head_dim` the two curves'
// values are interpolated linearly in ln(head_dim), clamped outside the measured head dimensions.
// The same weights give `seq` and ln(batch_heads) of the measured shape the result
// stands for (after clamping), so the caller can compare its own shape's occupancy with the
// benchmark's. REQUIRES: seq, head_dim > 0.
struct AttentionEfficiency {
  double efficiency = 0;
  double seq = 0, batch_heads = 0;  // the measured shape, interpolated
};
[[nodiscard]] std::optional<AttentionEfficiency> measured_attention_efficiency(
    const ComputeModel& c, std::string_view kernel, double seq, double head_dim, bool causal);

}  // namespace shardsim
