// Compute cost models (contracts and formulas in compute.h). Each step's formula is written in a
// comment above the line that computes it.
#include "simulator/cost/compute.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "simulator/hardware/measured_efficiency.h"

namespace shardsim {
namespace {

constexpr double kAlignmentBytes = 16;       // tensor-core operands: 16-byte aligned dimensions
constexpr double kFlashBackwardFlops = 2.5;  // FlashAttention-2 backward: 2.5x forward FLOPs
constexpr double kBackwardBytes = 2;         // backward kernels read and write twice the tensors

// x / rate with x = 0 -> 0 (no NaN) and rate <= 0 -> +infinity (REQUIRES violated).
double divide(double x, double rate) {
  if (x <= 0) return 0;
  return rate > 0 ? x / rate : std::numeric_limits<double>::infinity();
}

// Whether a measured table's times hold the launch gap (ComputeModel's *_points_timing).
bool timed_back_to_back(const std::string& timing) {
  return timing != "kernel_only";
}

// The roofline of one kernel; empty work costs 0 s. `rate_measured` says the FLOP rate comes from
// a measured table timed back to back (GEMM or attention points, interpolated, clamped or scaled);
// a kernel-only table (a profiler's kernel durations) is priced like the closed form. What prices a
// kernel is its own kind of measurement: a kernel with FLOPs its GEMM or attention table, a
// streaming kernel (no FLOPs) its memory-bound curve. A kernel so priced takes
//   seconds = max(compute, memory, launch)
// and any other the closed form's max(compute, memory) + launch.
// A measured table's times were taken back to back (CUDA events or a steady clock around a loop
// of launches), so the gap between one kernel and the next is already in them (found 2026-11-28:
// on the H100 sweep's shapes up to 4,096 the preset's bf16 GEMMs came out 13 % above measured in
// the median, all of it an added launch). The memory side of a measured GEMM is only a bound on
// it (its bytes at the profile's streaming rate, itself fitted from back-to-back kernels on a
// calibrated profile), so it adds no launch either. One launch gap is the least a kernel takes:
// calibrate measures launch_overhead_s as the back-to-back time of an empty kernel. The floor
// binds where a lookup reaches a kernel far smaller than any measured one (a table's efficiency
// clamped or scaled down to a 64-wide attention GEMM, a memory-bound curve below its first
// point), which would otherwise run in a fraction of a launch; it is no estimate of such a
// kernel's time (the H100 sweep's smallest GEMMs took 8.6-12 us), only what no kernel beats.
// Which rule applies depends on the profile's tables, not on which side wins, so the time is
// continuous and monotone in both rates (found by review, 2026-11-28: letting the winning side
// decide made a router backward 11.5 -> 15.3 us for a 2 % faster table).
OpCost roofline(double flops, double flop_rate, double bytes, const GpuProfile& gpu,
                MemoryKernel kernel = MemoryKernel::kAny, bool rate_measured = false) {
  if (flops <= 0 && bytes <= 0) return {};
  const double launch_s = gpu.compute.launch_overhead_s;
  const double compute_s = divide(flops, flop_rate);
  // memory time = bytes / (hbm * memory_bound_efficiency(bytes, kernel)): the scalar, or the
  // measured table over bytes moved (of the kernel's class when the profile has one;
  // measured_efficiency.h)
  bool bytes_measured = false;
  const double memory_s =
      divide(bytes, gpu.hbm_bytes_per_second *
                        memory_bound_efficiency(gpu.compute, bytes, kernel, &bytes_measured));
  const bool measured =
      flops > 0 ? rate_measured
                : bytes_measured && timed_back_to_back(gpu.compute.memory_bound_points_timing);
  const double seconds = measured ? std::max({compute_s, memory_s, launch_s})
                                  : std::max(compute_s, memory_s) + launch_s;
  return {seconds, flops, bytes};
}

// Fraction of the dense peak a GEMM reaches. kind "measured" with points for the dtype: the
// measured table at (m * batch, n, k) (batch entries share waves, so they count as rows). Outside
// the table's range the lookup clamps to its boundary, which would give a GEMM far smaller than any
// measured one (k = 128 of a head, n = 384 of QKV at TP 8) the efficiency of the smallest measured
// shape; the documented fallback there is the boundary's measured efficiency times the roofline
// closed form's ratio between the GEMM and the boundary shape (tile and wave quantisation, short
// k, alignment) when that ratio is below 1, so the closed form never raises a measured value.
// Otherwise (kind "roofline", or no points for the dtype) the closed form
// gemm_efficiency().total().
// `measured` receives whether a measured table timed back to back gave the value (a kernel-only
// table gives the value but not its launch gap: false).
double gemm_total_efficiency(double m, double n, double k, double batch, Dtype dtype,
                             const GpuProfile& gpu, bool& measured) {
  measured = false;
  if (gpu.compute.kind == "measured") {
    std::array<double, 3> c{};
    if (const auto e = measured_gemm_efficiency(gpu.compute, m * batch, n, k, dtype, &c)) {
      measured = timed_back_to_back(gpu.compute.gemm_points_timing);
      if (c[0] == m * batch && c[1] == n && c[2] == k) return *e;
      const double ratio = gemm_efficiency(m * batch, n, k, 1, dtype, gpu).total() /
                           gemm_efficiency(c[0], c[1], c[2], 1, dtype, gpu).total();
      return *e * std::min(1.0, ratio);
    }
  }
  return gemm_efficiency(m, n, k, batch, dtype, gpu).total();
}

OpCost operator+(const OpCost& a, const OpCost& b) {
  return {a.seconds + b.seconds, a.flops + b.flops, a.bytes + b.bytes};
}

// dim * bytes is not a whole multiple of 16 bytes. GEMM dimensions are whole numbers below 2^53
// and element sizes are 1, 2 or 4 bytes, so below 2^62 the product is an exact integer and an
// integer remainder gives fmod's answer without its cost; anything else (fractions, huge values)
// takes fmod.
bool misaligned(double dim, double bytes_per_element) {
  const double x = dim * bytes_per_element;
  if (x >= 0 && x < 0x1p62 && x == double(std::int64_t(x)))
    return std::int64_t(x) % std::int64_t(kAlignmentBytes) != 0;
  return std::fmod(x, kAlignmentBytes) != 0;
}

// Attention runs in bf16 under fp8 training; otherwise in the training precision.
Dtype attention_dtype(Dtype precision) {
  return precision == Dtype::kFp8 ? Dtype::kBf16 : precision;
}

// The op's per-rank work after tensor parallelism (see op_cost in compute.h).
struct LocalShape {
  double m, n, k, batch, elements;
  double value_dim;  // fused attention's value head width (Op::value_dim; 0 = k)
};

LocalShape split_for_tp(const Op& op, const OpContext& ctx) {
  const double tp = std::max(1, ctx.tp);
  LocalShape s{op.m, op.n, op.k, op.batch, op.elements, op.value_dim > 0 ? op.value_dim : op.k};
  switch (op.split) {
    case TpSplit::kColumn:  // output features (and the matching activations) split
      s.n /= tp;
      s.elements /= tp;
      break;
    case TpSplit::kRow:  // reduction split; row-parallel outputs stay full width
      s.k /= tp;
      break;
    case TpSplit::kHeads:
      s.batch /= tp;
      s.elements /= tp;
      break;
    case TpSplit::kSequence:  // residual-stream tensors are split only by sequence parallelism
      if (ctx.sp) s.elements /= tp;
      break;
    case TpSplit::kNone:
      break;
  }
  return s;
}

// Weight GEMM C = X.W: forward (m, n, k), dX = dC.W^T (m, k, n), dW = X^T.dC (k, n, m).
OpCost weight_gemm(const LocalShape& s, Pass pass, Dtype dtype, const GpuProfile& gpu) {
  switch (pass) {
    case Pass::kForward:
      return gemm_cost(s.m, s.n, s.k, s.batch, dtype, gpu);
    case Pass::kBackwardInput:
      return gemm_cost(s.m, s.k, s.n, s.batch, dtype, gpu);
    case Pass::kBackwardWeight:
      return gemm_cost(s.k, s.n, s.m, s.batch, dtype, gpu);
  }
  return {};
}

// Attention bmm C = A.B without weights: both operand gradients belong to backward-input.
OpCost attention_bmm(const LocalShape& s, Pass pass, Dtype dtype, const GpuProfile& gpu) {
  switch (pass) {
    case Pass::kForward:
      return gemm_cost(s.m, s.n, s.k, s.batch, dtype, gpu);
    case Pass::kBackwardInput:  // dA = dC.B^T (m, k, n) and dB = A^T.dC (k, n, m)
      return gemm_cost(s.m, s.k, s.n, s.batch, dtype, gpu) +
             gemm_cost(s.k, s.n, s.m, s.batch, dtype, gpu);
    case Pass::kBackwardWeight:
      return {};
  }
  return {};
}

// Share of the GPU's SMs a fused-attention call keeps busy over its waves: one thread block per
// kFlashQueryTile queries of each (sample, head) (FlashAttention-2's forward grid for head
// dimensions up to 128), waves of sm_count blocks:
//   blocks = ceil(queries / tile) * batch_heads; fill = blocks / (ceil(blocks / sms) * sms).
constexpr double kFlashQueryTile = 128;
double flash_fill(double queries, double batch_heads, const GpuProfile& gpu) {
  const double sms = std::max(1, gpu.compute.sm_count);
  const double blocks = std::ceil(queries / kFlashQueryTile) * std::max(1.0, batch_heads);
  // 1e-9: an interpolated batch_heads (exp of a log) may land an ulp above a whole wave
  return blocks / (std::ceil(blocks / sms - 1e-9) * sms);
}

// The FLOP/s fused attention executes at. With measured attention points of the context's kernel
// for its mask (fp16 and bf16 only): the measured efficiency at (s_full, head_dim) times the ratio
// of this call's SM fill to the measured call's, capped at 1 (a call with fewer blocks than the
// benchmark's runs part of its last wave idle; the benchmark's own occupancy is already in its
// rate). Otherwise the efficiency of the score GEMM's shape (gemm_total_efficiency). `measured`
// receives whether a measured table timed back to back (attention or GEMM points) gave the rate.
double flash_attention_rate(const LocalShape& s, Dtype dtype, const OpContext& ctx,
                            const GpuProfile& gpu, bool& measured) {
  const double peak = gemm_peak_flops(dtype, gpu);
  if (dtype == Dtype::kFp16 || dtype == Dtype::kBf16)
    if (const auto a = measured_attention_efficiency(gpu.compute, ctx.attention_kernel, s.n, s.k,
                                                     ctx.causal)) {
      const double fill = flash_fill(s.m, s.batch, gpu) / flash_fill(a->seq, a->batch_heads, gpu);
      measured = timed_back_to_back(gpu.compute.attention_points_timing);
      return peak * a->efficiency * std::min(1.0, fill);
    }
  return peak * gemm_total_efficiency(s.m, s.n, s.k, s.batch, dtype, gpu, measured);
}

// Fused attention: m = s_local, n = s_full, k = head_dim, batch = heads * micro_batch (per rank).
OpCost flash_attention(const LocalShape& s, Pass pass, Dtype dtype, const OpContext& ctx,
                       const GpuProfile& gpu) {
  if (pass == Pass::kBackwardWeight || s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return {};
  // flops = 2 * s_local * s_full * (qk_dim + v_dim) * heads * micro_batch (Q.K^T and P.V, no
  // causal halving): 4 * s_local * s_full * head_dim when both widths are the head dimension;
  // MLA's differ (DeepSeek-V3: 192 and 128; found by review, 2026-11-27: P.V was counted at 192).
  double flops = 2 * s.m * s.n * (s.k + s.value_dim) * s.batch;
  // bytes = (Q + K + V read, O = s_local * v_dim * batch written) * activation bytes
  double bytes = (s.elements + s.m * s.value_dim * s.batch) * activation_bytes(dtype);
  if (pass == Pass::kBackwardInput) {
    flops *= kFlashBackwardFlops;
    bytes *= kBackwardBytes;
  }
  bool measured = false;
  const double rate = flash_attention_rate(s, dtype, ctx, gpu, measured);
  // Causal masking: the kernel skips the masked half of the tiles; the count stays full.
  OpCost cost =
      roofline(ctx.causal ? flops / 2 : flops, rate, bytes, gpu, MemoryKernel::kAny, measured);
  cost.flops = flops;
  return cost;
}

// The kernel class whose measured curve costs an op's backward pass. Softmax's (and the loss's)
// backward, dS = P (dP - rowsum(P dP)), evaluates no exponential: it streams P and dP like any
// elementwise kernel, so it takes the unclassed curve (or the scalar), not the softmax curve,
// which measures the forward's exp (on a CPU, exp-bound at about a fifth of the memory rate).
// The other classes' backward passes do what their forward does: norms stream, GeLU and SwiGLU
// evaluate their exp again, dropout regenerates its mask.
MemoryKernel backward_kernel(MemoryKernel forward) {
  return forward == MemoryKernel::kSoftmax ? MemoryKernel::kAny : forward;
}

// Streaming op: forward bytes = elements * activation bytes * 2 (read + write); backward-input
// twice that; backward-weight nothing.
OpCost memory_op(const LocalShape& s, Pass pass, Dtype precision, MemoryKernel kernel,
                 const GpuProfile& gpu) {
  if (pass == Pass::kBackwardWeight) return {};
  const double forward_bytes = s.elements * activation_bytes(precision) * 2;
  if (pass == Pass::kForward) return memory_bound_cost(forward_bytes, gpu, kernel);
  return memory_bound_cost(kBackwardBytes * forward_bytes, gpu, backward_kernel(kernel));
}

// The input embedding: the lookup streams the rows it gathers (memory_op). Its backward is
// PyTorch's dense embedding backward, which first fills the gradient of the rank's whole table
// with zeros (embedding_dense_backward_cuda: at::zeros({num_weights, dim}), a kernel of its own:
// the op's n x k, vocabulary rows x hidden over TP, elements at 2 B in 16-bit training) and then
// sums each token's gradient row into it (memory_op's backward bytes). In the backward-input
// pass, with the lookup's backward. A learned position table's own fill (sequence x hidden) is
// not counted.
OpCost embedding_op(const LocalShape& s, Pass pass, Dtype precision, MemoryKernel kernel,
                    const GpuProfile& gpu) {
  const OpCost lookup = memory_op(s, pass, precision, kernel, gpu);
  if (pass != Pass::kBackwardInput || s.n * s.k <= 0) return lookup;
  const OpCost fill =
      memory_bound_cost(s.n * s.k * activation_bytes(precision), gpu, MemoryKernel::kAny);
  return {lookup.seconds + fill.seconds, lookup.flops + fill.flops, lookup.bytes + fill.bytes};
}

// The loss over the vocabulary: elements = the rank's logits (tokens x vocabulary / TP), bytes per
// element and pass from the stack's cross-entropy implementation (core/cross_entropy.h): the bytes
// of kernels that evaluate an exponential at the op's class (softmax), the rest at the generic
// curve, each share priced as one kernel (roofline's launch or launch floor; Megatron's loss runs
// six kernels forward, so its launches are undercounted).
OpCost cross_entropy_op(const LocalShape& s, Pass pass, const OpContext& ctx, MemoryKernel kernel,
                        const GpuProfile& gpu) {
  if (pass == Pass::kBackwardWeight) return {};
  const CrossEntropyBytes b =
      cross_entropy_bytes(ctx.cross_entropy, activation_bytes(ctx.precision));
  const bool fwd = pass == Pass::kForward;
  const OpCost e =
      memory_bound_cost(s.elements * (fwd ? b.forward_exp : b.backward_exp), gpu, kernel);
  const OpCost o = memory_bound_cost(s.elements * (fwd ? b.forward_other : b.backward_other), gpu,
                                     MemoryKernel::kAny);
  return {e.seconds + o.seconds, e.flops + o.flops, e.bytes + o.bytes};
}

}  // namespace

double gemm_peak_flops(Dtype dtype, const GpuProfile& gpu) {
  const PeakFlops& p = gpu.peak;
  const double peak = p.for_dtype(dtype);
  return peak > 0 ? peak : p.fp16;
}

GemmEfficiency gemm_efficiency(double m, double n, double k, double batch, Dtype dtype,
                               const GpuProfile& gpu) {
  const ComputeModel& c = gpu.compute;
  GemmEfficiency e;
  e.peak = c.gemm_peak_efficiency;
  // tiles = ceil(m / tile_m) * ceil(n / tile_n) * batch; waves = ceil(tiles / sm_count)
  const double tiles = std::ceil(m / c.gemm_tile_m) * std::ceil(n / c.gemm_tile_n) * batch;
  const double slots = double(std::max(1, c.sm_count));
  const double waves = std::max(1.0, std::ceil(tiles / slots));
  // quantization = useful m*n*batch / (waves * sm_count * tile_m * tile_n)
  e.quantization = std::min(1.0, m * n * batch / (waves * slots * c.gemm_tile_m * c.gemm_tile_n));
  // k_depth = k / (k + k_half)
  e.k_depth = k / (k + c.gemm_k_half);
  const double b = dtype_bytes(dtype);
  const bool bad = misaligned(m, b) || misaligned(n, b) || misaligned(k, b);
  e.alignment = bad ? c.gemm_misaligned_efficiency : 1.0;
  return e;
}

OpCost gemm_cost(double m, double n, double k, double batch, Dtype dtype, const GpuProfile& gpu) {
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0) return {};
  // A GPU without FP8 tensor cores runs the GEMMs of an fp8 run as 16-bit GEMMs: the same
  // bytes, peak and measured table as bf16 (found by review: fp8 on A100 took the best-shape
  // roofline and came out faster than bf16).
  if (dtype == Dtype::kFp8 && gpu.peak.fp8 <= 0) dtype = Dtype::kBf16;
  // A GPU without TF32 tensor cores runs them as fp32 GEMMs: the fp32 peak and measured table.
  if (dtype == Dtype::kTf32 && gpu.peak.tf32 <= 0) dtype = Dtype::kFp32;
  // flops = 2 * m * n * k * batch
  const double flops = 2 * m * n * k * batch;
  // bytes = (A + B) in dtype + C in dtype (bf16 for fp8 GEMMs)
  const double in_bytes = dtype_bytes(dtype);
  const double out_bytes = dtype == Dtype::kFp8 ? 2 : in_bytes;
  const double bytes = (m * k + k * n) * batch * in_bytes + m * n * batch * out_bytes;
  // rate = peak(dtype) * efficiency: roofline peak_eff * quantization * k_depth * alignment, or
  // the measured table (gemm_total_efficiency)
  bool measured = false;
  const double rate =
      gemm_peak_flops(dtype, gpu) * gemm_total_efficiency(m, n, k, batch, dtype, gpu, measured);
  return roofline(flops, rate, bytes, gpu, MemoryKernel::kAny, measured);
}

OpCost memory_bound_cost(double bytes, const GpuProfile& gpu, MemoryKernel kernel) {
  return roofline(0, 0, bytes, gpu, kernel);
}

OpCost op_cost(const Op& op, Pass pass, const OpContext& ctx, const GpuProfile& gpu) {
  const LocalShape s = split_for_tp(op, ctx);
  // gemm_dtype falls back to fp32 on a GPU without TF32 for flash attention too (found by
  // review, 2026-11-28: it looked up a "tf32" table such a profile never has, and fell back to
  // the roofline instead of the measured fp32 table).
  const Dtype gemm = op.outside_fp8 && ctx.precision == Dtype::kFp8
                         ? gemm_dtype(Dtype::kBf16, ctx.tf32, gpu.peak)
                         : gemm_dtype(ctx.precision, ctx.tf32, gpu.peak);
  switch (op.kind) {
    case OpKind::kGemm:
    case OpKind::kExpertGemm:  // grouped expert GEMM costed as one GEMM over all routed rows
      return weight_gemm(s, pass, gemm, gpu);
    case OpKind::kAttentionScore:
    case OpKind::kAttentionValue:
      return attention_bmm(s, pass, attention_dtype(gemm), gpu);
    case OpKind::kFlashAttention:
      return flash_attention(s, pass, attention_dtype(gemm), ctx, gpu);
    case OpKind::kLoss:
      return cross_entropy_op(s, pass, ctx, op.kernel, gpu);
    case OpKind::kSoftmax:
    case OpKind::kNorm:
    case OpKind::kActivationFn:
    case OpKind::kDropout:
    case OpKind::kEmbedding:
      return embedding_op(s, pass, ctx.precision, op.kernel, gpu);
    case OpKind::kRouter:
    case OpKind::kElementwise:
      return memory_op(s, pass, ctx.precision, op.kernel, gpu);
  }
  return {};
}

OpCost optimizer_step_cost(double params, double bytes_per_param, MemoryKernel kernel,
                           const GpuProfile& gpu) {
  // bytes = params * bytes_per_param, streamed once
  return memory_bound_cost(params * bytes_per_param, gpu, kernel);
}

}  // namespace shardsim
