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

// Reads entry (i, j) of the computed C (m x n) as float, wherever the backend keeps it.
using GemmOutputAt = std::function<float(std::int64_t i, std::int64_t j)>;

// Checks the four corners and `samples` hashed positions of C: |c - ref| <= rtol * max(|ref|, 1).
[[nodiscard]] Verification check_gemm(const GemmShape& shape, const GemmInputs& in,
                                      const GemmOutputAt& c_at, double rtol, int samples = 64);

}  // namespace shardsim::kernels
