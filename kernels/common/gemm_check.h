// GEMM inputs and their verification, shared by both backends. Inputs are multiples of 1/8 in
// [-1, 1] (hash.h), exact in every dtype, so with fp32 accumulation each entry of C is exact up to
// the rounding of the output dtype. Verification recomputes a sample of entries of C as double
// dot products: O(samples * k), cheap at every size, so every GEMM of the sweep is verified.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/common/descriptor.h"
#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels {

// Row-major host copies: A is m x k (k x m when trans_a), B is k x n (n x k when trans_b).
struct GemmInputs {
  std::vector<float> a;
  std::vector<float> b;
};
[[nodiscard]] GemmInputs make_gemm_inputs(const GemmShape& shape);

// The inputs a GEMM is TIMED on, once verify() has checked one run on make_gemm_inputs:
// A(i) = 2 uniform01(i, kTimingSeedA) - 1 and B(i) likewise with kTimingSeedB (hash.h), values in
// [-1, 1) from 24 random bits, far more varied than the eighths (fp32 keeps all of them, the
// 16- and 8-bit types their leading ones). The cuda backend generates the same values on the
// device (device_kernels.h fill_random). A GEMM's speed
// depends on its data: low-entropy inputs toggle fewer bits, draw less power and keep higher
// clocks (Horace He, "Strangely, Matrix Multiplications on GPUs Run Faster When Given
// 'Predictable' Data!", thonking.ai, 2024). Measured on the first GPU run (H200, 2026-11-27):
// bf16 8192^3 854.6 TFLOP/s timed on the eighths against 791.2 with torch.randn inputs, fp16
// 872.7 against 766.7 (scenarios/measurements/calibrate/h200-sxm-2026-11-27/README.md). Timed on
// these values in the second run, bf16 8192^3 gave 784.9 (h200-sxm-2026-11-27-run2/README.md).
inline constexpr std::uint64_t kTimingSeedA = 21;
inline constexpr std::uint64_t kTimingSeedB = 22;
[[nodiscard]] GemmInputs make_timing_inputs(const GemmShape& shape);

// Reads entry (i, j) of the computed C (m x n) as float, wherever the backend keeps it.
using GemmOutputAt = std::function<float(std::int64_t i, std::int64_t j)>;

// Checks the four corners and `samples` hashed positions of C:
//   |c - ref| <= rtol * max(|ref|, 1) + partial_rounding * sum_p |A(i, p) B(p, j)|.
// The second term is for libraries that split k and add the partial sums in the output dtype
// (cuBLASLt's in-place and output-type reduction schemes): each partial's rounding is at most
// the dtype's unit roundoff times its magnitude, and the partials' magnitudes sum to at most the
// products' sum. Rounding the running sum as partials are added can add up to that again per
// partial (p u l1 in the worst case); typical errors are far below u l1. Pass 0 where sums are
// exact (fp32 inputs here) or kept in the compute type; the fp32 items, which share the layout
// code, then check the layouts exactly.
[[nodiscard]] Verification check_gemm(const GemmShape& shape, const GemmInputs& in,
                                      const GemmOutputAt& c_at, double rtol,
                                      double partial_rounding = 0, int samples = 64);

}  // namespace shardsim::kernels
