// The whole suite run through evaluate: every group's numbers are finite, cases that cannot run are
// reported with their reason, the report is deterministic and follows its schema, and loose
// regression bounds hold on the prediction groups.
//
// About the bounds: the targets are issue 9's (vTrain MAPE <= 8 % and no row > 25 %; each
// Korthikanti Table 5, Megatron-Core H100 and MosaicML row within +-10 %). Today's uncalibrated
// presets miss them by far; the bounds below sit a few points above the figures measured on
// 2026-11-23 (DES, datasheet presets, before the fitted profiles and the host-dispatch model of
// issue 9 landed), so they catch a model that gets worse and pass any change that improves it.
// Whoever improves a group should tighten its bound to the new figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "reports/suite_report.h"
#include "simulator/scenario/load.h"

namespace shardsim::suite {
namespace {

// One DES run of every group, shared by the tests (about a second).
const SuiteResult& des_result() {
  static const SuiteResult r = run_suite({{}, Mode::kDes});
  return r;
}

const GroupSummary& group(const SuiteResult& r, Group g) {
  for (const auto& s : r.groups)
    if (s.group == g) return s;
  throw std::logic_error("group not run");
}

void print(const GroupSummary& g) {
  std::printf("%-12s %5d cases, %5d evaluated: MAPE %6.2f %%, max %6.2f %% (%s)\n",
              group_name(g.group).c_str(), g.cases, g.all.count, g.all.mape, g.all.max_abs,
              g.all.worst.c_str());
}

TEST(suite_run, EveryGroupRunsWithFiniteNumbers) {
  const SuiteResult& r = des_result();
  ASSERT_EQ(r.groups.size(), std::size(kAllGroups));
  for (const CaseResult& c : r.cases) {
    if (c.outcome != Outcome::kEvaluated) {
      // Never dropped silently: a case that is not evaluated says why.
      EXPECT_FALSE(c.reason.empty()) << c.c.id;
      continue;
    }
    EXPECT_TRUE(std::isfinite(c.predicted) && c.predicted > 0) << c.c.id;
    EXPECT_TRUE(std::isfinite(c.signed_pct_error)) << c.c.id;
    EXPECT_DOUBLE_EQ(c.abs_pct_error, std::abs(c.signed_pct_error)) << c.c.id;
  }
  for (const GroupSummary& g : r.groups) {
    print(g);
    EXPECT_TRUE(std::isfinite(g.all.mape) && std::isfinite(g.all.max_abs));
    EXPECT_EQ(g.all.count + g.not_evaluated, g.cases);
    EXPECT_LE(g.all.mape, g.all.max_abs);
    // Today every case is representable and fits in memory. Until 2026-11-25 13 runs of
    // mosaicml-more that ran on their GPUs were put 0.03-6.6 % above capacity by the memory model,
    // which then kept Megatron's fp32 copy of the logits for every loss; llm-foundry's fused loss
    // keeps the bf16 logits only, and those runs now peak at 87-94 % of their GPU's memory (README
    // "Validation against published runs").
    EXPECT_EQ(g.not_evaluated, 0) << group_name(g.group);
  }
}

// Target: exact. Measured: 133 of 133 exact.
TEST(suite_run, MemoryGroupIsExact) {
  const GroupSummary& g = group(des_result(), Group::kMemory);
  EXPECT_EQ(g.exact, g.cases);
  EXPECT_EQ(g.all.max_abs, 0);
  EXPECT_TRUE(g.met);
}

// Target: MAPE <= 8 % and no row > 25 %. Measured (DES) with the datasheet presets and no host
// cost: MAPE 38.4 %, max 83.3 %. With the fitted A100 profile, the dgx-a100 network and the
// megatron-eager framework fitted on the even rows: MAPE 8.2 % (calibration 8.3 %, held out 8.1 %),
// max 31.5 % (row 1095: 8 GPUs, TP 8, h 1024, micro-batch 1: 1.95 s measured, 1.34 s predicted;
// the TP 8 host-bound rows run about 1.4x slower per layer than TP 1-4 ones, which the model does
// not capture). Since 2026-11-25 the framework's host_sync_fraction (0.134, fitted with the other
// three on the even rows): MAPE 7.67 % (calibration 7.69 %, held out 7.65 %), max 31.2 % (row 771,
// the same TP 8 micro-batch-1 rows). With the loss's traffic by implementation and the framework
// refitted (2026-11-25): MAPE 7.45 % (calibration 7.47 %, held out 7.44 %), max 30.9 % (row 771),
// 37 rows above 25 %. With the tied embedding's all-reduce under pp > 1 and the framework
// refitted (2026-11-28): MAPE 7.32 % (calibration 7.31 %, held out 7.33 %), max 30.6 % (row 771),
// 39 rows above 25 %. After measured kernels stopped paying the launch overhead twice and the
// framework was refitted (2026-11-28; final rule: a kernel priced from its own table takes
// max(compute, memory, launch)): MAPE 7.32 % (calibration 7.31 %, held out 7.33 %), max 30.7 %
// (row 771). After the embedding's zero fill, Megatron's hook adds with fusion and the framework
// refitted for them (2026-11-30): MAPE 7.35 % (calibration 7.34 %, held out 7.36 %), max 30.6 %
// (row 771). The MAPE target is met, so the bound is the target itself.
TEST(suite_run, VtrainWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kVtrain);
  ASSERT_TRUE(g.calibration && g.held_out);
  EXPECT_EQ(g.calibration->count + g.held_out->count, g.all.count);
  std::printf("vtrain: calibration subset MAPE %.2f %%, held out MAPE %.2f %% (max %.2f %%)\n",
              g.calibration->mape, g.held_out->mape, g.held_out->max_abs);
  EXPECT_LE(g.all.mape, 8.0);
  EXPECT_LE(g.held_out->mape, 8.0);
  EXPECT_LE(g.all.max_abs, 34.0);
}

// No target (issue 9 names none; nothing is fitted on these rows): vTrain's 109 multi-node
// iterations, an independent check. Measured (DES) on 2026-11-25 with the fitted A100 profile, the
// dgx-a100 network at half its NIC rate (vTrain's 800 Gb/s per node of 8) and the megatron-eager
// framework fitted on the single-node even rows: MAPE 10.5 %, max 52.2 % (row 15: 3.6B on 64 GPUs,
// TP 8, micro-batch 64: 9.84 s measured, twice its micro-batch-32 neighbour's 4.97 s; 4.70 s
// predicted); 68 of 109 within 10 %; by size, median error 3.6B -10.3 %, 18.4B -11.2 %, 39.1B
// -7.5 %, 175B -2.4 %. The 39.1B rows at TP 2 with DP 16-32 were up to 40-42 % too fast: measured,
// they take 25-46 % (PP 8) and 52-68 % (PP 16) longer than TP 8 at the same pipeline depth and
// micro-batch, while the model's DP all-reduce is 0.1-0.2 s of the step and TP 2 adds only about
// 0.02 s to it. With the framework's host_sync_fraction (fitted on the single-node even rows only,
// 2026-11-25): MAPE 9.8 %, max 52.2 % (row 15 again), 75 of 109 within 10 %; those TP 2 rows
// -19 to -42 %. With the loss's traffic (2026-11-25): MAPE 9.7 %, max 52.0 %, 75 of 109. After
// measured kernels stopped paying the launch overhead twice (2026-11-28): MAPE 9.8 %, max 52.0 %,
// 75 of 109.
TEST(suite_run, VtrainMultiWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kVtrainMulti);
  EXPECT_EQ(g.all.count, 109);
  EXPECT_LE(g.all.mape, 11.0);
  EXPECT_LE(g.all.max_abs, 55.0);
  EXPECT_GE(g.all.within_10, 70);
}

// Target: each row within +-10 %. Measured (DES): datasheet presets MAPE 11.0 %, max 19.1 %; with
// the fitted A100 profile and framework MAPE 3.7 %, max 8.3 % (22B, SP + selective: 1.10 s
// published, 1.01 s predicted); 7 of 8 rows too fast, down to -8.3 %; 530B full +0.04 %. With
// the framework's host_sync_fraction (2026-11-25): MAPE 3.0 %, max 7.5 % (the same row, -7.5 %).
// With the loss's traffic and the framework refitted (2026-11-25): MAPE 3.0 %, max 7.8 % (the
// same row, 1.01 s predicted). After measured kernels stopped paying the launch overhead twice
// (2026-11-28): MAPE 3.1 %, max 8.1 % (the same row).
TEST(suite_run, KorthikantiWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kKorthikanti);
  EXPECT_LE(g.all.mape, 6.0);
  EXPECT_LE(g.all.max_abs, 10.0);
}

// Target: each row within +-10 %. Measured (DES): datasheet presets MAPE 29.2 %, max 53.4 %; fitted
// H100 profile and network: MAPE 29.1 %, max 47.6 %; with compute-communication contention:
// MAPE 27.3 %, max 46.1 % (1.7B on 48 H100: 408.8 TFLOP/s published, 597 predicted); with XLA's
// measured H100 BF16 table: MAPE 26.7 %, max 39.7 % (the 1.7B row, 571 predicted); every row too
// fast, +13.4 to +39.7 %. With the framework's host_sync_fraction (fitted on vTrain rows only,
// 2026-11-25): MAPE 22.0 %, max 33.1 % (7.1B: 465.9 published, 620 predicted), +8.0 to +33.1 %.
// With FlashAttention-2's measured H100 rate (compute.attention_points, 2026-11-25): MAPE 17.9 %,
// max 26.5 % (7.1B, 589 predicted), +4.9 to +26.5 %. With Megatron's fp32 vocabulary-parallel
// loss traffic (38 + 14 B per logit, vocabulary 131,072) and the framework refitted (2026-11-25):
// MAPE 17.1 %, max 25.0 % (7.1B, 582 predicted), +5.7 to +25.0 % (1.7B +23.9 -> +16.3 %). With
// Megatron's fp32 gradients under --bf16 (training.grad_dtype, 2026-11-26): MAPE 13.6 %, max
// 22.7 % (7.1B, 572 predicted), -10.9 % (32B: its 16 GB fp32 reduce-scatter per GPU) to +22.7 %.
// With the DGX H100 network's latencies kept at the datasheet's where no log has small messages
// across nodes (2026-11-27; the fit had put the start-up latency at 491 us): MAPE 15.1 %, max
// 24.0 % (7.1B, 578 predicted), -3.0 % (32B) to +24.0 %. With the overlapped TP collectives
// (--tp-comm-overlap) slowing the GEMMs beside them, as the data-parallel ones do (2026-11-27):
// MAPE 12.1 %, max 21.5 % (7.1B, 566 predicted), -7.3 % (32B) to +21.5 %, 3 of 9 within 10 %.
// After the framework's refit for the tied-embedding all-reduce (2026-11-28; these runs are
// untied): MAPE 12.2 %, max 21.9 % (7.1B, 568 predicted), -7.1 % (32B), 3 of 9 within 10 %.
// After the line-rate bound of all-reduce gains and the networks' refit (2026-11-28): MAPE 10.1 %,
// max 19.9 % (7.1B), -19.0 % (32B), 5 of 9 within 10 %. With the h100-sxm preset's GEMMs from
// shardsim's own H100 sweep in place of XLA's table (2026-11-28): MAPE 9.7 %, max 19.6 % (32B,
// 370 predicted against 459.6), 7.1B +18.5 %, 6 of 9 within 10 %. After measured kernels
// stopped paying the launch overhead twice (2026-11-28, final rule): MAPE 10.0 %, max 19.3 %
// (32B, 371 predicted), 7.1B +19.1 %, 5 of 9 within 10 % (177B +9.8 -> +10.1 %). After the
// embedding's zero fill, the hook adds of the embedding's gradient (268 M parameters on the 1.7B)
// and the framework refit (2026-11-30): MAPE 9.9 %, max 19.2 % (32B), 1.7B +14.0 %, 7.1B +18.9 %.
TEST(suite_run, McoreWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kMcore);
  EXPECT_LE(g.all.mape, 11.0);
  EXPECT_LE(g.all.max_abs, 21.0);
}

// Target: each row within +-10 %. Measured (DES): datasheet presets MAPE 30.7 %, max 55.0 %; fitted
// A100 profile: MAPE 20.2 %, max 40.6 %; with compute-communication contention: MAPE 18.9 %, max
// 40.5 % (MPT-A5, 7B at sequence 65536: 8,108 tokens/s published, 11,392 predicted); every row too
// fast, +3.8 to +40.5 %. With the framework's host_sync_fraction (2026-11-25): MAPE 18.7 %, max
// 40.5 % (MPT-A5, 11,390 predicted), +3.5 to +40.5 %. With the measured Triton FlashAttention rate
// on A100 (the benchmark's default attn_impl, 2026-11-25): MAPE 9.0 %, max 17.1 % (MPT-A5, 6,723
// predicted: now too slow), -17.1 to +14.6 %, 4 of 7 within 10 %. With llm-foundry's default
// fused loss (4 + 4 B per logit, less than the streaming op's 4 + 8) and the framework refitted
// (2026-11-25): MAPE 9.4 %, max 17.1 % (MPT-A7 +17.1 %, MPT-A5 -17.1 %). With fp32 gradient
// reduction for the amp_bf16 rows (FSDP mixed precision DEFAULT, 2026-11-26): MAPE 9.2 %, max
// 17.1 % (MPT-A5 -17.1 %, MPT-A7 +17.0 %). After measured kernels stopped paying the launch
// overhead twice (2026-11-28): MAPE 9.3 %, max 17.3 % (MPT-A7 +17.3 %, MPT-A5 -17.1 %).
TEST(suite_run, MosaicmlWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kMosaicml);
  EXPECT_LE(g.all.mape, 11.0);
  EXPECT_LE(g.all.max_abs, 20.0);
}

// No target (nothing is fitted on these rows): the other 202 BF16 rows of llm-foundry's tables, an
// independent check added 2026-11-25. Measured (DES): 189 evaluated, MAPE 35.6 %, max 122.3 %
// (MPT-M062: 760m on 8 H100 at sequence 32768: 130,333 tokens/s published, 289,745 predicted).
// Median signed error by table and sequence (below / from 16384): H100 +46.5 / +100.4 %, A100
// 80GB +16.4 / +29.1 %, A100 40GB +22.0 / +38.9 %; every evaluated H100 row too fast. With the
// measured Triton FlashAttention rate on A100 (2026-11-25): MAPE 26.4 % (the 123 A100 rows 10.0 %),
// max 122.3 % (the same H100 row); A100 80GB +3.4 / -12.4 %, A100 40GB +8.5 / -9.2 %. With the
// fused loss (its traffic, and its memory: the 13 runs above capacity now fit) and the framework
// refitted (2026-11-25): 202 evaluated, MAPE 27.0 %, max 123.2 %. With fp32 gradient reduction
// for the MP mode DEFAULT rows (2026-11-26): MAPE 26.6 %, max 122.9 %. With H100 Triton
// FlashAttention points carried over from A100's Triton / FlashAttention-2 ratio (fit
// --attention-relative, 2026-11-27; H100 had none, so its rows ran attention at the score GEMM's
// efficiency): MAPE 13.5 %, max 48.6 % (MPT-M126, 70b on 64 A100 40GB, unchanged); H100 median
// +20.4 / -11.9 % (was +48.5 / +100.6 %), the 70 H100 rows' MAPE 56.8 -> 18.7 %. With the
// h100-sxm preset's GEMMs from shardsim's own H100 sweep (2026-11-28): MAPE 13.1 %, the 70 H100
// rows 17.6 %, median +20.0 / -12.4 %; max unchanged. After measured kernels stopped paying the
// launch overhead twice (2026-11-28): MAPE 13.2 %, max 48.7 %, the 70 H100 rows 17.7 %.
TEST(suite_run, MosaicmlMoreWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kMosaicmlMore);
  EXPECT_EQ(g.cases, 202);
  EXPECT_EQ(g.all.count, 202);
  EXPECT_LE(g.all.mape, 14.5);
  EXPECT_LE(g.all.max_abs, 52.0);
}

// No target (nothing is fitted on these rows): Narayanan et al. 2021 Table 1, an independent check
// added 2026-11-27. Measured (DES): 10 evaluated, MAPE 14.1 %, max 17.8 % (NAR-76B: 140 TFLOP/s
// per GPU published, 164.9 predicted); every row too fast, +10.5 to +17.8 %. The same hardware
// ran the 530B and 1T configurations 9-10 % faster a year later: Korthikanti's full-recompute
// rows, e.g. 530B with 280 sequences on 280 GPUs in 49.05 s, are eq. 3's 2.2216e19 / 9 FLOP /
// 280 GPUs / 49.05 s = 179.7 TFLOP/s per GPU against this table's 163 (README "Validation
// against published runs"). After measured kernels stopped paying the launch overhead twice
// (2026-11-28): MAPE 14.3 %, max 18.0 % (NAR-76B, 165.3 predicted), +10.6 to +18.0 %. Since
// 2026-11-30 the rows write the 2021 code's unfused gradient accumulation (autograd's in-place
// add into the fp16 .grad on every micro-batch after a step's first, 6 B per parameter; no
// fusion before 2022-02): MAPE 12.2 %, max 16.1 % (NAR-18B: 135 published, 156.7 predicted),
// +6.3 (1T) to +16.1 %; after the embedding's zero fill and the framework refit (same day): MAPE
// 12.3 %, max 16.2 %, +6.4 to +16.2 %.
TEST(suite_run, NarayananWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kNarayanan);
  EXPECT_EQ(g.all.count, 10);
  EXPECT_TRUE(g.target.none());
  EXPECT_LE(g.all.mape, 13.5);
  EXPECT_LE(g.all.max_abs, 17.5);
}

// No target (nothing is fitted on these steps): Megatron-style GPT steps in PyTorch eager on one
// H100, measured by this project (2026-11-28), an independent check of the h100-sxm preset, whose
// GEMM, attention and bandwidth figures then all came from public tables. Measured (DES): 5
// evaluated, MAPE 13.5 %, max 18.8 % (h 4096, 4 layers, mb 2: 71.3 ms measured, 57.9 predicted);
// every row too fast, -3.5 to -18.8 %. With the preset's GEMMs from the same run's sweep (later
// that day; the sweep's GEMMs, not the steps, so nothing here was fitted on them): MAPE 12.5 %,
// max 18.5 % (58.1 ms predicted), -5.4 to -18.5 %, 2 of 5 within 10 %. On the four GPU-bound
// configs forward+backward are 1-15 % short (6-15 % before), the optimizer 28-49 % (the script's
// clip, fused AdamW, copy back and zeroing move about 50 B per parameter, Megatron's optimizer that
// the model prices 42 B); README "On a real GPU (H100, 2026-11-28)". After measured kernels
// stopped paying the launch overhead twice, with one launch as every kernel's least time
// (2026-11-28, final rule): MAPE 12.9 %, max 18.7 % (58.0 ms predicted), -5.4 to -18.7 %, 1 of
// 5 within 10 %. Since 2026-11-30 the scenarios write two things the script does to its
// gradients, which the H200 run's profile of these steps showed (training.grad_accumulation_fusion
// false: the hook's add into the fp32 buffer, 10 B per parameter; grad_clip_scaling always:
// clip_grad_norm_'s scaling, 8 B per parameter): MAPE 6.8 %, max 9.8 % (64.3 ms predicted),
// -3.8 to -9.8 %, 5 of 5 within 10 %.
TEST(suite_run, H100PytorchWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kH100Pytorch);
  EXPECT_EQ(g.all.count, 5);
  EXPECT_TRUE(g.target.none());
  EXPECT_LE(g.all.mape, 8.0);
  EXPECT_LE(g.all.max_abs, 11.0);
}

// No target (nothing is fitted on these steps): the same script on one H200 (2026-11-30), its
// five configurations and three more (full recomputation, h 8192, sequence 8192), on the h200-sxm
// preset (GEMM tables from this project's H200 sweep of 2026-11-27; attention at the
// pytorch-sdpa-flash rates measured the same day as the steps). Measured (DES, 2026-11-30): MAPE
// 10.5 %, max 13.1 % (h 8192, 2 layers, mb 2: 120.1 ms measured, 104.3 predicted), -13.1 to
// +7.4 %, 3 of 8 within 10 %; before the two gradient keys above MAPE 15.0 %, max 20.5 %.
TEST(suite_run, H200PytorchWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kH200Pytorch);
  EXPECT_EQ(g.all.count, 8);
  EXPECT_TRUE(g.target.none());
  EXPECT_LE(g.all.mape, 11.5);
  EXPECT_LE(g.all.max_abs, 14.5);
}

// No target (an independent check, nothing fitted on it): BLOOM 176B's logged 105.22 s iteration
// on 384 A100 80GB. Measured (DES, 2026-11-30): 91.87 s predicted, -12.7 % (170.7 TFLOP/s per GPU
// counted as the log counts, against its 149.02), too fast as the Narayanan rows of the same
// hardware generation are; 86.32 s, -18.0 %, before the scenario wrote DeepSpeed's BF16
// optimizer's per-micro-batch copy and add of every gradient (grad_accumulation_fusion false,
// cast separate), whose loss the bound catches; README "Validation against published runs".
TEST(suite_run, BloomWithinRegressionBounds) {
  const GroupSummary& g = group(des_result(), Group::kBloom);
  EXPECT_EQ(g.all.count, 1);
  EXPECT_TRUE(g.target.none());
  EXPECT_LE(g.all.mape, 13.5);
}

// The analytic model runs every case too. Measured: group MAPEs within 1.5 points of the DES's
// (2026-11-26, with the measured attention rates, the loss's traffic and fp32 gradients where
// Megatron or FSDP's DEFAULT mode reduce in fp32: vTrain 7.4, vTrain multi-node 9.6,
// Korthikanti 3.5, Megatron-Core 14.7, MosaicML 9.3, MosaicML all tables 26.8 %); the README
// documents the two modes agreeing within 5 % on the shipped examples.
TEST(suite_run, AnalyticModeRunsEveryCase) {
  const SuiteResult a = run_suite({{}, Mode::kAnalytic});
  const SuiteResult& d = des_result();
  ASSERT_EQ(a.cases.size(), d.cases.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {
    EXPECT_EQ(a.groups[i].not_evaluated, 0) << group_name(a.groups[i].group);
    EXPECT_NEAR(a.groups[i].all.mape, d.groups[i].all.mape, 5.0) << group_name(a.groups[i].group);
  }
}

TEST(suite_run, ChosenGroupsOnlyInTheOrderGiven) {
  const SuiteResult r = run_suite({{Group::kMosaicml, Group::kKorthikanti}, Mode::kDes});
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].group, Group::kMosaicml);
  EXPECT_EQ(r.cases.size(), 7u + 8u);
  EXPECT_EQ(r.cases.front().c.id, "MPT-A1");
}

// A case that cannot run is a result with its reason, counted against the group's target.
TEST(suite_run, InfeasibleAndRejectedCasesKeepTheirReason) {
  Case c = korthikanti_cases().front();  // 22B, TP 8 on 8 GPUs
  c.scenario["parallel"]["tp"] = 1;      // all 22B on one GPU: does not fit in 80 GB
  c.scenario["cluster"]["gpus_per_node"] = 1;
  c.scenario["cluster"]["nodes"] = 1;
  const CaseResult infeasible = evaluate_case(c, Mode::kDes);
  EXPECT_EQ(infeasible.outcome, Outcome::kInfeasible);
  EXPECT_NE(infeasible.reason.find("memory"), std::string::npos) << infeasible.reason;

  c = korthikanti_cases().front();
  c.scenario["parallel"]["tp"] = 3;  // 64 heads do not split over 3
  const CaseResult rejected = evaluate_case(c, Mode::kDes);
  EXPECT_EQ(rejected.outcome, Outcome::kRejected);
  EXPECT_FALSE(rejected.reason.empty());

  const GroupSummary g = summarize(Group::kKorthikanti, {&infeasible, &rejected});
  EXPECT_EQ(g.not_evaluated, 2);
  EXPECT_EQ(g.all.count, 0);
  EXPECT_FALSE(g.met);
}

// Error statistics by hand: errors -5 %, +20 %, -2 % -> MAPE (5 + 20 + 2) / 3 = 9 %, max 20 %.
TEST(suite_run, ErrorStatistics) {
  std::vector<CaseResult> rs(3);
  const double errors[] = {-5, 20, -2};
  for (int i = 0; i < 3; ++i) {
    rs[i].c.id = "case" + std::to_string(i);
    rs[i].signed_pct_error = errors[i];
    rs[i].abs_pct_error = std::abs(errors[i]);
  }
  const ErrorStats s = error_stats({&rs[0], &rs[1], &rs[2]});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.mape, 9.0);
  EXPECT_DOUBLE_EQ(s.max_abs, 20.0);
  EXPECT_EQ(s.worst, "case1");
  EXPECT_EQ(s.within_10, 2);
  // Target "each row within +-10 %": case1 breaks it.
  rs[0].c.group = rs[1].c.group = rs[2].c.group = Group::kMcore;
  EXPECT_FALSE(summarize(Group::kMcore, {&rs[0], &rs[1], &rs[2]}).met);
  EXPECT_TRUE(summarize(Group::kMcore, {&rs[0], &rs[2]}).met);
}

// A group without a target (vtrain-multi, an independent check) is never "met" and never fails
// all_targets_met, whatever its errors: one case 30 % off, and a suite of it alone.
TEST(suite_run, GroupWithoutTargetNeverGatesTheSuite) {
  EXPECT_TRUE(target_of(Group::kVtrainMulti).none());
  EXPECT_FALSE(target_of(Group::kVtrain).none());
  EXPECT_FALSE(target_of(Group::kMemory).none());  // exact counts as a target
  CaseResult r;
  r.c.group = Group::kVtrainMulti;
  r.signed_pct_error = 30;
  r.abs_pct_error = 30;
  SuiteResult suite;
  suite.groups.push_back(summarize(Group::kVtrainMulti, {&r}));
  EXPECT_FALSE(suite.groups[0].met);
  EXPECT_TRUE(suite.all_targets_met());
  const nlohmann::json j = suite_report_json(suite);
  EXPECT_TRUE(j["suite"]["groups"][0]["met"].is_null()) << j["suite"]["groups"][0].dump();
  EXPECT_TRUE(j["suite"]["all_targets_met"].get<bool>());
}

// The schema is checked by tests/golden/validate_reports.py (a real JSON Schema validator).
TEST(suite_report, JsonIsDeterministic) {
  const std::string a = suite_report_json(des_result()).dump(2);
  const std::string b = suite_report_json(run_suite({{}, Mode::kDes})).dump(2);
  EXPECT_EQ(a, b);  // byte-identical for the same input
}

TEST(suite_report, CsvHasOneRowPerCase) {
  const std::string csv = suite_report_csv(des_result());
  std::size_t lines = 0;
  for (char ch : csv) lines += ch == '\n' ? 1 : 0;
  EXPECT_EQ(lines, des_result().cases.size() + 1);  // header + cases
}

TEST(suite_report, TextNamesEveryGroupAndItsTarget) {
  const std::string text = suite_report_text(des_result());
  for (Group g : kAllGroups) {
    EXPECT_NE(text.find("== " + group_name(g) + ":"), std::string::npos) << group_name(g);
    EXPECT_NE(text.find(target_of(g).text), std::string::npos) << group_name(g);
  }
  // Every group names its profile and whether it is fitted (the A100/H100 presets are).
  EXPECT_NE(text.find("(fitted from measurements)"), std::string::npos);
}

}  // namespace
}  // namespace shardsim::suite
