// Compute cost models: pure functions of (op shape, hardware profile) -> seconds. No I/O, no state.
// Every model is listed with a one-line description in cost_models() for docs and --help.
//
// The roofline of one kernel (all rates from GpuProfile, efficiencies from its ComputeModel):
//   compute = flops / (peak(dtype) * efficiency), memory = bytes / (hbm * memory_bound_efficiency)
//   seconds = max(compute, memory) + L              (L = launch_overhead_s; a closed-form price)
//   seconds = max(compute, memory, L)               (priced from a back-to-back measured table)
// memory_bound_efficiency is the profile's scalar, or its table over bytes moved
// (simulator/hardware/measured_efficiency.h). With compute.kind "measured", GEMM efficiency comes
// from the measured table of the dtype instead of gemm_efficiency() (same header); dtypes with
// no measured point keep the closed form. A kernel with FLOPs is priced from a measured table
// when its rate comes from one (GEMM points or attention points, at a measured point or
// interpolated, clamped or scaled from one; flash attention falling back to the GEMM points
// too); a streaming kernel when its bytes take a memory-bound curve (its class's or the generic
// one). Such tables are timed back to back unless the profile says otherwise
// (compute.*_points_timing), so their times already hold the gap between kernels; L, the empty
// kernel's back-to-back time, is the least any kernel takes. A table marked "kernel_only" (a
// profiler's kernel durations) is priced like the closed form, with L added.
// A kernel with no work (zero FLOPs and zero bytes, or a zero GEMM dimension) costs 0 s.
// REQUIRES: gpu.peak.fp16 > 0 and gpu.hbm_bytes_per_second > 0 (read_gpu_profile enforces both);
// without them a non-empty kernel costs +infinity seconds, never NaN.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "simulator/core/cross_entropy.h"
#include "simulator/core/dtype.h"
#include "simulator/hardware/hardware.h"
#include "simulator/model/ops.h"

namespace shardsim {

struct OpCost {
  double seconds = 0;
  double flops = 0;  // floating-point operations executed
  double bytes = 0;  // bytes moved to/from HBM (roofline's memory side)
};

// Fraction of the dense peak one GEMM shape reaches; total() is their product.
struct GemmEfficiency {
  double peak = 0;          // gemm_peak_efficiency: large aligned GEMMs
  double quantization = 0;  // useful m*n*batch over output tiles padded to whole waves, in (0, 1]
  double k_depth = 0;       // k / (k + gemm_k_half): short reductions amortise tile set-up poorly
  double alignment = 0;     // 1, or gemm_misaligned_efficiency when a dimension breaks 16 B
  [[nodiscard]] double total() const { return peak * quantization * k_depth * alignment; }
};

// Efficiency of [m x k] . [k x n] repeated `batch` times in `dtype` (batch entries share waves):
//   tiles        = ceil(m / tile_m) * ceil(n / tile_n) * batch
//   waves        = ceil(tiles / sm_count)
//   quantization = m * n * batch / (waves * sm_count * tile_m * tile_n)
//   k_depth      = k / (k + gemm_k_half)                        (-> 1 for k >> gemm_k_half)
//   alignment    = gemm_misaligned_efficiency if any of m, n, k times dtype_bytes(dtype) is not a
//                  multiple of 16 bytes (tensor-core operand alignment), else 1. Every dimension is
//                  checked because the backward GEMMs make each one a leading dimension.
// REQUIRES: m, n, k, batch > 0.
[[nodiscard]] GemmEfficiency gemm_efficiency(double m, double n, double k, double batch,
                                             Dtype dtype, const GpuProfile& gpu);

// Peak FLOP/s a GEMM in `dtype` runs against: fp8 at the fp8 peak (bf16 without fp8 tensor
// cores), fp16/bf16 at their peaks, fp32 at the FP32 (CUDA-core) peak, tf32 at the TF32
// tensor-core peak (the FP32 peak on a GPU without TF32). A zero peak (a GPU without that format,
// e.g. bf16 on V100) falls back to the fp16 peak.
[[nodiscard]] double gemm_peak_flops(Dtype dtype, const GpuProfile& gpu);

// The dtype a training run's GEMMs (flash attention's included) compute in: its precision,
// except that fp32 runs with training.tf32 (the default) multiply on TF32 tensor cores where the
// GPU has them (`peak.tf32` > 0; else as fp32: the FP32 peak and measured table). PyTorch's
// matmul default is TF32 off (torch.backends.cuda.matmul.allow_tf32 = False); NVIDIA's PyTorch
// containers turn it on (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1).
[[nodiscard]] constexpr Dtype gemm_dtype(Dtype precision, bool tf32, const PeakFlops& peak) {
  return precision == Dtype::kFp32 && tf32 && peak.tf32 > 0 ? Dtype::kTf32 : precision;
}

// One GEMM [m x k] . [k x n], repeated `batch` times, in `dtype`:
//   flops = 2 * m * n * k * batch
//   bytes = (m*k + k*n) * batch * dtype_bytes + m*n * batch * out_bytes, where out_bytes is
//           dtype_bytes except for fp8, whose GEMMs write bf16 (2 B) as Transformer Engine does
//   time  = max(flops / (gemm_peak_flops * gemm_efficiency.total()), bytes / (hbm * mem_eff))
//           + launch overhead; with a measured table timed back to back max(those two, launch
//           overhead).
// A zero dimension costs 0 s.
[[nodiscard]] OpCost gemm_cost(double m, double n, double k, double batch, Dtype dtype,
                               const GpuProfile& gpu);

// A streaming (memory-bound) kernel of class `kernel` moving `bytes`:
//   bytes / (hbm * memory_bound_efficiency(bytes, kernel)) + launch overhead; on measured points,
//   max(bytes / (hbm * efficiency), launch overhead); 0 bytes costs 0 s.
[[nodiscard]] OpCost memory_bound_cost(double bytes, const GpuProfile& gpu,
                                       MemoryKernel kernel = MemoryKernel::kAny);

// How the step's parallel set-up shapes one op on one rank.
struct OpContext {
  int tp = 1;
  bool sp = false;
  Dtype precision = Dtype::kBf16;  // training precision: element bytes of memory-bound ops
  bool tf32 = true;                // fp32 GEMMs on TF32 tensor cores (training.tf32; gemm_dtype)
  // Causal language models: fused attention skips the masked half of the score tiles, so its
  // time covers half the FLOPs (the FLOPs reported stay the full, unmasked count: the Megatron
  // convention for MFU). Unfused attention computes the masked scores, so it is unaffected.
  bool causal = true;
  // The fused-attention implementation whose measured points cost flash attention
  // (training.attention_kernel; the string outlives the context).
  std::string_view attention_kernel = "flash-attention-2";
  // How the loss over the vocabulary is computed (training.cross_entropy, or kStreaming with
  // effects.cross_entropy_traffic off): the cross_entropy op's bytes (core/cross_entropy.h).
  CrossEntropyKernel cross_entropy = CrossEntropyKernel::kVocabParallel;
};

// Cost of `op` (one micro-batch, unsharded shape from model/ops.h) on one TP rank in `pass`.
// TP splits (TpSplit): kColumn n/tp (memory-bound ops: elements/tp), kRow k/tp (memory-bound
// ops unchanged: the vocabulary-parallel embedding writes a full-width partial output),
// kHeads batch/tp and elements/tp, kSequence elements/tp only under sequence parallelism,
// kNone unchanged.
// Weight GEMMs (kGemm, kExpertGemm; C = X.W):
//   forward         gemm(m, n, k)      C[m x n] = X[m x k] . W[k x n]
//   backward-input  gemm(m, k, n)      dX = dC . W^T   (same FLOPs as forward)
//   backward-weight gemm(k, n, m)      dW = X^T . dC   (same FLOPs as forward)
// Attention bmms (kAttentionScore S = Q.K^T, kAttentionValue O = P.V; no weights): backward-input
// runs both operand gradients, gemm(m, k, n) + gemm(k, n, m); backward-weight is empty.
// Flash attention (m = s_local, n = s_full or, on a windowed layer, windowed_attention_keys
// (model/ops.h), k = head_dim, batch = heads * micro_batch):
//   forward flops = 4 * m * n * k * batch (Q.K^T and P.V; causal masking NOT halved, matching the
//   unfused ops and the usual MFU convention), bytes = Q, K, V read + O written once
//   (elements + m*k*batch, activation dtype); backward-input 2.5x the forward FLOPs (it
//   recomputes the scores) and 2x the bytes; backward-weight is empty. The rate: in fp16/bf16 with
//   the profile's measured attention_points for the mask, the measured forward + backward
//   efficiency at (n, k) (measured_efficiency.h) times min(1, fill / measured fill), fill = the
//   share of SMs busy over the call's waves of one block per 128 queries per (sample, head);
//   otherwise the efficiency of its score GEMM (m, n, k, batch).
// Attention (bmm and flash) runs in bf16 under fp8 training (fp8 attention is opt-in in
// Transformer Engine).
// Memory-bound ops (norms, activation functions, softmax, dropout, router, embedding):
//   forward bytes = elements * activation bytes (fp32 training 4, else 2) * 2 (read + write),
//   backward-input twice the forward bytes, backward-weight empty (norm weight gradients are
//   reduced inside the backward kernel); at the efficiency of the op's kernel class (Op::kernel).
// The loss (cross-entropy over the rank's logits): elements * the bytes per logit of the context's
//   cross-entropy implementation, forward and backward-input (core/cross_entropy.h; Megatron's
//   vocabulary-parallel one moves 38 + 14 B per 16-bit logit); the bytes of kernels that evaluate
//   an exponential at the softmax class's efficiency, the rest at the generic one.
// Empty work costs 0 s (no launch overhead).
[[nodiscard]] OpCost op_cost(const Op& op, Pass pass, const OpContext& ctx, const GpuProfile& gpu);

// Optimizer step over `params` local parameters on the GPU, memory-bound:
//   bytes = params * bytes_per_param (the caller sums the reads and writes of the fp32 master
//   copy and moments, the gradient and the low-precision parameters); one fused kernel.
// flops is left 0: the update's arithmetic is negligible next to its traffic. `kernel` is its
// class (kAdam for Adam/AdamW) for profiles with per-kernel memory-bound tables.
[[nodiscard]] OpCost optimizer_step_cost(double params, double bytes_per_param, MemoryKernel kernel,
                                         const GpuProfile& gpu);

struct CostModelInfo {
  std::string name;
  std::string description;
};
// Every cost model with a one-line description (printed by docs and --help).
[[nodiscard]] std::vector<CostModelInfo> cost_models();

}  // namespace shardsim
