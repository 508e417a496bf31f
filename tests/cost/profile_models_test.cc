// Profile-selected cost models: compute.kind "measured" (GEMM table), the memory-bound table
// over bytes, and fitted collectives (formulas in simulator/hardware/measured_efficiency.h and
// simulator/cost/collective.h). Round numbers throughout; the derivation precedes each check.
#include <gtest/gtest.h>

#include <array>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "simulator/cost/collective.h"
#include "simulator/cost/compute.h"
#include "simulator/hardware/measured_efficiency.h"

namespace shardsim {
namespace {

// bf16 peak 1e15 FLOP/s, HBM 1e15 B/s (compute-bound for the GEMMs below), no launch overhead.
GpuProfile measured_gpu() {
  GpuProfile g;
  g.peak = {1e14, 0, 1e15, 1e15, 0};
  g.hbm_bytes_per_second = 1e15;
  g.compute.launch_overhead_s = 0;
  g.compute.kind = "measured";
  g.compute.gemm_points = {{"bf16", 1024, 1024, 1024, 0.5}, {"bf16", 4096, 4096, 4096, 0.8}};
  return g;
}

TEST(compute_measured, ExactPointClampAndInterpolation) {
  const ComputeModel c = measured_gpu().compute;
  // A measured shape gives its own efficiency.
  EXPECT_EQ(measured_gemm_efficiency(c, 4096, 4096, 4096, Dtype::kBf16), 0.8);
  // 8192^3 is clamped per axis to the measured range (max 4096): exactly the 4096^3 point.
  EXPECT_EQ(measured_gemm_efficiency(c, 8192, 8192, 8192, Dtype::kBf16), 0.8);
  // 2048^3: x = (11, 11, 11), squared distance 3 to both points -> equal weights ->
  // (0.5 + 0.8) / 2 = 0.65.
  EXPECT_NEAR(*measured_gemm_efficiency(c, 2048, 2048, 2048, Dtype::kBf16), 0.65, 1e-15);
  // (1024, 1024, 4096): x = (10, 10, 12): d^2 = 4 to the first, 8 to the second ->
  // (0.5/4 + 0.8/8) / (1/4 + 1/8) = 0.225 / 0.375 = 0.6.
  EXPECT_NEAR(*measured_gemm_efficiency(c, 1024, 1024, 4096, Dtype::kBf16), 0.6, 1e-15);
  // No fp16 point: no measured value.
  EXPECT_FALSE(measured_gemm_efficiency(c, 1024, 1024, 1024, Dtype::kFp16).has_value());
}

// Ties go by table order: the query 2048^3 has six points at squared distance 1 (one step of
// log2 along each axis), listed in the table with efficiencies 0.1 ... 0.6 so that the
// log2-m order the index keeps differs from the table order. The four nearest are the first four
// of the table: (0.1 + 0.2 + 0.3 + 0.4) / 4 = 0.25, with the index as without it.
TEST(compute_measured, TiesKeepTableOrderWithAndWithoutTheIndex) {
  ComputeModel c;
  c.kind = "measured";
  c.gemm_points = {{"bf16", 4096, 2048, 2048, 0.1}, {"bf16", 2048, 1024, 2048, 0.2},
                   {"bf16", 2048, 2048, 4096, 0.3}, {"bf16", 1024, 2048, 2048, 0.4},
                   {"bf16", 2048, 4096, 2048, 0.5}, {"bf16", 2048, 2048, 1024, 0.6}};
  EXPECT_NEAR(*measured_gemm_efficiency(c, 2048, 2048, 2048, Dtype::kBf16), 0.25, 1e-15);
  index_gemm_points(c);
  EXPECT_NEAR(*measured_gemm_efficiency(c, 2048, 2048, 2048, Dtype::kBf16), 0.25, 1e-15);
}

// The index (GemmPointLogs) is a faster way to the same answer: on a 5 x 5 x 5 grid of two dtypes
// (many equidistant points), every query of a 9 x 9 x 9 grid from half the smallest to twice the
// largest dimension gives bit-identical efficiencies and clamped shapes. A table grown after
// indexing is looked up without the index (the point count no longer matches) and still right.
TEST(compute_measured, IndexedLookupEqualsTheTableScan) {
  ComputeModel plain;
  plain.kind = "measured";
  const double dims[] = {256, 512, 1024, 2048, 4096};
  for (const char* dtype : {"fp16", "bf16"})
    for (double m : dims)
      for (double n : dims)
        for (double k : dims)
          plain.gemm_points.push_back(
              {dtype, m, n, k, 0.05 + 0.9 * std::log2(m * n * k) / 36 - (dtype[0] == 'b') * 0.01});
  ComputeModel indexed = plain;
  index_gemm_points(indexed);
  EXPECT_EQ(indexed, plain);  // derived data: not part of the comparison
  auto same_everywhere = [](const ComputeModel& a, const ComputeModel& b) {
    int checked = 0;
    for (Dtype d : {Dtype::kBf16, Dtype::kFp16})
      for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
          for (int l = 0; l < 9; ++l) {
            const double m = 128 * std::exp2(i * 0.75), n = 128 * std::exp2(j * 0.75),
                         k = 128 * std::exp2(l * 0.75);
            std::array<double, 3> ca{}, cb{};
            const auto ea = measured_gemm_efficiency(a, m, n, k, d, &ca);
            const auto eb = measured_gemm_efficiency(b, m, n, k, d, &cb);
            EXPECT_EQ(ea, eb) << m << " " << n << " " << k;
            EXPECT_EQ(ca, cb);
            ++checked;
          }
    return checked;
  };
  EXPECT_EQ(same_everywhere(indexed, plain), 2 * 729);
  indexed.gemm_points.push_back({"bf16", 8192, 8192, 8192, 0.9});
  plain.gemm_points.push_back({"bf16", 8192, 8192, 8192, 0.9});
  EXPECT_EQ(*measured_gemm_efficiency(indexed, 8192, 8192, 8192, Dtype::kBf16), 0.9);
  same_everywhere(indexed, plain);
}

TEST(compute_measured, GemmCostUsesTheTableAndFallsBack) {
  const GpuProfile g = measured_gpu();
  // 2048^3 bf16: flops 2 * 2048^3 = 17179869184 at 1e15 x 0.65 -> 17179869184 / 6.5e14 s.
  EXPECT_NEAR(gemm_cost(2048, 2048, 2048, 1, Dtype::kBf16, g).seconds, 17179869184 / 6.5e14, 1e-18);
  // batch 4 of 512 x 2048 x 2048 is looked up as m = 2048: the same 0.65.
  EXPECT_NEAR(gemm_cost(512, 2048, 2048, 4, Dtype::kBf16, g).seconds, 17179869184 / 6.5e14, 1e-18);
  // fp16 has no point: the roofline closed form, bit for bit.
  GpuProfile roofline = g;
  roofline.compute.kind = "roofline";
  EXPECT_EQ(gemm_cost(2048, 2048, 2048, 1, Dtype::kFp16, g).seconds,
            gemm_cost(2048, 2048, 2048, 1, Dtype::kFp16, roofline).seconds);
  // kind roofline ignores the points: efficiency = gemm_efficiency(...).total().
  const double closed = gemm_efficiency(2048, 2048, 2048, 1, Dtype::kBf16, roofline).total();
  EXPECT_NEAR(gemm_cost(2048, 2048, 2048, 1, Dtype::kBf16, roofline).seconds,
              17179869184 / (1e15 * closed), 1e-18);
}

TEST(compute_measured, BelowTheTableTheClosedFormsRatioScalesTheBoundary) {
  GpuProfile g = measured_gpu();
  g.compute.gemm_k_half = 64;
  std::array<double, 3> clamped{};
  // (4096, 4096, 128): k is below the table's 1024, clamped to exactly 1024 (the boundary's own
  // value), where the lookup gives (4096, 4096, 1024): d^2 = 8 to the first, 4 to the second ->
  // (0.5/8 + 0.8/4) / (1/8 + 1/4) = 0.7.
  const double boundary =
      *measured_gemm_efficiency(g.compute, 4096, 4096, 128, Dtype::kBf16, &clamped);
  EXPECT_EQ(clamped[0], 4096);
  EXPECT_EQ(clamped[2], 1024);
  EXPECT_NEAR(boundary, 0.7, 1e-15);
  // compute.cc: efficiency = boundary x closed form(128) / closed form(1024); the two shapes differ
  // only in k-depth k/(k + 64): (128/192) / (1024/1088) = 0.708333..., so 0.7 x 0.7083 = 0.49583.
  const double eff = 0.7 * (128.0 / 192.0) / (1024.0 / 1088.0);
  const double flops = 2.0 * 4096 * 4096 * 128;
  EXPECT_NEAR(gemm_cost(4096, 4096, 128, 1, Dtype::kBf16, g).seconds, flops / (1e15 * eff),
              1e-12 * flops / (1e15 * eff));
  // Above the table the closed form would raise the value: it is not applied (no extrapolation
  // upward), 8192^3 keeps the 4096^3 point's 0.8.
  const double big = 2.0 * 8192 * 8192 * 8192;
  EXPECT_NEAR(gemm_cost(8192, 8192, 8192, 1, Dtype::kBf16, g).seconds, big / (1e15 * 0.8),
              1e-12 * big / 8e14);
}

TEST(compute_measured, MemoryBoundTableInLogBytes) {
  GpuProfile g = measured_gpu();
  g.hbm_bytes_per_second = 1e12;
  g.compute.memory_bound_points = {{1e3, 0.2}, {1e6, 0.8}};
  // sqrt(1e3 * 1e6) = 10^4.5 is halfway in ln(bytes): 0.2 + 0.5 x 0.6 = 0.5.
  EXPECT_NEAR(memory_bound_efficiency(g.compute, std::pow(10, 4.5)), 0.5, 1e-12);
  EXPECT_EQ(memory_bound_efficiency(g.compute, 10), 0.2);   // below the range: first point
  EXPECT_EQ(memory_bound_efficiency(g.compute, 1e9), 0.8);  // above: last point
  // 1e6 B at 1e12 B/s x 0.8 = 1.25 us.
  EXPECT_NEAR(memory_bound_cost(1e6, g).seconds, 1.25e-6, 1e-18);
  // Without points: the scalar memory_bound_efficiency (default 0.85).
  g.compute.memory_bound_points.clear();
  EXPECT_EQ(memory_bound_efficiency(g.compute, 1e6), 0.85);
}

TEST(compute_measured, MemoryBoundCurvePerKernelClass) {
  GpuProfile g = measured_gpu();
  g.hbm_bytes_per_second = 1e12;
  // A generic curve and a softmax curve; softmax's points may come after the generic ones.
  g.compute.memory_bound_points = {
      {1e3, 0.2}, {1e6, 0.8}, {1e3, 0.05, "softmax"}, {1e6, 0.1, "softmax"}};
  // softmax at 10^4.5 B: halfway in ln(bytes) between its own points: 0.05 + 0.5 x 0.05 = 0.075.
  EXPECT_NEAR(memory_bound_efficiency(g.compute, std::pow(10, 4.5), MemoryKernel::kSoftmax), 0.075,
              1e-12);
  EXPECT_EQ(memory_bound_efficiency(g.compute, 1e9, MemoryKernel::kSoftmax), 0.1);  // clamped
  // gelu has no points of its own, nor does a kernel without class: the generic curve.
  EXPECT_NEAR(memory_bound_efficiency(g.compute, std::pow(10, 4.5), MemoryKernel::kGelu), 0.5,
              1e-12);
  EXPECT_EQ(memory_bound_efficiency(g.compute, 1e6, MemoryKernel::kAny), 0.8);
  // 1e6 B of softmax at 1e12 B/s x 0.1 = 10 us.
  EXPECT_NEAR(memory_bound_cost(1e6, g, MemoryKernel::kSoftmax).seconds, 1e-5, 1e-18);
  // Only class curves: a kernel without one falls back to the scalar (default 0.85).
  g.compute.memory_bound_points = {{1e3, 0.05, "softmax"}};
  EXPECT_EQ(memory_bound_efficiency(g.compute, 1e6, MemoryKernel::kLayernorm), 0.85);
}

// A time from a measured table was taken back to back, so it already holds the gap between
// kernels. A kernel with FLOPs priced from its GEMM table, or a streaming kernel on its
// memory-bound curve, takes max(compute, memory, L); any other kernel the closed form's
// max(compute, memory) + L (compute.h; L = launch_overhead_s).
TEST(compute_measured, AMeasuredTimeCarriesNoLaunchAndAtLeastOne) {
  GpuProfile g = measured_gpu();  // bf16 points 1024^3 at 0.5, 4096^3 at 0.8; HBM 1e15 B/s
  g.compute.launch_overhead_s = 4e-6;
  // 1024^3 bf16 at its own point: 2 x 1024^3 / (1e15 x 0.5) = 4.295 us of compute, no launch;
  // bytes 3 x 1024^2 x 2 = 6.29 MB at 1e15 x 0.85 (scalar) = 7.4 ns.
  const double t1024 = 2.0 * std::pow(1024.0, 3) / 5e14;
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds, t1024, 1e-18);
  // fp16 has no points: the roofline closed form, which takes the launch.
  const double e16 = gemm_efficiency(1024, 1024, 1024, 1, Dtype::kFp16, g).total();
  const double fp16 = 2.0 * std::pow(1024.0, 3) / (1e15 * e16) + 4e-6;
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kFp16, g).seconds, fp16, 1e-15);
  // A 64^3 GEMM lies below the table: the 1024^3 point's 0.5 scaled by the closed form's ratio
  // (about 0.002) gives about 0.5 us, its bytes (3 x 64^2 x 2 = 24,576 B at 0.85e15 B/s) 29 ps:
  // the kernel takes the floor, one launch, not the fraction of one the table would give it.
  EXPECT_DOUBLE_EQ(gemm_cost(64, 64, 64, 1, Dtype::kBf16, g).seconds, 4e-6);
  // A streaming kernel below its curve's first point: 100 B / (1e15 x 0.2) = 0.5 ps -> the floor;
  // without points, the scalar closed form: 100 B / (1e15 x 0.85) + 4 us.
  g.compute.memory_bound_points = {{1e3, 0.2}, {1e6, 0.8}};
  EXPECT_DOUBLE_EQ(memory_bound_cost(100, g).seconds, 4e-6);
  // The curve does not price a kernel with FLOPs: fp16 1024^3 is still the closed form's.
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kFp16, g).seconds, fp16, 1e-15);
  // HBM at 1e9 B/s: 1e6 B on the curve at 0.8 -> 1e6 / (1e9 x 0.8) = 1.25 ms, no launch; without
  // points, the scalar 0.85 -> 1e6 / 0.85e9 + 4 us.
  g.hbm_bytes_per_second = 1e9;
  EXPECT_NEAR(memory_bound_cost(1e6, g).seconds, 1.25e-3, 1e-15);
  g.compute.memory_bound_points.clear();
  EXPECT_NEAR(memory_bound_cost(1e6, g).seconds, 1e6 / 0.85e9 + 4e-6, 1e-15);
  EXPECT_NEAR(memory_bound_cost(100, g).seconds, 100 / 0.85e9 + 4e-6, 1e-18);
  // A measured GEMM whose bytes outweigh its compute: the memory side, a bound on the measured
  // kernel, sets the time without a launch: 6.29 MB / (1e9 x 0.85) = 7.4 ms >> 4.3 us.
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds,
              3.0 * 1024 * 1024 * 2 / (1e9 * 0.85), 1e-15);
}

// A table timed kernel by kernel (a profiler's durations, compute.*_points_timing "kernel_only")
// holds no launch gap: its kernels are priced like the closed form's, max(compute, memory) + L.
TEST(compute_measured, AKernelOnlyTableAddsTheLaunch) {
  GpuProfile g = measured_gpu();  // bf16 points 1024^3 at 0.5, 4096^3 at 0.8; HBM 1e15 B/s
  g.compute.launch_overhead_s = 4e-6;
  // 1024^3 bf16 at its point: 2 x 1024^3 / 5e14 = 4.295 us; back to back (the default) no launch,
  // kernel-only 4.295 + 4 us.
  const double t1024 = 2.0 * std::pow(1024.0, 3) / 5e14;
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds, t1024, 1e-18);
  g.compute.gemm_points_timing = "back_to_back";  // the same as absent
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds, t1024, 1e-18);
  g.compute.gemm_points_timing = "kernel_only";
  EXPECT_NEAR(gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds, t1024 + 4e-6, 1e-18);
  // Below the table (64^3: about 0.5 us of compute, 29 ps of bytes) no floor: compute + L.
  const double e64 = 0.5 * gemm_efficiency(64, 64, 64, 1, Dtype::kBf16, g).total() /
                     gemm_efficiency(1024, 1024, 1024, 1, Dtype::kBf16, g).total();
  const double t64 = std::max(2.0 * 64 * 64 * 64 / (1e15 * e64), 3.0 * 64 * 64 * 2 / 0.85e15);
  EXPECT_NEAR(gemm_cost(64, 64, 64, 1, Dtype::kBf16, g).seconds, t64 + 4e-6, 1e-15);
  // A streaming kernel on a kernel-only curve: HBM 1e9 B/s, 1e6 B at 0.8 -> 1.25 ms + 4 us; the
  // GEMM table's timing does not touch it (back to back: 1.25 ms).
  g.hbm_bytes_per_second = 1e9;
  g.compute.memory_bound_points = {{1e3, 0.2}, {1e6, 0.8}};
  EXPECT_NEAR(memory_bound_cost(1e6, g).seconds, 1.25e-3, 1e-15);
  g.compute.memory_bound_points_timing = "kernel_only";
  EXPECT_NEAR(memory_bound_cost(1e6, g).seconds, 1.25e-3 + 4e-6, 1e-15);
}

// The price is continuous in the rates: a measured GEMM table made faster never makes a kernel
// slower, across the points where the memory side and then the floor take over. Found by review
// (2026-11-28): when only the winning side's launch counted, a router backward went from 11.5 to
// 15.3 us with a 2 % faster bf16 table. Here HBM is 2.5e12 B/s, so the 1024^3 GEMM's memory side
// is 6.29 MB / (2.5e12 x 0.85) = 2.96 us, and the point's efficiency goes from 0.3 (7.16 us of
// compute) to 1.0 (2.15 us) in steps of 0.01: the time falls to the 4 us floor and stays there.
// Under that old rule it fell to 2.96 us and then jumped to 6.96 us (memory + launch) where
// compute dropped below memory.
TEST(compute_measured, AFasterTableNeverMakesAKernelSlower) {
  GpuProfile g = measured_gpu();
  g.compute.launch_overhead_s = 4e-6;
  g.hbm_bytes_per_second = 2.5e12;
  double last = std::numeric_limits<double>::infinity();
  for (int i = 30; i <= 100; ++i) {
    g.compute.gemm_points = {{"bf16", 1024, 1024, 1024, i / 100.0}};
    index_gemm_points(g.compute);
    const double t = gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds;
    EXPECT_LE(t, last) << "efficiency " << i / 100.0;
    last = t;
  }
  EXPECT_DOUBLE_EQ(last, 4e-6);  // at 1.0: max(2.15, 2.96, 4) us, the floor
  // The same in the memory rate: a faster HBM never makes the measured GEMM slower.
  g.compute.gemm_points = {{"bf16", 1024, 1024, 1024, 0.5}};
  index_gemm_points(g.compute);
  last = std::numeric_limits<double>::infinity();
  for (double hbm = 1e11; hbm <= 1e14; hbm *= 1.25) {
    g.hbm_bytes_per_second = hbm;
    const double t = gemm_cost(1024, 1024, 1024, 1, Dtype::kBf16, g).seconds;
    EXPECT_LE(t, last) << "hbm " << hbm;
    last = t;
  }
  EXPECT_NEAR(last, 2.0 * std::pow(1024.0, 3) / 5e14, 1e-18);  // the point's 4.295 us
}

// Softmax's backward (dS = P (dP - rowsum(P dP))) evaluates no exponential: it is costed on the
// unclassed streaming curve, while its forward (and every other class's backward) keeps its own
// class's curve (compute.cc backward_kernel).
TEST(compute_measured, SoftmaxBackwardStreamsOnTheUnclassedCurve) {
  GpuProfile g = measured_gpu();
  g.hbm_bytes_per_second = 1e12;
  g.compute.launch_overhead_s = 0;
  g.compute.memory_bound_points = {
      {1e3, 0.5},         {1e9, 0.5},        {1e3, 0.1, "softmax"}, {1e9, 0.1, "softmax"},
      {1e3, 0.2, "gelu"}, {1e9, 0.2, "gelu"}};
  ModelConfig m;
  m.hidden = 64;
  m.heads = 4;
  m.ffn_hidden = 256;
  const OpShape shape{32, 32, 1, false};
  OpContext ctx;
  ctx.precision = Dtype::kFp32;
  int checked = 0;
  for (const Op& op : layer_ops(m, 0, shape)) {
    if (op.kernel != MemoryKernel::kSoftmax && op.kernel != MemoryKernel::kGelu) continue;
    const double fwd = op_cost(op, Pass::kForward, ctx, g).seconds;
    const double bwd = op_cost(op, Pass::kBackwardInput, ctx, g).seconds;
    ASSERT_GT(fwd, 0) << op.name;
    // Backward moves twice the forward's bytes (kBackwardBytes). Softmax: forward at 0.1, backward
    // at the unclassed 0.5, so bwd / fwd = 2 x 0.1 / 0.5 = 0.4. GeLU (exp again in its backward):
    // both at 0.2, so bwd / fwd = 2.
    const double ratio = op.kernel == MemoryKernel::kSoftmax ? 0.4 : 2.0;
    EXPECT_NEAR(bwd / fwd, ratio, 1e-12) << op.name;
    ++checked;
  }
  EXPECT_EQ(checked, 2);  // the attention softmax and the MLP's GeLU
}

TEST(compute_measured, OpsCarryTheirKernelClass) {
  // The op list tags memory-bound ops with the class a profile's curves are measured under.
  ModelConfig m;
  m.hidden = 64;
  m.heads = 4;
  m.ffn_hidden = 256;
  m.norm = NormType::kRmsNorm;
  m.ffn_type = FfnType::kSwiglu;
  const OpShape s{32, 32, 1, false};
  std::map<std::string_view, MemoryKernel> by_kind;
  for (const Op& op : layer_ops(m, 0, s)) by_kind[op.name] = op.kernel;
  EXPECT_EQ(by_kind["attention_norm"], MemoryKernel::kRmsnorm);
  EXPECT_EQ(by_kind["softmax"], MemoryKernel::kSoftmax);
  EXPECT_EQ(by_kind["mlp_residual"], MemoryKernel::kDropoutResidual);
  for (const Op& op : output_ops(m, 128, s)) {
    if (op.kind == OpKind::kLoss) {
      EXPECT_EQ(op.kernel, MemoryKernel::kSoftmax);
    }
  }
  const auto has_swiglu = std::ranges::any_of(
      layer_ops(m, 0, s), [](const Op& op) { return op.kernel == MemoryKernel::kSwiglu; });
  EXPECT_TRUE(has_swiglu);
}

NetworkConfig fitted_network() {
  NetworkConfig n;
  n.intra_node_GBps = 100;
  n.inter_node_Gbps = 50;
  n.intra_node_latency_us = 10;
  n.inter_node_latency_us = 30;
  n.fitted_collectives = {{"all_reduce", 8, 8, 1e-5, 4e11, 8, 1.7e10}};
  return n;
}

TEST(collective_fitted, ExactMatchUsesTheFit) {
  // 8 MiB all_reduce on 8 ranks of one node: 1e-5 + 2(8-1)/8 x 8388608 / 4e11
  // = 1e-5 + 3.67002e-5 = 4.67002e-5 s.
  const auto c = collective_cost(CollectiveOp::kAllReduce, 8388608, {8, 8}, fitted_network());
  EXPECT_EQ(c.source, CostSource::kFitted);
  EXPECT_EQ(c.algorithm, CollectiveAlgorithm::kAuto);
  EXPECT_NEAR(c.seconds, 1e-5 + 1.75 * 8388608 / 4e11, 1e-18);
  EXPECT_DOUBLE_EQ(c.bus_bytes_per_second, 8388608 / c.seconds * 1.75);
  EXPECT_EQ(cost_source_name(c.source), "fitted");
}

TEST(collective_fitted, NegativeInterceptSegmentStaysPositive) {
  // Two segments of a 2-rank all_reduce (bus factor 2(2-1)/2 = 1): [1 KiB, 256 KiB] latency
  // 1e-6 s at 4e9 B/s, and [4 MiB, 64 MiB] with intercept -0.011 s at 3.5e8 B/s (a cache cliff,
  // calibrate/linear_fit.h).
  NetworkConfig n;
  n.fitted_collectives = {{"all_reduce", 2, 2, 1e-6, 4e9, 1024, 262144},
                          {"all_reduce", 2, 2, -0.011, 3.5e8, 4194304, 67108864}};
  const auto at = [&n](double bytes) {
    return collective_cost(CollectiveOp::kAllReduce, bytes, {2, 2}, n).seconds;
  };
  // Inside the segment: -0.011 + 32 MiB / 3.5e8 = -0.011 + 0.0958698 = 0.0848698 s.
  EXPECT_NEAR(at(33554432), -0.011 + 33554432 / 3.5e8, 1e-15);
  // 2 MiB is in the gap above sqrt(256 KiB x 4 MiB) = 1 MiB, so the second segment is used below
  // its range: its time at 4 MiB (-0.011 + 4194304 / 3.5e8 = 0.000983726 s) scaled by 2/4.
  EXPECT_NEAR(at(2097152), (-0.011 + 4194304 / 3.5e8) * 0.5, 1e-15);
  EXPECT_GT(at(1048577), 0);
}

TEST(collective_fitted, AnythingElseUsesTheFormula) {
  const NetworkConfig fitted = fitted_network();
  NetworkConfig plain = fitted;
  plain.fitted_collectives.clear();
  const auto same = [&](CollectiveOp op, GroupPlacement g, CollectiveAlgorithm a) {
    const auto c = collective_cost(op, 8388608, g, fitted, a);
    EXPECT_EQ(c.source, CostSource::kFormula);
    EXPECT_EQ(c.seconds, collective_cost(op, 8388608, g, plain, a).seconds);
  };
  same(CollectiveOp::kAllReduce, {16, 8}, CollectiveAlgorithm::kAuto);  // other size
  same(CollectiveOp::kAllReduce, {8, 4}, CollectiveAlgorithm::kAuto);   // other placement
  same(CollectiveOp::kAllGather, {8, 8}, CollectiveAlgorithm::kAuto);   // other op
  same(CollectiveOp::kAllReduce, {8, 8}, CollectiveAlgorithm::kRing);   // explicit algorithm
  // A group of 8 with ranks_per_node 16 sits on one node with 8 per node: matches the fit.
  EXPECT_EQ(collective_cost(CollectiveOp::kAllReduce, 1e6, {8, 16}, fitted).source,
            CostSource::kFitted);
}

}  // namespace
}  // namespace shardsim
