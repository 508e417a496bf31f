// The memory-bound kernels of a transformer step, defined once for both backends: their tensors,
// bytes moved, deterministic inputs and a double-precision reference. Every tensor is fp32, rows x
// cols (tokens x hidden), row-major.
//
//   layernorm         y = (x - mean_row) / sqrt(var_row + eps) * gamma + beta
//   rmsnorm           y = x / sqrt(mean_row(x^2) + eps) * gamma
//   softmax           y = exp(x - max_row) / sum_row exp(x - max_row)
//   gelu              y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   swiglu            y = silu(gate) * up, silu(a) = a / (1 + exp(-a))
//   dropout_residual  y = residual + (keep_i ? x / (1 - p) : 0), keep_i from hash.h
//   adam              m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
//                     p -= lr * (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)   (t = 1, in place)
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/common/descriptor.h"
#include "kernels/common/sweep_plan.h"

namespace shardsim::kernels {

enum class MemOp { kLayernorm, kRmsnorm, kSoftmax, kGelu, kSwiglu, kDropoutResidual, kAdam };
inline constexpr MemOp kAllMemOps[] = {MemOp::kLayernorm, MemOp::kRmsnorm, MemOp::kSoftmax,
                                       MemOp::kGelu,      MemOp::kSwiglu,  MemOp::kDropoutResidual,
                                       MemOp::kAdam};

struct MemOpConstants {
  float eps = 1e-5f;  // layernorm / rmsnorm
  float dropout_p = 0.1f;
  std::uint64_t dropout_seed = 1234;
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float adam_eps = 1e-8f;
};

[[nodiscard]] std::string_view mem_op_name(MemOp op);

// Bytes read plus written by one run (fp32):
//   layernorm 4(2 rows cols + 2 cols); rmsnorm 4(2 rows cols + cols); softmax, gelu 4 * 2 n;
//   swiglu, dropout_residual 4 * 3 n; adam 4 * 7 n (reads p, g, m, v; writes p, m, v); n = rows
//   cols.
[[nodiscard]] double mem_op_bytes(MemOp op, MemoryShape shape);

// The descriptor of `op` on `shape` (kind, name, params, bytes moved) without its setup, which
// each backend adds: both backends name and count the same work.
[[nodiscard]] Descriptor memory_bound_descriptor(MemOp op, MemoryShape shape);

// Host data for one op: inputs in the order of the kernel's arguments and the reference output.
//   layernorm {x, gamma, beta}; rmsnorm {x, gamma}; softmax, gelu {x}; swiglu {gate, up};
//   dropout_residual {x, residual}; adam {param, grad, m, v} (updated in place).
// `expected` holds y (rows x cols) or, for adam, the updated {param, m, v} concatenated.
struct MemOpData {
  std::vector<std::vector<float>> inputs;
  std::vector<double> expected;
};
[[nodiscard]] MemOpData make_mem_op_data(MemOp op, MemoryShape shape, const MemOpConstants& c);

// Compares `got` with `expected` elementwise: ok when |got - want| <= rtol |want| + atol for all.
[[nodiscard]] Verification compare(const std::vector<float>& got,
                                   const std::vector<double>& expected, double rtol, double atol);

}  // namespace shardsim::kernels
