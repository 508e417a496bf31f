// The discrete-event schedules against the closed forms of Narayanan et al. SC'21 §2.2 (GPipe,
// 1F1B, interleaved) and Qi et al. ICLR'24 (ZB-H1, ZB-H2), on synthetic costs with equal stage
// times (published/README §4.1 and §5): one forward f, backward-input b, backward-weight w per
// layer and micro-batch, no communication.
#include <gtest/gtest.h>

#include <tuple>

#include "simulator/analytic/analytic.h"
#include "simulator/cost/contention.h"
#include "simulator/des/step_sim.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"
#include "tests/des/des_fixtures.h"

namespace shardsim {
namespace {

// `layers` layers over pp stages, the first and last holding `first` and `last`.
Scenario split_pipeline(int pp, int m, const std::string& schedule, int layers, int first,
                        int last) {
  return edited_pipeline(pp, m, schedule, [&](nlohmann::json& raw) {
    raw["model"]["layers"] = layers;
    raw["parallel"]["first_stage_layers"] = first;
    raw["parallel"]["last_stage_layers"] = last;
  });
}

// Two stages of uniform layers (f = b = w = 1) with one gradient bucket of `seconds` per stage and
// micro-batch: layer 0's on stage 0, layer 1's on stage 1 (each stage's first block).
StepCosts one_bucket_per_stage(const Plan& plan, int layers, double seconds) {
  StepCosts c = uniform(plan, layers, 1, 1, 1);
  c.stages[0].buckets.push_back({0, 1e6, seconds});
  c.stages[1].buckets.push_back({1, 1e6, seconds});
  return c;
}

struct Outcome {
  StepResult des;
  AnalyticResult analytic;
};

Outcome run(int pp, int vpp, int m, const std::string& schedule, double f = 1, double b = 1,
            double w = 1, double p2p = 0) {
  const Scenario s = pipeline(pp, vpp, m, schedule);
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, pp * vpp, f, b, w);
  c.p2p_seconds = p2p;
  return {simulate_step(s, plan, c), analytic_step(s, plan, c)};
}

TEST(Schedules, OneFOneBBubbleIsPMinusOneOverMPlusPMinusOne) {
  // p = 4, m = 8, f = b = w = 1 (1F1B runs b and w together: 2 per micro-batch):
  // step = (m + p - 1)(f + b + w) = 11 x 3 = 33; bubble (p-1)/(m+p-1) of it = 9.
  const Outcome r = run(4, 1, 8, "1f1b");
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 33);
  EXPECT_DOUBLE_EQ(r.des.breakdown[TimeCategory::kBubble], 33.0 * 3 / 11);
  EXPECT_DOUBLE_EQ(r.des.breakdown.total(), r.des.step_seconds);  // categories sum to the step
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 33);
}

TEST(Schedules, GpipeHasTheSameBubbleAsOneFOneB) {
  // GPipe: all m forwards, then all backwards: (m + p - 1)(f + b + w) = 33 as well.
  const Outcome r = run(4, 1, 8, "gpipe");
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 33);
  EXPECT_DOUBLE_EQ(r.des.breakdown[TimeCategory::kBubble], 9);
}

TEST(Schedules, InterleavedBubbleIsPMinusOneOverVmOfIdeal) {
  // p = 4, v = 2, m = 8, one layer per chunk: ideal = m v (f + b + w) = 48;
  // bubble = (p - 1)/(v m) x ideal = 3/16 x 48 = 9.
  const Outcome r = run(4, 2, 8, "interleaved");
  EXPECT_DOUBLE_EQ(r.des.breakdown[TimeCategory::kBubble], 9);
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 57);
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 57);
}

// Interleaved with unequal chunks: 8 layers over p 3 x v 2 virtual stages split 1, 2, 2, 1, 1, 1
// (plan.cc split_layers), so stage 0 holds 1 + 1 layers, stages 1 and 2 hold 2 + 1; f = 1 and
// b + w = 2 per layer, m = 3. Stage 2 starts once micro-batch 0 has crossed chunk 0 of stages 0
// and 1 (1 + 2 s), runs its 3 x 9 s without a stall, and ends when the last backward has crossed
// those chunks back (2 + 4 s): 3 + 27 + 6 = 36, what the DES gives. The closed form before
// 2026-11-29 took a v-th of every other stage on the bottleneck (stage 1, the first of the two
// 9 s stages): 27 + (6 + 9) / 2 = 34.5; that bound stays in (analytic.cc interleaved_path).
TEST(Schedules, InterleavedUnequalChunksTakeTheLongerBound) {
  nlohmann::json raw = pipeline(3, 2, 3, "interleaved").resolved;
  raw["model"]["layers"] = 8;
  const Scenario s = scenario_from_json(raw, "");
  const Plan plan = make_plan(s);
  ASSERT_EQ(plan.stages[1].chunks[0].layers, 2);
  ASSERT_EQ(plan.stages[2].chunks[0].layers, 2);
  const StepCosts c = uniform(plan, 8, 1, 1, 1);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 36);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 36);
}

TEST(Schedules, ZbH1BubbleIsOneThirdOfOneFOneB) {
  // Qi et al.: ZB-H1 bubble = (p - 1)(f + b - w) = 3 x 1 = 3, a third of 1F1B's 9 when f = b = w.
  const Outcome r = run(4, 1, 8, "zb-h1");
  EXPECT_NEAR(r.des.breakdown[TimeCategory::kBubble], 3, 1e-9);
  EXPECT_NEAR(r.des.step_seconds, 27, 1e-9);
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 27);
}

TEST(Schedules, ZbH2BubbleIsZero) {
  // ZB-H2 (up to 2p - 1 micro-batches in flight): every stage is busy for its whole span, so the
  // steady-state step (consecutive steps overlapping as a parallelogram, Qi et al. §2.2) is
  // m(f + b + w) = 24 with no bubble.
  const Outcome r = run(4, 1, 8, "zb-h2");
  EXPECT_NEAR(r.des.breakdown[TimeCategory::kBubble], 0, 1e-9);
  EXPECT_NEAR(r.des.step_seconds, 24, 1e-9);
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 24);  // (p-1) max(0, f + b - 2w) = 0
}

TEST(Schedules, TransfersAndUnequalPassesMatchTheClosedForms) {
  // GPipe with a 0.25 s transfer: (m + p - 1)(f + b + w) + 2(p - 1) transfers = 33 + 1.5.
  EXPECT_DOUBLE_EQ(run(4, 1, 8, "gpipe", 1, 1, 1, 0.25).des.step_seconds, 34.5);
  // Interleaved (p 4, v 2, m 8): 57 + a transfer across each of the 2(pv - 1) = 14 boundaries.
  const Outcome il = run(4, 2, 8, "interleaved", 1, 1, 1, 0.25);
  EXPECT_DOUBLE_EQ(il.des.step_seconds, 60.5);
  EXPECT_DOUBLE_EQ(il.analytic.step_seconds, 60.5);
  // ZB-H1 with w = 2 > b: the bubble cannot drop below the forward fill (p - 1) f, so the step is
  // m (f + b + w) + (p - 1) f = 32 + 3.
  const Outcome zb = run(4, 1, 8, "zb-h1", 1, 1, 2);
  EXPECT_DOUBLE_EQ(zb.des.step_seconds, 35);
  EXPECT_DOUBLE_EQ(zb.analytic.step_seconds, 35);
  // ZB-H2 with m = 4 < 2p - 1: its warm-up cannot fill; it behaves as ZB-H1: 12 + (p - 1) = 15.
  const Outcome few = run(4, 1, 4, "zb-h2");
  EXPECT_DOUBLE_EQ(few.des.step_seconds, 15);
  EXPECT_DOUBLE_EQ(few.analytic.step_seconds, 15);
  // 1F1B keeps the round trip on its steady-state path. p 4, m 8, t 0.25 (f = 1, b + w = 2):
  // the events give 37 s. The closed form (analytic.cc one_f_one_b) takes the longest stage path;
  // stage 1's: its predecessor's 3 + 2t = 3.5, its 8 x 3 = 24, and with a = 3 micro-batches in
  // its warm-up and the round trip D = 2 x 3 + 4t = 7, waits 7 - 2 x 1 = 5 (first backward),
  // 7 - 2 x 2 = 3 (last) and floor((m - 1) / a) - 1 = floor(7 / 3) - 1 = 1 steady round trip of 7 -
  // 2 x 3 = 1: 36.5 s (stage 0's 36, stage 2's 36, stage 3's 34.5), 1.4 % short of the events. p 8,
  // m 32, t 0.1: within 0.5 %.
  const Outcome small = run(4, 1, 8, "1f1b", 1, 1, 1, 0.25);
  EXPECT_DOUBLE_EQ(small.des.step_seconds, 37);
  EXPECT_DOUBLE_EQ(small.analytic.step_seconds, 36.5);
  const Outcome deep = run(8, 1, 32, "1f1b", 1, 1, 1, 0.1);
  EXPECT_NEAR(deep.analytic.step_seconds, deep.des.step_seconds, 0.005 * deep.des.step_seconds);
}

// 1F1B with a heavy first stage: 4 stages of 3, 1, 1, 1 layers (f = b = w = 1 per layer, so
// stage 0 takes f = 3, b + w = 6 per micro-batch, the others 1 and 2), m = 4, no transfers.
// Events: stage 0 runs its 4 forwards 0-12; micro-batch 1's round trip through stages 1-3
// (3 x 3 s) returns at 3 + 9 = 12, micro-batch j's at 3j + 9, so its 4 backwards run 12-36
// without a gap: the step is m (f + b + w) = 36, every other stage hidden behind its warm-up.
// The closed form's stage-0 path: 36 + max(0, D - (m - 1) min(f, b)) = 36 + max(0, 9 - 9);
// stage 1's: its predecessor's 9 + 4 x 3 + waits max(0, 6 - 2 x 1) + max(0, 6 - 2 x 2) = 27.
// (Until 2026-11-27 the closed form added every other stage's whole fill/drain, 36 + 9 = 45 s:
// found by review, +24 % against the DES on a 24-layer model cut 12, 4, 4, 4.)
TEST(Schedules, AHeavyFirstStageHidesTheOthersBehindItsWarmUp) {
  const Scenario s = split_pipeline(4, 4, "1f1b", 6, 3, 1);
  const Plan plan = make_plan(s);
  const StepCosts c = uniform(plan, 6, 1, 1, 1);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 36);
  const AnalyticResult a = analytic_step(s, plan, c);
  EXPECT_DOUBLE_EQ(a.step_seconds, 36);
  EXPECT_DOUBLE_EQ(a.breakdown[TimeCategory::kBubble], 0);
  EXPECT_EQ(a.bottleneck_stage, 0);
}

// A stage's first backward waits for the later stages' first backwards, and stage j runs its
// first backward only after its forward of micro-batch min(p - j - 1, m - 1), which a heavy
// stage k delivers late (found by review 2026-11-27: -8.6 % against the DES on llama3-70b cut
// 60/9/9/2 at 2 micro-batches). 1F1B, 3 stages of 4, 1 and 1 layers, m = 2, f = 1 and
// b + w = 2 per layer (stage 0: f 4, b 8). Events: stage 0 F0 0-4, F1 4-8, B0 11-19, B1 19-27;
// stage 1 F0 4-5, F1 8-9, B0 9-11, B1 12-14; stage 2 F0 5-6, B0 6-8, F1 9-10, B1 10-12: 27 s.
// Closed form, stage 0's path: its 2 x (4 + 8) = 24 and its first backward's wait. Stage 1's
// first backward follows its F1, which ends at 4 + 4 (stage 0's two forwards) + 1 = 9; its B0
// then ends at 11, 3 s after stage 0's forwards: 24 + 3 = 27. (Before, the wait counted only the
// round trip after F0, D - f0 = 6 - 4 = 2: 26.)
TEST(Schedules, AHeavyStageDelaysTheForwardThatReleasesTheFirstBackward) {
  const Scenario s = split_pipeline(3, 2, "1f1b", 6, 4, 1);
  const Plan plan = make_plan(s);
  const StepCosts c = uniform(plan, 6, 1, 1, 1);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 27);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 27);
}

// The tail after the last backward. 1F1B, 2 stages of one layer, 2 micro-batches, f = b = w = 1,
// no transfers, and a 3 s optimizer step on the last stage only. Events: stage 1 runs F1 1-2,
// B1 2-4, F2 4-5, B2 5-7, then its optimizer 7-10; stage 0 runs F1 0-1, F2 1-2, B1 4-6, B2 7-9:
// the step is 10 s. Closed form: the pipeline ends at m (f + b + w) + the other stage's
// fill/drain = 6 + 3 = 9 s, and stage 1 ends its last backward one stage-0 backward (b + w = 2 s)
// earlier, so its 3 s tail shows 1 s: 10 s. (Until 2026-11-27 the closed form took the
// bottleneck stage's tail, stage 0's 0 s here, after the drain: 9 s; found by review.)
// Two stages of one layer, f = b = w = 1, no transfers, a 3 s optimizer step on the last stage.
Outcome late_optimizer(int m, const std::string& schedule) {
  const Scenario s = pipeline(2, 1, m, schedule);
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 2, 1, 1, 1);
  c.stages[1].optimizer_seconds = 3;
  return {simulate_step(s, plan, c), analytic_step(s, plan, c)};
}

TEST(Schedules, ALaterStagesTailOverlapsTheEarlierStagesDrain) {
  const Outcome r = late_optimizer(2, "1f1b");
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 10);
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 10);
  EXPECT_DOUBLE_EQ(r.analytic.breakdown[TimeCategory::kOptimizer], 1);
}

// ZB-H1 with unequal stages takes the longest stage path too (pipeline_paths.h zb_h1_path). Two
// stages of 3 and 1 layers, m = 2, f = b = w = 1 per layer (stage 0: 3 s per pass). Programs
// (plan/schedule.h): stage 0 F0 | F1 B0 W0 | B1 W1; stage 1 F0 B0 | F1 B1 W0 | W1. Events:
// stage 0 F0 0-3, F1 3-6, B0 6-9 (stage 1's B0 ended at 5), W0 9-12, B1 12-15 (stage 1's at 8),
// W1 15-18; stage 1 F0 3-4, B0 4-5, F1 6-7, B1 7-8, W0 8-9, W1 9-10: 18 s. Stage 0's path:
// m (f + b + w) = 18 with no wait (its forward F1, 3 s, covers the 2 s round trip through stage 1
// that its first backward waits for), and nothing upstream to drain: 18. Stage 1's: stage 0's
// forward 3 + its 6 s + stage 0's backward and weight pass after its last backward (3 + 3, longer
// than its own two weight passes, 2) - 2 = 13. Until 2026-11-27 the bottleneck's work plus the
// other stage's fill max(f, f + b - w) = 1 s: 19.
TEST(Schedules, ZbH1AHeavyStageKeepsTheLightOneOffItsPath) {
  const Scenario s = split_pipeline(2, 2, "zb-h1", 4, 3, 1);
  const Plan plan = make_plan(s);
  const StepCosts c = uniform(plan, 4, 1, 1, 1);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 18);
  const AnalyticResult a = analytic_step(s, plan, c);
  EXPECT_DOUBLE_EQ(a.step_seconds, 18);
  EXPECT_EQ(a.bottleneck_stage, 0);
}

// ZB-H1's stage k ends with min(k + 1, m) weight passes after its last backward, so a later
// stage can finish first and its tail overlap the earlier stages' drain. Two stages of one layer,
// m = 1, f = b = w = 1, a 3 s optimizer step on stage 1. Events: stage 0 F0 0-1, B0 3-4, W0 4-5;
// stage 1 F0 1-2, B0 2-3, W0 3-4, optimizer 4-7: 7 s. Closed form: the pipeline ends at 5; stage
// 1 ends at its weight pass (1 s after its last backward), stage 0 after its backward and weight
// pass (2 s), so stage 1 leads by 1 s and its tail shows 2 s: 7. (Until 2026-11-27 every
// zero-bubble stage's tail followed the end: 8.)
TEST(Schedules, ZbH1ALaterStagesTailOverlapsTheDrain) {
  const Outcome r = late_optimizer(1, "zb-h1");
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 7);
  EXPECT_DOUBLE_EQ(r.analytic.step_seconds, 7);
  EXPECT_DOUBLE_EQ(r.analytic.breakdown[TimeCategory::kOptimizer], 2);
}

// ZB-H2's step is each stage's span from its first forward (consecutive steps overlap: Qi et
// al.'s optimizer post-validation), so the pipeline's fill is not on it (pipeline_paths.h
// zb_h2_span). Two stages of 1 and 3 layers, m = 1, f = b = w = 1 per layer. Events: stage 0 F0
// 0-1, B0 7-8, W0 8-9; stage 1 F0 1-4, B0 4-7, W0 7-10. Spans: stage 0 0-9, stage 1 1-10: 9 s.
// Closed form: stage 0's 3 s and its wait for the round trip through stage 1 (6 s) = 9; stage
// 1's own 9 s. (Until 2026-11-27 the bottleneck's 9 s plus stage 0's fill/drain, 2 s: 11.)
TEST(Schedules, ZbH2StepIsTheLongestStageSpan) {
  const Scenario s = split_pipeline(2, 1, "zb-h2", 4, 1, 3);
  const Plan plan = make_plan(s);
  const StepCosts c = uniform(plan, 4, 1, 1, 1);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 9);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 9);
}

TEST(Schedules, SingleStageHasNoBubble) {
  const Outcome r = run(1, 1, 4, "1f1b");
  EXPECT_DOUBLE_EQ(r.des.step_seconds, 12);  // 4 micro-batches x 3
  EXPECT_DOUBLE_EQ(r.des.breakdown[TimeCategory::kBubble], 0);
}

// One stage of 4 layers, one micro-batch, f = b = w = 1, and a bucket of `seconds` after each
// layer's backward.
FourLayers four_layers(double seconds, bool overlap = true, int zero = 0, int micro_batches = 1) {
  nlohmann::json raw = pipeline(1, 1, micro_batches, "1f1b").resolved;
  raw["model"]["layers"] = 4;
  raw["parallel"]["overlap_grad_reduce"] = overlap;
  raw["parallel"]["zero"] = zero;
  FourLayers f{scenario_from_json(raw, ""), {}, {}};
  f.plan = make_plan(f.scenario);
  f.costs = uniform(f.plan, 4, 1, 1, 1);
  for (int l = 3; l >= 0; --l) f.costs.stages[0].buckets.push_back({l, 1e6, seconds});
  return f;
}

TEST(DataParallel, OverlappedReductionHidesBehindBackward) {
  // One stage, one micro-batch, 4 layers, f = b = w = 1 and a 0.5 s bucket after each layer's
  // backward. Backward of layers 3..0 ends at 4 + 2k (k = 1..4); each bucket starts when its layer
  // finishes and takes 0.5 s, so only the last bucket (after layer 0, at t = 12) is exposed.
  const FourLayers f = four_layers(0.5);
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(r.step_seconds, 12.5);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 0.5);
  // Without overlap all four buckets (2 s) follow the backward pass.
  const FourLayers g = four_layers(0.5, false);
  EXPECT_DOUBLE_EQ(simulate_step(g.scenario, g.plan, g.costs).step_seconds, 14);
}

// Interleaved, pp 2 x vpp 2 (stage 0 holds layers 0 and 2, stage 1 layers 1 and 3), 4
// micro-batches, f = b = w = 1, a 3 s bucket after each layer. Without overlap Megatron reduces
// every bucket in finalize_model_grads, after the stage's whole backward: both of a stage's
// buckets (6 s) follow its last backward item, whose chunk 0 ends the schedule. Stage 0 ends last
// (it runs the final backward), so the step grows by exactly 6 s over the same step without
// buckets, in both modes. Found by review (2026-11-28): the event model reduced chunk 1's bucket
// after chunk 1's last backward, hiding it behind chunk 0's.
TEST(DataParallel, WithoutOverlapEveryChunksBucketsFollowTheStagesLastBackward) {
  nlohmann::json raw = pipeline(2, 2, 4, "interleaved").resolved;
  raw["parallel"]["overlap_grad_reduce"] = false;
  const Scenario s = scenario_from_json(raw, "");
  const Plan plan = make_plan(s);
  const StepCosts bare = uniform(plan, 4, 1, 1, 1);
  StepCosts c = bare;
  c.stages[0].buckets = {{2, 1e6, 3}, {0, 1e6, 3}};
  c.stages[1].buckets = {{3, 1e6, 3}, {1, 1e6, 3}};
  const StepResult r = simulate_step(s, plan, c);
  EXPECT_DOUBLE_EQ(r.step_seconds, simulate_step(s, plan, bare).step_seconds + 6);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 6);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds,
                   analytic_step(s, plan, bare).step_seconds + 6);
}

TEST(DataParallel, ReductionLongerThanBackwardIsExposedByTheDifference) {
  // Buckets of 3 s each: the dp stream is busy from t = 6 (first bucket) for 12 s -> ends at 18;
  // backward ends at 12, so 6 s are exposed.
  const FourLayers f = four_layers(3);
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(r.step_seconds, 18);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 6);
}

// ZeRO-2 reduces every micro-batch's gradients. With one micro-batch that is ZeRO-1's one
// reduction, in both modes (found by review, 2026-11-27: the closed form hid the last reduction
// behind a whole micro-batch that never follows it, making ZeRO-2 faster than ZeRO-1).
// With two micro-batches of 4 x (f + b + w) = 12 s and 5 s buckets (20 s per reduction):
//  - events: micro-batch 1's buckets are ready at 6, 8, 10, 12 and run back to back 6-26;
//    micro-batch 2's (ready at 18-24) follow, 26-46; compute ends at 24: 22 s exposed, step 46;
//  - closed form: (total - backward) + (m - 1)(total - micro-batch) = (20 - 8) + (20 - 12) = 20 s,
//    step 44. It starts the stream at the backward's start rather than after the first layer's
//    backward (2 s later), the same approximation as ZeRO-1's (12 -> 4 s exposed where the events
//    give 6 in ReductionLongerThanBackwardIsExposedByTheDifference).
TEST(DataParallel, ZeroTwoReducesEachMicroBatchAndTheLastOnlyBehindItsBackward) {
  for (const double bucket : {0.5, 3.0}) {
    const FourLayers one = four_layers(bucket, true, 1), two = four_layers(bucket, true, 2);
    EXPECT_DOUBLE_EQ(analytic_step(two.scenario, two.plan, two.costs).step_seconds,
                     analytic_step(one.scenario, one.plan, one.costs).step_seconds);
    EXPECT_DOUBLE_EQ(simulate_step(two.scenario, two.plan, two.costs).step_seconds,
                     simulate_step(one.scenario, one.plan, one.costs).step_seconds);
  }
  const FourLayers f = four_layers(5, true, 2, 2);
  EXPECT_DOUBLE_EQ(simulate_step(f.scenario, f.plan, f.costs).step_seconds, 46);
  EXPECT_DOUBLE_EQ(analytic_step(f.scenario, f.plan, f.costs).step_seconds, 44);
}

// ZeRO-2 under ZB-H1: the last stage defers k of its weight passes to the end, where their
// reductions have only a weight pass behind them (analytic reduction_covers). Two stages of one
// layer, m = 4, f = b = w = 1, no transfer time, one 2.5 s bucket per stage and micro-batch.
//  - Programs (plan/schedule.h): stage 0 F0 | F1 B0 W0 | F2 B1 W1 | F3 B2 W2 | B3 W3; stage 1
//    F0 B0 | F1 B1 W0 | F2 B2 W1 | F3 B3 W2 | W3. Events: stage 0 F0 0-1, F1 1-2, B0 3-4 (after
//    stage 1's B0 2-3), W0 4-5, F2 5-6, B1 6-7, W1 7-8, F3 8-9, B2 9-10, W2 10-11, B3 11-12,
//    W3 12-13; stage 1 F0 1-2, B0 2-3, F1 3-4, B1 4-5, W0 5-6, F2 6-7, B2 7-8, W1 8-9, F3 9-10,
//    B3 10-11, W2 11-12, W3 12-13. Stage 1's reductions start as its weight passes end (6, 9,
//    12) and queue: 6-8.5, 9-11.5, 12-14.5, 14.5-17; the step ends at 17 (stage 0's at 16).
//  - Closed form: stage 0's path, 4 x 3 = 12 s and its first backward's 1 s wait (stage 1's F0
//    and B0, 2 s after its F0, against its F1, 1 s): 13 s of compute. Stage 1 (k = 1, no
//    warm-up): W0 and W1 have a whole micro-batch behind them (the next F B W), W2 (before the
//    deferred W3) a weight pass, W3 its own: (2.5 - 1) + 2 x max(0, 2.5 - 3) + (2.5 - 1) = 3 s
//    exposed, step 16. Like ZeRO-1's (ReductionLongerThanBackwardIsExposedByTheDifference) it
//    overlaps the last reduction with its own weight pass where one layer's bucket cannot.
//    Until 2026-11-27 the zero-bubble schedules were taken as steady to the end (every
//    reduction but the last behind a whole micro-batch): 2.5 s, step 15.5.
TEST(DataParallel, ZeroTwoUnderZbH1ExposesTheDeferredWeightPassesReductions) {
  const Scenario s =
      edited_pipeline(2, 4, "zb-h1", [](nlohmann::json& raw) { raw["parallel"]["zero"] = 2; });
  const Plan plan = make_plan(s);
  const StepCosts c = one_bucket_per_stage(plan, 2, 2.5);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 17);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 16);
}

// ZeRO-2 without overlap: each micro-batch's reduction is synchronous, so a backward item ends
// (and sends its gradient on) only after it, except the last micro-batch's, which runs beside
// the drain. Two stages of one layer, m = 2, f = 1 and a backward item of b + w = 2, no transfer
// time, one 1.5 s bucket per stage and micro-batch (r).
//  - 1F1B (stage 0: F0 F1 B0 B1; stage 1: F0 B0 F1 B1): stage 1 F0 1-2, B0 2-4, r 4-5.5, sends;
//    stage 0 B0 5.5-7.5, r 7.5-9; stage 1 F1 5.5-6.5, B1 6.5-8.5 (its r after, to 10); stage 0
//    B1 9-11, r 11-12.5: step 12.5. Closed form (one_f_one_b_path, stage 0): 2 (f + b + r) = 9,
//    its first backward's wait f + (b + r) of stage 1 less its own forward, 3.5, and its own
//    last r after its last compute: 12.5.
//  - GPipe (F0 F1 B0 B1 on both): stage 1 B0 3-5, r 5-6.5; stage 0 B0 6.5-8.5, r 8.5-10, B1
//    10-12, r 12-13.5: step 13.5. Closed form: the bottleneck's 2 (f + b + r) = 9 and the other
//    stage's fill/drain f + b + r = 4.5 (its first backward, which waits for r): 13.5.
// Until 2026-11-29 the closed form put all the reductions after the stage's last backward,
// beside the drain (12 s under both schedules), so no stage waited for another's: down to -35 %
// against the event model on a real plan (found by a metamorphic review).
// The host bound of an item that reduces gradients overlapped is priced unit by unit, as the
// DES issues it (a segment per unit). One stage of two layers, one micro-batch, f = 1, b = w = 1,
// host_sync_fraction 0.5, layer 0's backward taking 3 s of host dispatch, nothing else on the
// host. Overlapped (the last micro-batch's backward reduces overlapped): layer 1's backward waits
// for no host, layer 0's for max(0, 3 - 2) + 0.5 x 2 = 2 s: step 2 + 4 + 2 = 8. Not overlapped,
// the backward is one item: max(0, 3 - 4) + 0.5 x min(3, 4) = 1.5 s, step 7.5. The closed form
// priced both as one item until 2026-11-29 (7.5 for the first; found by review).
TEST(DataParallel, AnOverlappedReducingItemsHostBoundIsPricedPerUnit) {
  for (const bool overlap : {true, false}) {
    nlohmann::json raw = pipeline(1, 1, 1, "1f1b").resolved;
    raw["model"]["layers"] = 2;
    raw["parallel"]["overlap_grad_reduce"] = overlap;
    raw["framework"]["host_sync_fraction"] = 0.5;
    const Scenario s = scenario_from_json(raw, "");
    const Plan plan = make_plan(s);
    StepCosts c = uniform(plan, 2, 1, 1, 1);
    std::vector<LayerCost> layers(2, c.layer(0));
    layers[0].work.host_bwd_input = 3;
    c.set_layers(std::move(layers));
    const double step = overlap ? 8 : 7.5;
    EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, step) << overlap;
    EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, step) << overlap;
  }
}

TEST(DataParallel, ZeroTwoWithoutOverlapHoldsEachBackwardButTheLast) {
  for (const auto& [schedule, step] : {std::pair{"1f1b", 12.5}, {"gpipe", 13.5}}) {
    const Scenario s = edited_pipeline(2, 2, schedule, [](nlohmann::json& raw) {
      raw["parallel"]["zero"] = 2;
      raw["parallel"]["overlap_grad_reduce"] = false;
    });
    const Plan plan = make_plan(s);
    const StepCosts c = one_bucket_per_stage(plan, 2, 1.5);
    EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, step) << schedule;
    EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, step) << schedule;
  }
  // A heavier last stage sets the path, and the first stage's last reduction follows the drain.
  // 1F1B, layers 1 + 2 (stage 1: f = 2, backward 4), r = 0.5 on each stage. Events: stage 1 F0
  // 1-3, B0 3-7, r 7-7.5, F1 7.5-9.5, B1 9.5-13.5; stage 0 B0 7.5-9.5, r 9.5-10, B1 13.5-15.5,
  // r 15.5-16: step 16. Closed form: stage 1's path f0 + 2 (f1 + b1 + r1) less its last r, then
  // stage 0's last backward: 1 + 13 - 0.5 + 2 = 15.5; stage 0's tail, its last r: 16. (The
  // first version of this fix ended the path at stage 1's own last reduction and dropped stage
  // 0's: 15.5.)
  // GPipe on the same stages: stage 1 F0 1-3, F1 3-5, B0 5-9, r 9-9.5, B1 9.5-13.5; stage 0 B0
  // 9.5-11.5, r 11.5-12, B1 13.5-15.5, r 15.5-16: step 16 as well. Closed form: stage 0's fill
  // f0 = 1, the bottleneck's 2 (f1 + b1) + r1 (its last r is the tail's) = 12.5, stage 0's
  // drain of the last micro-batch b0 = 2, its last r 0.5: 16. With one micro-batch and r 2 on
  // stage 0: stage 1 F0 1-3, B0 3-7 (r after, to 7.5), stage 0 B0 7-9, r 9-11: step 11; closed
  // form 1 + (2 + 4) + 2 + 2 = 11. (Found by a review of the first version of this fix: 16.5 and
  // 9.5.)
  for (const auto& [schedule, m, r0, step] :
       {std::tuple{"1f1b", 2, 0.5, 16.0}, {"gpipe", 2, 0.5, 16.0}, {"gpipe", 1, 2.0, 11.0}}) {
    const Scenario s = split_pipeline(2, m, schedule, 3, 1, 2);
    nlohmann::json raw = s.resolved;
    raw["parallel"]["zero"] = 2;
    raw["parallel"]["overlap_grad_reduce"] = false;
    const Scenario z = scenario_from_json(raw, "");
    const Plan plan = make_plan(z);
    StepCosts c = one_bucket_per_stage(plan, 3, 0.5);
    c.stages[0].buckets[0].seconds = r0;
    EXPECT_DOUBLE_EQ(simulate_step(z, plan, c).step_seconds, step) << schedule << " m " << m;
    EXPECT_DOUBLE_EQ(analytic_step(z, plan, c).step_seconds, step) << schedule << " m " << m;
  }
  // The tied embedding's all-reduce is once per step (Megatron's finalize_model_grads), also
  // under ZeRO-2: a 3 s once-per-step bucket on stage 0 of two one-layer stages, m = 2, follows
  // the last backward only. Without it stage 1 runs F0 1-2, B0 2-4, F1 4-5, B1 5-7 and stage 0
  // B0 4-6, B1 7-9: 9 s; with it 9 + 3 = 12 s in both modes. (Until 2026-11-29 it was reduced,
  // and held, every micro-batch: 14 s in the events, B0 4-6, its reduction 6-9, B1 9-11.)
  const Scenario s = edited_pipeline(2, 2, "1f1b", [](nlohmann::json& raw) {
    raw["parallel"]["zero"] = 2;
    raw["parallel"]["overlap_grad_reduce"] = false;
  });
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 2, 1, 1, 1);
  c.stages[0].buckets.push_back({-1, 1e6, 3, true});
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 12);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 12);
}

// cost/contention.h: compute of c seconds overlapped from its start by a collective of g
// seconds, compute at 1 / (1 + s) while it runs: g when g >= c (1 + s), else c + g s / (1 + s).
TEST(Contention, ClosedFormOfComputeSlowedByAnOverlappingCollective) {
  EXPECT_DOUBLE_EQ(overlapped_seconds(2, 0.5, 0.25), 2.1);  // 2 + 0.5 x 0.25 / 1.25
  EXPECT_DOUBLE_EQ(overlapped_seconds(2, 3, 0.25), 3);      // 3 >= 2 x 1.25: the collective
  // At g = c (1 + s) = 2.5 both branches give 2.5 (2 + 2.5 x 0.2): the function is continuous.
  EXPECT_DOUBLE_EQ(overlapped_seconds(2, 2.5, 0.25), 2.5);
  EXPECT_DOUBLE_EQ(overlapped_seconds(2, 0.5, 0), 2);  // no slowdown: perfect overlap
  EXPECT_DOUBLE_EQ(overlapped_seconds(2, 0, 0.25), 2);
  // contention = overlapped - max(c, g): 0.1 in the first case, 0 once the collective dominates.
  EXPECT_NEAR(contention_seconds(2, 0.5, 0.25), 0.1, 1e-15);
  EXPECT_DOUBLE_EQ(contention_seconds(2, 3, 0.25), 0);
}

TEST(Contention, OverlappedBucketsSlowTheBackwardTheyRunBeside) {
  // FourLayers with 0.5 s buckets (OverlappedReductionHidesBehindBackward: 12.5 s without
  // contention) and compute at 1 / 1.25 while a bucket runs. Layer 3's backward ends at 6; its
  // bucket runs [6, 6.5] beside layer 2's backward (2 s of work), which does 0.5 / 1.25 = 0.4
  // by 6.5 and ends at 6.5 + 1.6 = 8.1 (the closed form: 2 + 0.5 x 0.25 / 1.25 = 2.1). Layers 1
  // and 0 likewise take 2.1 each: the backward ends at 4 + 2 + 3 x 2.1 = 12.3, the last bucket
  // at 12.8. dp_comm = 0.5 exposed + 3 x 0.1 of contention.
  FourLayers f = four_layers(0.5);
  f.costs.overlap_slowdown = 0.25;
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_NEAR(r.step_seconds, 12.8, 1e-12);
  EXPECT_NEAR(r.breakdown[TimeCategory::kDpComm], 0.8, 1e-12);
  EXPECT_NEAR(r.breakdown.total(), r.step_seconds, 1e-12);  // the breakdown still sums
}

TEST(Contention, ChangesNothingWhenTheCollectivesAreTheBottleneck) {
  // 3 s buckets (ReductionLongerThanBackwardIsExposedByTheDifference: 18 s). Every backward after
  // layer 3's runs entirely beside a bucket, slowed to 2.5 s, but the buckets run back to back
  // from t = 6 and end at 18 regardless: the step stays 18, with the same 6 s of dp_comm (1.5 s
  // of contention inside the backward, 4.5 s of waiting for the last buckets after it).
  FourLayers f = four_layers(3);
  f.costs.overlap_slowdown = 0.25;
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_NEAR(r.step_seconds, 18, 1e-12);
  EXPECT_NEAR(r.breakdown[TimeCategory::kDpComm], 6, 1e-12);
}

TEST(Contention, SwitchedOffZeroThreeOverlapIsFreeAgain) {
  // effects.comm_contention=false zeroes the profile's slowdown (scenario/load.cc).
  const Scenario on = load_scenario("llama3-70b-fsdp-64xh100", {});
  const Scenario off = load_scenario("llama3-70b-fsdp-64xh100", {"effects.comm_contention=false"});
  EXPECT_GT(on.cluster.gpu.compute.overlap_compute_slowdown, 0);
  EXPECT_EQ(off.cluster.gpu.compute.overlap_compute_slowdown, 0);
  const Plan plan = make_plan(on);
  const StepCosts c_on = compute_step_costs(on, plan), c_off = compute_step_costs(off, plan);
  const double des_on = simulate_step(on, plan, c_on).step_seconds;
  const double des_off = simulate_step(off, plan, c_off).step_seconds;
  // ZeRO-3's gathers and reduce-scatters overlap the compute, so contention lengthens the step,
  // by at most the slowdown's share of the whole step (every second slowed by 1 + s).
  EXPECT_GT(des_on, des_off);
  EXPECT_LT(des_on, des_off * (1 + on.cluster.gpu.compute.overlap_compute_slowdown));
  const double an_on = analytic_step(on, plan, c_on).step_seconds;
  const double an_off = analytic_step(off, plan, c_off).step_seconds;
  EXPECT_GT(an_on, an_off);
  EXPECT_LT(an_on, an_off * (1 + on.cluster.gpu.compute.overlap_compute_slowdown));
}

TEST(Trace, HasOneSlicePerComputeItem) {
  const Scenario s = pipeline(2, 1, 2, "1f1b");
  const Plan plan = make_plan(s);
  const StepCosts c = uniform(plan, 2, 1, 1, 1);
  const StepResult r = simulate_step(s, plan, c, {true});
  // 2 stages x 2 micro-batches x (F, B) = 8 compute items.
  int compute = 0;
  for (const auto& t : r.trace) compute += t.stream == StreamKind::kCompute;
  EXPECT_EQ(compute, 8);
}

TEST(Agreement, AnalyticMatchesTheEventModelOnShippedExamples) {
  // The analytic model combines the same per-op costs in closed form; on every shipped example
  // (real costs: TP/CP/EP/DP communication, uneven stages, buckets) and every schedule it stays
  // within 5% of the event simulation; with ZeRO-2/3 forced on, within 10% (measured 2026-11-27:
  // -8.5 % at worst, ZeRO-2 under ZB-H2 on the 177B example; 20% before that day's ZeRO-3 item
  // and 1F1B stage-path changes).
  for (const auto& name : preset_names(PresetKind::kExample)) {
    for (const char* schedule : {"", "gpipe", "1f1b", "zb-h1", "zb-h2"}) {
      for (const char* zero : {"", "2", "3"}) {
        std::vector<std::string> sets;
        if (*schedule) sets = {std::string("parallel.schedule=") + schedule, "parallel.vpp=1"};
        if (*zero) sets.push_back(std::string("parallel.zero=") + zero);
        const Scenario s = load_scenario(name, sets);
        const Plan plan = make_plan(s);
        const StepCosts c = compute_step_costs(s, plan);
        const double des = simulate_step(s, plan, c).step_seconds;
        const double analytic = analytic_step(s, plan, c).step_seconds;
        // Stated tolerances: 5% for the shipped configurations and their schedules; 10% once
        // ZeRO-2/3 is forced onto them (README: the closed form's known gaps with pipelines).
        const double tolerance = *zero ? 0.10 : 0.05;
        EXPECT_NEAR(analytic, des, tolerance * des) << name << " " << schedule << " zero " << zero;
      }
    }
  }
  // ZeRO-2 without overlapped reduction on the 177B example at pp 4, TP 8 (its data-parallel
  // group spans nodes), 2 micro-batches: each backward waits for its reduce-scatter. The closed
  // form was -33.6 % (1F1B) and -35.2 % (GPipe) against the event model while it put them all in
  // the tail (found by a metamorphic review, 2026-11-29); 0.0 and +0.1 % now.
  for (const char* schedule : {"parallel.schedule=1f1b", "parallel.schedule=gpipe"}) {
    const Scenario s = load_scenario(
        "mcore-177b-2304xh100", {schedule, "parallel.vpp=1", "parallel.tp=8", "parallel.pp=4",
                                 "parallel.dp=4", "cluster.nodes=16", "training.global_batch=8",
                                 "parallel.zero=2", "parallel.overlap_grad_reduce=false"});
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const double des = simulate_step(s, plan, c).step_seconds;
    EXPECT_NEAR(analytic_step(s, plan, c).step_seconds, des, 0.05 * des) << schedule;
  }
  // ZeRO-2 under 1F1B with a heavy first stage (36 of GPT-3's 96 layers, 8 on the last, pp 4,
  // 4 micro-batches): its 4 reductions follow backwards only (cooldown_backwards). The closed form
  // was -3.8 % as the old whole fill/drain hid it, -15.9 % with the stage paths alone, -3.6 %
  // with the cooldown.
  {
    const Scenario s = load_scenario(
        "gpt3-175b-1536xa100",
        {"parallel.schedule=1f1b", "parallel.vpp=1", "parallel.pp=4", "parallel.dp=48",
         "parallel.first_stage_layers=36", "parallel.last_stage_layers=8",
         "training.global_batch=192", "parallel.zero=2"});
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const double des = simulate_step(s, plan, c).step_seconds;
    EXPECT_NEAR(analytic_step(s, plan, c).step_seconds, des, 0.05 * des);
  }
  // ZeRO-2 on GPT-3's 16 interleaved stages at vpp 3 with 32 micro-batches: the reductions of
  // the chunk backwards that end each stage's program (its warm-up count of them) hide behind a
  // chunk's backward only. -18.1 % when every reduction had a whole micro-batch behind it, -6.5 %
  // now.
  {
    const Scenario s = load_scenario(
        "gpt3-175b-1536xa100", {"parallel.zero=2", "parallel.vpp=3", "training.global_batch=384"});
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const double des = simulate_step(s, plan, c).step_seconds;
    EXPECT_NEAR(analytic_step(s, plan, c).step_seconds, des, 0.08 * des);
  }
  // ZeRO-3 on GPT-3's 16 interleaved stages at vpp 3 and 6 (one block per chunk): the closed
  // form was +25 and +32 % (every chunk's item charged its traffic's excess and a first gather
  // on top); each item's two streams in order (zero3_item_exposed) give +1.2 and +0.3 %.
  for (const char* vpp : {"3", "6"}) {
    const Scenario s = load_scenario("gpt3-175b-1536xa100",
                                     {"parallel.zero=3", std::string("parallel.vpp=") + vpp});
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const double des = simulate_step(s, plan, c).step_seconds;
    EXPECT_NEAR(analytic_step(s, plan, c).step_seconds, des, 0.05 * des) << "vpp " << vpp;
  }
}

}  // namespace
}  // namespace shardsim
