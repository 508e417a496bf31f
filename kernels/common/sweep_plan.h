// What a calibration sweep measures: GEMM shapes (transformer layers and their backward
// transposes, plus a square sweep), memory-bound sizes, copy sizes, collective sizes and group
// sizes, and the timing-loop settings. Pure data, the same for every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/timing_loop.h"

namespace shardsim::kernels {

enum class BackendKind { kCpu, kCuda };

// C(m x n) = op(A)(m x k) * op(B)(k x n), row-major semantics. `uses` names the transformer GEMMs
// with this shape, e.g. "h4096_tp2_qkv_fwd" (hidden 4096, TP 2, QKV projection, forward).
struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  bool trans_a = false;
  bool trans_b = false;
  std::vector<std::string> uses;
};

// Transformer layers whose GEMMs the sweep covers. Per (hidden h, TP t), ffn = ffn_ratio * h,
// tokens m = micro_batch * seq, forward GEMMs (m, n, k):
//   qkv (m, 3h/t, h), attn_out (m, h, h/t), mlp_up (m, ffn/t, h), mlp_down (m, h, ffn/t),
//   logits (m, vocab/t, h);
// and for each forward (m, n, k) the backward GEMMs
//   bwd_data   dX = dY W^T: (m, k, n), B transposed;
//   bwd_weight dW = X^T dY: (k, n, m), A transposed.
// Every size is divided by `scale_down` (CPU sweeps) before use.
struct TransformerSweep {
  std::vector<std::int64_t> hidden;
  std::vector<std::int64_t> tp;
  std::int64_t tokens = 4096;
  std::int64_t vocab = 50304;
  std::int64_t ffn_ratio = 4;
  std::int64_t scale_down = 1;
  // Unfused attention's per-head GEMMs (sequence = tokens / scale_down, head_dim not scaled):
  // scores S = Q.K^T (s x s x d, B transposed), values O = P.V (s x d x s) and the backward's
  // P^T.dO / dS^T.Q (s x d x s, A transposed); dP = dO.V^T and dQ = dS.K repeat the first two.
  std::vector<std::int64_t> head_dims;
};

// The layer GEMMs above, shapes with identical (m, n, k, trans_a, trans_b) merged (their `uses`
// concatenated), in first-seen order.
[[nodiscard]] std::vector<GemmShape> transformer_gemm_shapes(const TransformerSweep& sweep);

struct MemoryShape {
  std::int64_t rows = 0;  // tokens
  std::int64_t cols = 0;  // hidden
};

struct SweepPlan {
  BackendKind backend = BackendKind::kCpu;
  bool quick = false;
  std::vector<std::string> gemm_dtypes;  // fp32, tf32, fp16, bf16, fp8 (device permitting)
  std::vector<GemmShape> gemm_shapes;
  std::vector<MemoryShape> memory_shapes;
  std::vector<std::int64_t> copy_bytes;
  std::vector<std::int64_t> collective_bytes;  // nccl-tests size S
  int launches_per_run = 256;                  // empty kernels per launch-benchmark run
  LoopConfig loop;
};

[[nodiscard]] SweepPlan make_sweep_plan(BackendKind backend, bool quick);

// Group sizes for collectives in a world of `world` ranks: 2, 4, 8, ... up to world, plus world
// itself when it is not a power of two. Empty for world < 2.
[[nodiscard]] std::vector<int> collective_group_sizes(int world);

// Geometric sizes lo, lo*factor, ... <= hi.
[[nodiscard]] std::vector<std::int64_t> geometric(std::int64_t lo, std::int64_t hi,
                                                  std::int64_t factor);

}  // namespace shardsim::kernels
