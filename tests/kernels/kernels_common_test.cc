// Unit tests of the calibration harness pieces that need no MPI peer: statistics, sweep plans,
// collective sizes, kernel definitions, verification, and the cpu kernels run through their
// descriptors (setup, one run, verify) exactly as the timing loop does.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/common/collectives.h"
#include "kernels/common/errors.h"
#include "kernels/common/gemm_check.h"
#include "kernels/common/gemm_layout.h"
#include "kernels/common/hash.h"
#include "kernels/common/memory_ops.h"
#include "kernels/common/stats.h"
#include "kernels/common/sweep_plan.h"
#include "kernels/common/timing_loop.h"
#include "kernels/cpu/descriptors.h"
#include "kernels/sweep/rank_signals.h"
#include "kernels/sweep/run_sweep.h"
#include "kernels/sweep/sweep_steps.h"
#include "simulator/core/memory_kernel.h"

namespace sk = shardsim::kernels;

// column_major_gemm (gemm_layout.h), the mapping the CUDA composite hands cublasSgemm, checked
// without a GPU: a plain column-major GEMM (BLAS semantics: C = op(A) op(B), element (i, j) of a
// matrix with leading dimension ld at [i + j ld]) run with the mapped arguments must give, for all
// four transpose combinations and padded row strides, what the row-major definition gives.
void column_major_reference(const sk::ColumnMajorGemm& g) {
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      double sum = 0;
      for (int p = 0; p < g.k; ++p) {
        const float a = g.trans_first ? g.first[p + i * g.ld_first] : g.first[i + p * g.ld_first];
        const float b =
            g.trans_second ? g.second[j + p * g.ld_second] : g.second[p + j * g.ld_second];
        sum += double(a) * double(b);
      }
      g.c[i + j * g.ldc] = float(sum);
    }
}

TEST(KernelGemmLayout, RowMajorOnAColumnMajorGemmForEveryTranspose) {
  const int m = 5, n = 3, k = 4;
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      // Row-major storage of A (m x k, or k x m when transposed) and B, rows padded by 2.
      const int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
      const int lda = a_cols + 2, ldb = b_cols + 2, ldc = n + 2;
      std::vector<float> a(std::size_t(a_rows * lda)), b(std::size_t(b_rows * ldb));
      for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3;
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) - 2;
      auto at = [&](int i, int p) {
        return ta ? a[std::size_t(p * lda + i)] : a[std::size_t(i * lda + p)];
      };
      auto bt = [&](int p, int j) {
        return tb ? b[std::size_t(j * ldb + p)] : b[std::size_t(p * ldb + j)];
      };
      std::vector<float> c(std::size_t(m * ldc), -99.0f);
      column_major_reference(
          sk::column_major_gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc));
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          float want = 0;  // small integers: exact in float
          for (int p = 0; p < k; ++p) want += at(i, p) * bt(p, j);
          EXPECT_EQ(c[std::size_t(i * ldc + j)], want) << ta << tb << " " << i << "," << j;
        }
      EXPECT_EQ(c[std::size_t(n)], -99.0f);  // the padding of row 0 is not written
    }
}

// column_major_gemm_batched: the attention layout of the composite (composite_model.h): heads of
// Q in a [s x 3h] buffer (head i's columns i d floats further), scores s^2 further per head. K
// sits in its own buffer with a different head stride (d + 1) so that swapped strides would read
// the wrong heads. The mapped batch, run product by product through the column-major reference
// with the mapped strides, must give each head's row-major Q K^T (small integers: exact).
TEST(KernelGemmLayout, StridedBatchOverHeadsSwapsTheStridesWithTheOperands) {
  const int s = 4, d = 2, heads = 3, h = heads * d, ldk = heads * (d + 1);
  std::vector<float> qkv(std::size_t(s * 3 * h)), k(std::size_t(s * ldk));
  for (std::size_t i = 0; i < qkv.size(); ++i) qkv[i] = float(i % 5) - 2;
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = float(i % 7) - 3;
  std::vector<float> scores(std::size_t(heads * s * s), -99.0f);
  const sk::ColumnMajorGemmBatched bg =
      sk::column_major_gemm_batched(false, true, s, s, d, qkv.data(), 3 * h, d, k.data(), ldk,
                                    d + 1, scores.data(), s, s * s, heads);
  ASSERT_EQ(bg.batch, heads);
  for (int i = 0; i < bg.batch; ++i) {
    sk::ColumnMajorGemm g = bg.gemm;
    g.first += i * bg.stride_first;
    g.second += i * bg.stride_second;
    g.c += i * bg.stride_c;
    column_major_reference(g);
  }
  for (int hd = 0; hd < heads; ++hd)
    for (int r = 0; r < s; ++r)
      for (int c = 0; c < s; ++c) {
        float want = 0;  // Q[r] . K[c] of head hd
        for (int p = 0; p < d; ++p)
          want +=
              qkv[std::size_t(r * 3 * h + hd * d + p)] * k[std::size_t(c * ldk + hd * (d + 1) + p)];
        EXPECT_EQ(scores[std::size_t(hd * s * s + r * s + c)], want) << hd << " " << r << "," << c;
      }
}

TEST(KernelStats, MedianAndMad) {
  // Odd count: sorted {1, 2, 3} -> middle 2. Even: sorted {1, 2, 3, 4} -> (2 + 3) / 2 = 2.5.
  EXPECT_DOUBLE_EQ(sk::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(sk::median({4, 1, 3, 2}), 2.5);
  // {1, 2, 3, 4, 100}: median 3, |x - 3| = {2, 1, 0, 1, 97}, whose median is 1: the outlier
  // does not move it.
  EXPECT_DOUBLE_EQ(sk::median_absolute_deviation({1, 2, 3, 4, 100}), 1.0);
  const sk::Summary s = sk::summarize({1, 2, 3, 4, 100});
  EXPECT_DOUBLE_EQ(s.min_s, 1.0);
  EXPECT_DOUBLE_EQ(s.max_s, 100.0);
  EXPECT_DOUBLE_EQ(s.median_s, 3.0);
}

TEST(KernelTimingLoop, RunsPerSample) {
  sk::LoopConfig c;
  c.min_sample_s = 0.5;  // binary fractions, so the quotients below are exact
  c.max_runs_per_sample = 1000;
  EXPECT_EQ(sk::runs_per_sample(0.125, c), 4);          // 0.5 / 0.125 = 4
  EXPECT_EQ(sk::runs_per_sample(0.1875, c), 3);         // ceil(0.5 / 0.1875) = ceil(2.67) = 3
  EXPECT_EQ(sk::runs_per_sample(1.0, c), 1);            // a run longer than a sample: 1
  EXPECT_EQ(sk::runs_per_sample(1.0 / 4096, c), 1000);  // 2048 clamped to the maximum
  EXPECT_EQ(sk::runs_per_sample(0.0, c), 1000);         // unmeasurably fast: the maximum
}

TEST(KernelSweepPlan, TransformerShapesAndBackwardTransposes) {
  sk::TransformerSweep t;
  t.hidden = {1024};
  t.tp = {2};
  t.tokens = 2048;
  const auto shapes = sk::transformer_gemm_shapes(t);
  // 5 layer GEMMs x (fwd, bwd_data, bwd_weight) = 15, all distinct for h 1024, TP 2.
  ASSERT_EQ(shapes.size(), 15u);
  // QKV forward: m = tokens 2048, n = 3h/t = 3 * 1024 / 2 = 1536, k = h = 1024.
  EXPECT_EQ(shapes[0].m, 2048);
  EXPECT_EQ(shapes[0].n, 1536);
  EXPECT_EQ(shapes[0].k, 1024);
  EXPECT_EQ(shapes[0].uses.at(0), "h1024_tp2_qkv_fwd");
  // dX = dY W^T: (m, k, n) = (2048, 1024, 1536) with B transposed.
  EXPECT_EQ(shapes[1].n, 1024);
  EXPECT_EQ(shapes[1].k, 1536);
  EXPECT_TRUE(shapes[1].trans_b);
  // dW = X^T dY: (k, n, m) = (1024, 1536, 2048) with A transposed.
  EXPECT_EQ(shapes[2].m, 1024);
  EXPECT_EQ(shapes[2].k, 2048);
  EXPECT_TRUE(shapes[2].trans_a);
  // Logits forward: n = vocab / t = 50304 / 2 = 25152.
  EXPECT_EQ(shapes[12].n, 25152);

  t.tp = {2, 2};  // the same layer twice: every shape merged, each with two uses
  const auto merged = sk::transformer_gemm_shapes(t);
  ASSERT_EQ(merged.size(), 15u);
  EXPECT_EQ(merged[0].uses.size(), 2u);

  // Unfused attention per head (sequence s = tokens 2048, head_dim 64): 3 more shapes.
  t.head_dims = {64};
  const auto with_attention = sk::transformer_gemm_shapes(t);
  ASSERT_EQ(with_attention.size(), 18u);
  const auto& scores = with_attention[15];  // S = Q.K^T: (s, s, d), K^T read transposed
  EXPECT_EQ(std::make_tuple(scores.m, scores.n, scores.k, scores.trans_b),
            std::make_tuple(2048, 2048, 64, true));
  const auto& values = with_attention[16];  // O = P.V: (s, d, s)
  EXPECT_EQ(std::make_tuple(values.m, values.n, values.k), std::make_tuple(2048, 64, 2048));
  EXPECT_TRUE(with_attention[17].trans_a);  // dV = P^T.dO, dK = dS^T.Q
}

TEST(KernelSweepPlan, CpuQuickIsScaledDown) {
  const sk::SweepPlan p = sk::make_sweep_plan(sk::BackendKind::kCpu, true);
  EXPECT_EQ(p.gemm_dtypes, std::vector<std::string>{"fp32"});
  // CPU sizes are GPU sizes / 8: tokens 2048 / 8 = 256 is the m of every forward GEMM.
  EXPECT_EQ(p.gemm_shapes.at(0).m, 256);
  EXPECT_EQ(p.loop.min_repetitions, 3);
}

// descriptor.h promises unique names per sweep. Before the fix the CPU full plan had two
// "gemm/fp32/256x256x256/nn": hidden 2048 / 8 = 256 at TP 1 gives attn_out (m 256, n h 256,
// k h/t 256), the same as the square 256. Its collectives start at 8 bytes: in a group of 8 an
// allgather of 8 bytes (2 floats) rounds up to one float per peer, 8 x 4 = 32 bytes received,
// the same as the 32-byte size.
TEST(KernelSweepPlan, CpuDescriptorNamesAreUnique) {
  for (const bool quick : {true, false}) {
    const sk::SweepPlan p = sk::make_sweep_plan(sk::BackendKind::kCpu, quick);
    // Groups of 2, 4 and 8 ranks (a world of 8); the descriptors only read their sizes.
    std::vector<sk::CollectiveGroup> groups(3);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      groups[i].size = 2 << i;
      groups[i].groups = 8 / groups[i].size;
      groups[i].nodes = 1;
      groups[i].ranks_per_node = groups[i].size;
    }
    std::vector<sk::Descriptor> all = shardsim::kernels::cpu::gemm_descriptors(p);
    for (auto& d : shardsim::kernels::cpu::memory_bound_descriptors(p)) all.push_back(d);
    for (auto& d : shardsim::kernels::cpu::copy_and_launch_descriptors(p)) all.push_back(d);
    for (auto& d : shardsim::kernels::cpu::collective_descriptors(p, groups)) all.push_back(d);
    std::set<std::string> names;
    int collectives = 0;
    for (const sk::Descriptor& d : all) {
      EXPECT_TRUE(names.insert(d.name).second) << (quick ? "quick: " : "full: ") << d.name;
      collectives += d.kind == sk::Kind::kCollective ? 1 : 0;
    }
    // Quick: 1 KiB..64 MiB by 16 = 5 sizes, no rounding collisions: 3 groups x 5 ops x 5 sizes.
    if (quick) {
      EXPECT_EQ(collectives, 75);
    }
  }
}

// GEMM names (CPU and CUDA alike) are dtype plus (m, n, k, trans_a, trans_b) of this
// backend-independent shape list, so each key must appear once in every plan; a square equal to
// a layer GEMM (CPU full: 256x256x256, see above) is merged into it, keeping the use "square".
TEST(KernelSweepPlan, GemmShapesAreUniqueAndSquaresKept) {
  for (const sk::BackendKind b : {sk::BackendKind::kCpu, sk::BackendKind::kCuda}) {
    for (const bool quick : {true, false}) {
      const sk::SweepPlan p = sk::make_sweep_plan(b, quick);
      std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool, bool>> keys;
      int squares = 0;
      for (const sk::GemmShape& g : p.gemm_shapes) {
        EXPECT_TRUE(keys.emplace(g.m, g.n, g.k, g.trans_a, g.trans_b).second)
            << g.m << "x" << g.n << "x" << g.k;
        for (const std::string& use : g.uses) squares += use == "square" ? 1 : 0;
      }
      // Every square size keeps its "square" use, merged or not: CPU quick 64, 256 (2 sizes),
      // CPU full 64..1024 by 2 (5), GPU quick 512..8192 by 4 (3), GPU full 256..16384 by 2 (7).
      const int expected = b == sk::BackendKind::kCpu ? (quick ? 2 : 5) : (quick ? 3 : 7);
      EXPECT_EQ(squares, expected);
    }
  }
}

TEST(KernelCollectives, GroupSizes) {
  EXPECT_TRUE(sk::collective_group_sizes(1).empty());
  EXPECT_EQ(sk::collective_group_sizes(2), (std::vector<int>{2}));
  EXPECT_EQ(sk::collective_group_sizes(6), (std::vector<int>{2, 4, 6}));  // powers of 2, then 6
  EXPECT_EQ(sk::collective_group_sizes(8), (std::vector<int>{2, 4, 8}));
}

TEST(KernelCollectives, CountsFollowNcclTests) {
  // AllGather, S = 1024 B, n = 2: 256 elements in all, 128 sent per rank, 256 received.
  const sk::CollCounts ag = sk::coll_counts(sk::CollOp::kAllGather, 1024, 2);
  EXPECT_EQ(ag.send, 128);
  EXPECT_EQ(ag.recv, 256);
  EXPECT_DOUBLE_EQ(ag.bytes, 1024.0);
  // ReduceScatter, S = 1000 B, n = 3: 250 elements, 250 / 3 = 83 per rank, send 3 * 83 = 249,
  // so the size used is 4 * 249 = 996 B (rounded down as nccl-tests does).
  const sk::CollCounts rs = sk::coll_counts(sk::CollOp::kReduceScatter, 1000, 3);
  EXPECT_EQ(rs.recv, 83);
  EXPECT_EQ(rs.send, 249);
  EXPECT_DOUBLE_EQ(rs.bytes, 996.0);
  // busbw factors: AllReduce 2(n-1)/n = 2 * 7 / 8 = 1.75; AllGather (n-1)/n = 3/4; SendRecv 1.
  EXPECT_DOUBLE_EQ(sk::busbw_factor(sk::CollOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(sk::busbw_factor(sk::CollOp::kAllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(sk::busbw_factor(sk::CollOp::kSendRecv, 4), 1.0);
}

TEST(KernelCollectives, ExpectedOutputs) {
  // Rank q sends (q + 1) + (i mod 5). AllReduce over 2 ranks: element 0 = 1 + 2 = 3;
  // element 6 (6 mod 5 = 1) = 2 + 3 = 5.
  const sk::CollCounts ar = sk::coll_counts(sk::CollOp::kAllReduce, 64, 2);
  const auto sum = sk::coll_expected(sk::CollOp::kAllReduce, 0, 2, ar);
  EXPECT_FLOAT_EQ(sum[0], 3.0f);
  EXPECT_FLOAT_EQ(sum[6], 5.0f);
  // SendRecv: rank 0 of 2 receives from rank 1: element 0 = 2.
  EXPECT_FLOAT_EQ(sk::coll_expected(sk::CollOp::kSendRecv, 0, 2, ar)[0], 2.0f);
}

TEST(KernelMemoryOps, BytesMoved) {
  const sk::MemoryShape s{2, 3};  // n = 6 elements, 3 columns
  // layernorm reads x, writes y (2n) and reads gamma, beta (2 cols): 4 (12 + 6) = 72 bytes.
  EXPECT_DOUBLE_EQ(sk::mem_op_bytes(sk::MemOp::kLayernorm, s), 72.0);
  // adam reads p, g, m, v and writes p, m, v: 4 * 7 * 6 = 168 bytes.
  EXPECT_DOUBLE_EQ(sk::mem_op_bytes(sk::MemOp::kAdam, s), 168.0);
}

// The simulator costs memory-bound ops by kernel class under these names
// (simulator/core/memory_kernel.h), so every kernel the sweep measures must be a known class.
TEST(KernelMemoryOps, NamesAreSimulatorKernelClasses) {
  for (const sk::MemOp op : sk::kAllMemOps) {
    const auto k = shardsim::memory_kernel_from_name(sk::mem_op_name(op));
    ASSERT_TRUE(k.has_value()) << sk::mem_op_name(op);
    EXPECT_NE(*k, shardsim::MemoryKernel::kAny);
  }
}

TEST(KernelMemoryOps, DropoutKeepsOneMinusP) {
  // 100000 Bernoulli(0.9) draws: standard deviation sqrt(0.9 * 0.1 / 1e5) ~ 0.00095, so 0.01 is
  // ten standard deviations.
  int kept = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) kept += sk::dropout_keep(i, 1234, 0.1f) ? 1 : 0;
  EXPECT_NEAR(kept / 100000.0, 0.9, 0.01);
}

TEST(KernelVerification, CompareAndGemmCheck) {
  EXPECT_TRUE(sk::compare({1.0f, 2.0f}, {1.0, 2.0}, 0.0, 0.0).ok);
  EXPECT_FALSE(sk::compare({1.0f, 2.5f}, {1.0, 2.0}, 0.1, 0.0).ok);  // 0.5 > 0.1 * 2

  const sk::GemmShape s{3, 2, 4, false, false, {}};
  const sk::GemmInputs in = sk::make_gemm_inputs(s);
  std::vector<float> c(6, 0.0f);  // a naive row-major C = A B
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int p = 0; p < 4; ++p) c[i * 2 + j] += in.a[i * 4 + p] * in.b[p * 2 + j];
    }
  }
  const auto at = [&](std::int64_t i, std::int64_t j) { return c[i * 2 + j]; };
  EXPECT_TRUE(sk::check_gemm(s, in, at, 1e-6).ok);
  c[0] += 1.0f;  // entry (0, 0) is always checked
  EXPECT_FALSE(sk::check_gemm(s, in, at, 1e-6).ok);
  c[0] -= 1.0f;

  // Partial sums rounded in the output dtype: entry (0, 0) may be off by up to
  // partial_rounding * l1, l1 = sum_p |A(0, p) B(p, 0)| (gemm_check.h). Off by half of that it
  // passes; by twice that it fails. The inputs are eighths, so the 1e-6 relative term is far
  // smaller than either offset.
  double l1 = 0;
  for (int p = 0; p < 4; ++p) l1 += std::fabs(double(in.a[p]) * double(in.b[p * 2]));
  ASSERT_GT(l1, 0);
  const double u = 0x1p-8;  // bf16's unit roundoff
  c[0] += static_cast<float>(0.5 * u * l1);
  EXPECT_FALSE(sk::check_gemm(s, in, at, 1e-6).ok);
  EXPECT_TRUE(sk::check_gemm(s, in, at, 1e-6, u).ok);
  c[0] += static_cast<float>(1.5 * u * l1);
  EXPECT_FALSE(sk::check_gemm(s, in, at, 1e-6, u).ok);
}

// The data GEMMs are timed on (gemm_check.h): A is m x k and B is k x n values in [-1, 1), the
// same on every call, and not the verification's eighths. A value 2 u - 1 with u = j / 2^24 is a
// multiple of 1/8 only when j is a multiple of 2^20, one draw in 2^20, so fewer than 1 % of the
// 2 x 48 x 64 values may be.
TEST(KernelVerification, TimingInputsAreRandomFullMantissaValues) {
  const sk::GemmShape s{48, 32, 64, false, false, {}};
  const sk::GemmInputs t = sk::make_timing_inputs(s);
  ASSERT_EQ(t.a.size(), 48u * 64u);
  ASSERT_EQ(t.b.size(), 64u * 32u);
  const sk::GemmInputs again = sk::make_timing_inputs(s);
  EXPECT_EQ(t.a, again.a);
  EXPECT_EQ(t.b, again.b);
  EXPECT_NE(t.a, sk::make_gemm_inputs(s).a);
  int eighths = 0;
  for (const auto* v : {&t.a, &t.b}) {
    for (const float x : *v) {
      EXPECT_GE(x, -1.0f);
      EXPECT_LT(x, 1.0f);
      if (x * 8.0f == std::floor(x * 8.0f)) ++eighths;
    }
  }
  EXPECT_LT(eighths, (48 * 64 + 64 * 32) / 100);
}

TEST(KernelCpuBackend, EveryLocalDescriptorVerifies) {
  sk::SweepPlan p;
  p.gemm_shapes = {{8, 12, 16, false, false, {}}, {8, 12, 16, true, true, {}}};
  p.memory_shapes = {{4, 96}};
  p.copy_bytes = {4096};
  p.launches_per_run = 8;
  std::vector<sk::Descriptor> all = shardsim::kernels::cpu::gemm_descriptors(p);
  for (auto& d : shardsim::kernels::cpu::memory_bound_descriptors(p)) all.push_back(d);
  for (auto& d : shardsim::kernels::cpu::copy_and_launch_descriptors(p)) all.push_back(d);
  // 2 GEMMs + 7 memory-bound ops + 1 memcpy + 1 launch.
  ASSERT_EQ(all.size(), 11u);
  for (const sk::Descriptor& d : all) {
    const auto instance = d.setup();
    EXPECT_FALSE(instance->verify().ok) << d.name << " verified before running";
    instance->run(1);
    const sk::Verification v = instance->verify();
    EXPECT_TRUE(v.ok) << d.name << ": " << v.detail;
  }
}

TEST(KernelSweep, DebugBuildIsRefused) {
  EXPECT_TRUE(sk::build_type_refusal("Debug").has_value());
  EXPECT_TRUE(sk::build_type_refusal("debug").has_value());
  EXPECT_FALSE(sk::build_type_refusal("Release").has_value());
  EXPECT_FALSE(sk::build_type_refusal("RelWithDebInfo").has_value());
}

// A backend that fails while it starts, as NCCL did on the H200 machine with two ranks on its one
// GPU (ncclCommInitRankConfig: "Duplicate GPU detected";
// scenarios/measurements/calibrate/h200-sxm-2026-11-27-run2/nccl-2ranks-1gpu.*): exit 3, the
// failing call named, and a .partial file that still describes the run (host, build, ranks). Before
// the fix its context was {}. One rank: an MPI singleton in this process, finalized when the test
// ends (MPI cannot start again in the process: no --gtest_repeat; ctest runs each test alone).
TEST(KernelSweep, ABackendFailingToStartLeavesAPartialThatDescribesTheRun) {
  const std::string dir = ::testing::TempDir() + "sweep_backend_fails";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  sk::SweepOptions options;
  options.backend = sk::BackendKind::kCpu;
  options.samples_path = dir + "/s.json";
  options.sync_timeout_s = 30;
  const sk::MpiScope mpi;
  std::ostringstream log;
  nlohmann::json out;
  sk::SweepRun run(options, log, out, /*abort_on_failure=*/false);
  const sk::BuildInfo build{"Release", "abc123", "0.1.0", "GCC test"};
  const int code =
      run.execute(build, [](const sk::Comm&, std::string&) -> std::unique_ptr<sk::Backend> {
        throw sk::CallError("ncclCommInitRankConfig", "invalid usage: Duplicate GPU detected");
      });
  EXPECT_EQ(code, 3);
  EXPECT_NE(log.str().find("ncclCommInitRankConfig failed"), std::string::npos) << log.str();
  std::ifstream in(options.samples_path + ".partial");
  ASSERT_TRUE(in.good()) << log.str();
  const nlohmann::json partial = nlohmann::json::parse(in);
  EXPECT_EQ(partial.at("complete"), false);
  EXPECT_EQ(partial.at("error").at("call"), "ncclCommInitRankConfig");
  EXPECT_TRUE(partial.at("items").empty());
  const nlohmann::json& context = partial.at("context");
  ASSERT_TRUE(context.is_object() && context.contains("mpi") && context.contains("sweep"))
      << context.dump();
  EXPECT_EQ(context.value("git_revision", ""), "abc123");
  EXPECT_EQ(context.value("build_type", ""), "Release");
  EXPECT_EQ(context.at("mpi").value("world_size", 0), 1);
  EXPECT_FALSE(context.value("host", "").empty());
  EXPECT_TRUE(context.at("sweep").contains("gemm_timing_inputs"));
  EXPECT_FALSE(context.contains("backend"));  // it never started
  std::filesystem::remove_all(dir);
}

// The crash handler builds its JSON error document with append_json_string (async-signal-safe).
TEST(KernelRankSignals, JsonStringEscapes) {
  char buf[64];
  std::size_t len = 0;
  sk::append_json_string(buf, sizeof(buf), len, "a\"b\\c\nd\x01");
  // RFC 8259: '"' -> \", '\' -> \\, newline -> \n, U+0001 -> \u0001.
  EXPECT_STREQ(buf, R"(a\"b\\c\nd\u0001)");
  EXPECT_EQ(nlohmann::json::parse('"' + std::string(buf) + '"'), "a\"b\\c\nd\x01");
  // limit 4 holds 3 bytes and the '\0': "xy" fits, the 2-byte \" after it does not, and is left
  // out whole rather than cut to a dangling backslash ("xy\" would not parse).
  len = 0;
  sk::append_json_string(buf, 4, len, "xy\"");
  EXPECT_STREQ(buf, "xy");
  EXPECT_EQ(len, 2u);
}

// A rank that crashes while measuring an item whose name holds a quote and a backslash writes a
// .rank<N>.error document that parses, naming the item as it was, and exits 3
// (kernels/sweep/rank_signals.h).
TEST(KernelRankSignals, CrashDocumentIsValidJsonForAnyItemName) {
  // The process has threads (OpenBLAS): run the dying child in a fresh process, not a bare fork.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = ::testing::TempDir() + "shardsim_crash_test.rank7.error";
  std::remove(path.c_str());
  const std::string item = "gemm/\"odd\" name\\with\tescapes";
  EXPECT_EXIT(
      {
        sk::RankSignals signals(7, path);
        sk::RankSignals::set_item(item);
        std::raise(SIGSEGV);
      },
      ::testing::ExitedWithCode(3), "rank 7 crashed: SIGSEGV");
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws (fails the test) if not JSON
  EXPECT_EQ(doc.at("item"), item);
  EXPECT_EQ(doc.at("call"), "SIGSEGV");
  EXPECT_EQ(doc.at("rank"), 7);
  EXPECT_EQ(doc.at("signal"), SIGSEGV);
  EXPECT_EQ(doc.at("message"), "rank 7 crashed: SIGSEGV (signal " + std::to_string(SIGSEGV) +
                                   ") while measuring " + item);
  std::remove(path.c_str());
}

// The stop handler (SIGTERM from a launcher ending the job) writes its record at once, for a rank
// that is blocked in a call the signal does not interrupt (rank_signals.h): valid JSON for an
// item name with a quote and a backslash, naming the item as the call, the signal, and the peer on
// this host whose process is gone (here a child that exited and was reaped: its pid is free).
// The pid of a child that has exited and been reaped: no process has it any more (until the
// kernel reuses it, far later than these tests look). 0 when fork or waitpid failed.
pid_t reaped_child() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  if (child < 0 || waitpid(child, nullptr, 0) != child) return 0;
  return child;
}

std::string this_host() {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  return host.data();
}

// After stop_recording() (the main thread wrote its own record, or forget_error() ended a
// completed run) a stop signal is still noted but leaves no file: the precise record a failing
// rank wrote before MPI_Abort is not replaced by the launcher's SIGTERM. And with every one of
// the 1024 peers lost, the lost_ranks list is whole and the document is JSON.
TEST(KernelRankSignals, NoRecordAfterStopRecordingAndWholeListOfManyLostPeers) {
  const std::string path = ::testing::TempDir() + "shardsim_stop_test2.rank0.error";
  std::remove(path.c_str());
  {
    sk::RankSignals signals(0, path);
    sk::RankSignals::set_item("gemm/fp32/1");
    sk::RankSignals::stop_recording();
    std::raise(SIGTERM);
    EXPECT_EQ(sk::termination_signal(), SIGTERM);
  }
  sk::clear_termination_signal();
  EXPECT_FALSE(std::ifstream(path).good()) << path;
  // 1024 peers on this host (ranks 1..1024), every pid gone: a child reaped (no such process any
  // more). Their list, "1, 2, ..., 1024", is 5,035 characters: the 2,048-character buffer before
  // cut it mid-list (invalid JSON or a wrong rank); it is now sized for 1024 ten-digit ranks.
  const pid_t child = reaped_child();
  ASSERT_GT(child, 0);
  const std::string host = this_host();
  {
    sk::RankSignals signals(0, path);
    std::vector<sk::Peer> peers(1025, sk::Peer{host, static_cast<long>(child)});
    peers[0].pid = static_cast<long>(getpid());  // self
    sk::RankSignals::set_peers(peers, 0);
    sk::RankSignals::set_item("collective/mpi/all_reduce/g1025/8");
    std::raise(SIGTERM);
  }
  sk::clear_termination_signal();
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc.at("lost_ranks").size(), 1024u);
  EXPECT_EQ(doc.at("lost_ranks").front(), 1);
  EXPECT_EQ(doc.at("lost_ranks").back(), 1024);
  std::remove(path.c_str());
}

TEST(KernelRankSignals, StopRecordNamesTheItemAndALostPeer) {
  const std::string path = ::testing::TempDir() + "shardsim_stop_test.rank0.error";
  std::remove(path.c_str());
  const pid_t child = reaped_child();
  ASSERT_GT(child, 0);
  const std::string host = this_host();
  const std::string item = "collective/\"odd\"\\name";
  {
    sk::RankSignals signals(0, path);
    sk::RankSignals::set_peers({{host, static_cast<long>(getpid())}, {host, child}}, 0);
    sk::RankSignals::set_item(item);
    std::raise(SIGTERM);  // handled: recorded, not fatal
    EXPECT_EQ(sk::termination_signal(), SIGTERM);
  }
  sk::clear_termination_signal();
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path;
  const nlohmann::json doc = nlohmann::json::parse(in);  // throws (fails the test) if not JSON
  EXPECT_EQ(doc.at("call"), item);
  EXPECT_EQ(doc.at("item"), item);
  EXPECT_EQ(doc.at("rank"), 0);
  EXPECT_EQ(doc.at("signal"), SIGTERM);
  EXPECT_EQ(doc.at("lost_ranks"), nlohmann::json::array({1}));
  const std::string message = doc.at("message");
  EXPECT_EQ(message.rfind("rank 1 lost during " + item + ": interrupted by SIGTERM", 0), 0u)
      << message;
  std::remove(path.c_str());
}

// The samples' temporary sibling fits the 255-byte name limit however long the (legal) target
// name is (found by review, 2026-11-29: a 245-byte -o was "File name too long"); a short name
// keeps all of it.
TEST(Results, TemporaryPathFitsTheNameLimit) {
  const std::string dir = "/tmp/some dir/";
  const std::string long_name = std::string(250, 'b') + ".json";  // 255 bytes
  const std::string tmp = sk::temporary_path(dir + long_name);
  EXPECT_EQ(tmp.rfind(dir, 0), 0u);
  EXPECT_LE(tmp.size() - dir.size(), 255u);
  EXPECT_NE(tmp.find(".tmp."), std::string::npos);
  EXPECT_EQ(sk::temporary_path(dir + "s.json").rfind(dir + "s.json.tmp.", 0), 0u);
}
