// ZeRO-3 in the discrete-event model and the analytic closed form (pipeline_paths.h
// zero3_item_exposed, stage_work.cc add_zero3_exposure): parameter gathers and gradient
// reduce-scatters on one stream, prefetch depth, parameter offload's host-to-device copies and
// contention, on synthetic costs whose timelines are worked by hand in each test's comment.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "simulator/analytic/analytic.h"
#include "simulator/analytic/pipeline_paths.h"
#include "simulator/analytic/stage_work.h"
#include "simulator/des/step_sim.h"
#include "simulator/plan/schedule.h"
#include "tests/des/des_fixtures.h"

namespace shardsim {
namespace {

// One stage of `layers` layers under ZeRO-3 with prefetch `prefetch`, m micro-batches under
// `schedule`; `sync` >= 0 sets framework.host_sync_fraction.
Scenario zero3_stage(int layers, int m, const std::string& schedule, int prefetch,
                     double sync = -1) {
  nlohmann::json raw = pipeline(1, 1, m, schedule).resolved;
  raw["model"]["layers"] = layers;
  raw["parallel"]["zero"] = 3;
  raw["parallel"]["zero3_prefetch"] = prefetch;
  if (sync >= 0) raw["framework"]["host_sync_fraction"] = sync;
  return scenario_from_json(raw, "");
}

// Every layer of c gathering for `gather`, reduce-scattering for `reduce` and copying its
// parameters to the device for `h2d` seconds.
void set_zero3_traffic(StepCosts& c, double gather, double reduce, double h2d) {
  std::vector<LayerCost> layers;
  for (int l = 0; l < c.layer_count(); ++l) {
    layers.push_back(c.layer(l));
    layers.back().zero3_gather_seconds = gather;
    layers.back().zero3_reduce_seconds = reduce;
    layers.back().zero3_h2d_seconds = h2d;
  }
  c.set_layers(std::move(layers));
}

// One stage of 4 layers under ZeRO-3, one micro-batch, f = b = w = 1 (backward item: b + w = 2
// per layer), each layer gathering for 0.5 s and reduce-scattering for 0.5 s; embedding and output
// layer cost nothing; no contention.
FourLayers zero3_layers(int prefetch, double gather = 0.5, double reduce = 0.5) {
  FourLayers f{zero3_stage(4, 1, "1f1b", prefetch), {}, {}};
  f.plan = make_plan(f.scenario);
  f.costs = uniform(f.plan, 4, 1, 1, 1);
  set_zero3_traffic(f.costs, gather, reduce, 0);
  return f;
}

TEST(Zero3Prefetch, WithoutPrefetchNothingOverlaps) {
  // zero3_prefetch = 0: each gather waits for the previous unit's compute (and, in backward, its
  // reduce-scatter on the same stream): forward 4 x (0.5 + 1) = 6, backward 4 x (0.5 + 2 + 0.5)
  // = 12, step 18, of which 4 x 0.5 + 8 x 0.5 = 6 s dp_comm. The analytic model's closed form
  // (every gather and reduce-scatter exposed) gives the same 18.
  const FourLayers f = zero3_layers(0);
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(r.step_seconds, 18);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 6);
  EXPECT_DOUBLE_EQ(analytic_step(f.scenario, f.plan, f.costs).step_seconds, 18);
}

TEST(Zero3Prefetch, OneUnitAheadHidesAllButTheFirstGatherAndLastReduceScatter) {
  // zero3_prefetch = 1 (FSDP): at most two units gathered at once. Forward: layer 0's gather
  // [0, 0.5] is exposed, each later gather runs beside the previous layer: 0.5 + 4 = 4.5.
  // Backward from 4.5: layer 3's gather [4.5, 5], then on the one stream each layer's
  // reduce-scatter [end, end + 0.5] is followed by the next-but-one gather, both hidden behind the
  // next layer's 2 s: layers run [5, 7], [7, 9], [9, 11], [11, 13]; the last reduce-scatter ends
  // at 13.5. Step 13.5 = 12 compute + 1.5 dp_comm (two exposed gathers and the last reduce).
  const FourLayers f = zero3_layers(1);
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(r.step_seconds, 13.5);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 1.5);
  // The closed form runs each item's two streams in the same order (analytic.cc
  // zero3_item_exposed): the same 0.5 + 1 s.
  EXPECT_DOUBLE_EQ(analytic_step(f.scenario, f.plan, f.costs).step_seconds, 13.5);
  // Deeper prefetch cannot help here: every gather already hides behind one layer's compute.
  const FourLayers g = zero3_layers(2);
  EXPECT_DOUBLE_EQ(simulate_step(g.scenario, g.plan, g.costs).step_seconds, 13.5);
}

TEST(Zero3Prefetch, WithoutOverlapEachBackwardWaitsForThePreviousReduceScatter) {
  // parallel.overlap_grad_reduce false (DeepSpeed's stage 3 with overlap_comm false, whose
  // reduce-scatters run on the default stream): each layer's backward waits for the previous
  // layer's reduce-scatter, which still runs on the data-parallel stream with the gathers.
  // Prefetch 1, the layers of zero3_layers. Forward unchanged: 4.5.
  // 1F1B, backward from 4.5, on the data-parallel stream: layer 3's gather [4.5, 5], layer 2's
  // [5, 5.5]; layer 3 computes [5, 7], reduce-scatters [7, 7.5]; layer 1's gather (after layer
  // 3's compute, queued behind that reduce-scatter) [7.5, 8]; layer 2 computes [7.5, 9.5],
  // reduce-scatters [9.5, 10]; layer 0's gather [10, 10.5]; layer 1 computes [10, 12],
  // reduce-scatters [12, 12.5]; layer 0 computes [12.5, 14.5], reduce-scatters [14.5, 15], and the
  // item ends with it (the zero-cost output and embedding units reduce-scatter nothing).
  // ZB-H1 (b = w = 1): the backward-input item gathers as in the forward, layers [5, 6], [6, 7],
  // [7, 8], [8, 9]; the weight item from 9: [9, 10], reduce-scatter [10, 10.5], [10.5, 11.5],
  // [11.5, 12], [12, 13], [13, 13.5], [13.5, 14.5], [14.5, 15].
  // Either way step 15 = 12 compute + 3 dp_comm (two first gathers, four reduce-scatters waited
  // for), against 13.5 overlapped; the closed form gives the same.
  for (const std::string schedule : {"1f1b", "zb-h1"}) {
    nlohmann::json raw = pipeline(1, 1, 1, schedule).resolved;
    raw["model"]["layers"] = 4;
    raw["parallel"]["zero"] = 3;
    raw["parallel"]["zero3_prefetch"] = 1;
    raw["parallel"]["overlap_grad_reduce"] = false;
    FourLayers f{scenario_from_json(raw, ""), {}, {}};
    f.plan = make_plan(f.scenario);
    f.costs = uniform(f.plan, 4, 1, 1, 1);
    set_zero3_traffic(f.costs, 0.5, 0.5, 0);
    const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
    EXPECT_DOUBLE_EQ(r.step_seconds, 15) << schedule;
    EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 3) << schedule;
    const AnalyticResult a = analytic_step(f.scenario, f.plan, f.costs);
    EXPECT_DOUBLE_EQ(a.step_seconds, 15) << schedule;
    EXPECT_DOUBLE_EQ(a.breakdown[TimeCategory::kDpComm], 3) << schedule;
    raw["parallel"]["overlap_grad_reduce"] = true;
    f.scenario = scenario_from_json(raw, "");
    EXPECT_DOUBLE_EQ(simulate_step(f.scenario, f.plan, f.costs).step_seconds, 13.5) << schedule;
  }
}

// When the traffic is the bottleneck: 3 s gathers and 0.5 s reduce-scatters per layer, prefetch 1.
// Forward: gathers back to back, layer 0's at 0-3, 1's 3-6, 2's 6-9 (after layer 0's compute,
// 3-4), 3's 9-12; layer 3 computes 12-13. Backward from 13 (relative times; the output and
// embedding units cost nothing): layer 3's gather 0-3, compute 3-5; layer 2's gather 3-6 (its
// wait for the output unit's compute is none), layer 3's reduce-scatter 6-6.5; layer 1's gather
// 6.5-9.5 (after layer 3's compute), layer 2 computes 6-8, reduce-scatters 9.5-10; layer 0's
// gather 10-13, layer 1 computes 9.5-11.5, reduce-scatters 13-13.5; layer 0 computes 13-15,
// reduce-scatters 15-15.5. Step 13 + 15.5 = 28.5, of which 12 compute. (The closed form of
// before 2026-11-27, the excess of the traffic over the compute plus the first unit's gather,
// the embedding's 0 s here: (12 - 4) + (12 + 2 - 8) = 14 s exposed, 26 s.)
TEST(Zero3Prefetch, TrafficBoundItemsExposeTheStreamsExcessAndTheLastReduceScatter) {
  const FourLayers f = zero3_layers(1, 3, 0.5);
  const StepResult r = simulate_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(r.step_seconds, 28.5);
  EXPECT_DOUBLE_EQ(r.breakdown[TimeCategory::kDpComm], 16.5);
  EXPECT_DOUBLE_EQ(analytic_step(f.scenario, f.plan, f.costs).step_seconds, 28.5);
}

// Parameter offload: each gather first waits for its shard's host-to-device copy (1 s a layer),
// the copies running back to back on the host stream from the item's start. zero3_layers(1) with
// 0.5 s gathers, no reduce-scatter. Forward: copies end at 1, 2, 3, 4; layer 0 gathers 1-1.5 and
// computes 1.5-2.5, layer 1 gathers 2-2.5 and computes 2.5-3.5, layer 2 gathers 3-3.5 (its copy),
// computes 3.5-4.5, layer 3 gathers 4-4.5, computes 4.5-5.5. Backward (layers 3..0, 2 s each):
// gathers at 1-1.5, 2-2.5, 3.5-4 (after layer 3's compute, 1.5-3.5), 5.5-6 (after layer 2's,
// 3.5-5.5); layer 1 computes 5.5-7.5 and layer 0 7.5-9.5. Step 5.5 + 9.5 = 15. (The closed form
// of before 2026-11-27 left the copies out, and with the embedding's free gather as the first
// one, exposed nothing: 12; found by review, -60 to -82 % against the DES on offloaded plans.)
TEST(Zero3Prefetch, OffloadedParametersWaitForTheirCopy) {
  FourLayers f = zero3_layers(1, 0.5, 0);
  set_zero3_traffic(f.costs, 0.5, 0, 1);
  const StepResult des = simulate_step(f.scenario, f.plan, f.costs);
  const AnalyticResult analytic = analytic_step(f.scenario, f.plan, f.costs);
  EXPECT_DOUBLE_EQ(des.step_seconds, 15);
  EXPECT_DOUBLE_EQ(analytic.step_seconds, 15);
  // Each pass idles 1.5 s before its first compute: 0-1 while only the first copy runs
  // (offload), 1-1.5 on the first gather, which starts with the second copy (the DES charges an
  // idle instant to the side task that started first; a tie goes to the gather): 2 s offload
  // and 1 s dp_comm in the step, in both models (until 2026-11-29 the closed form put all 3 s
  // under dp_comm).
  for (const TimeSplit& split : {des.breakdown, analytic.breakdown}) {
    EXPECT_DOUBLE_EQ(split[TimeCategory::kOffload], 2);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kDpComm], 1);
  }
}

// The host bound prices each unit of a ZeRO-3 item, as the DES does: two layers, one
// micro-batch, prefetch 1, f = 1 and b + w = 2 per layer, 0.5 s gathers, no reduce-scatter, 2 s
// copies, 1 s of host dispatch per layer in the forward pass, host_sync_fraction 0.5: each
// forward unit computes 1 + 0.5 x min(1, 1) = 1.5 s (cost/host_dispatch.h host_exposed).
// Forward: copies 0-2 and 2-4, gathers 2-2.5 and 4-4.5, computes 2.5-4 and 4.5-6. Backward
// from 6: copies 6-8 and 8-10, gathers 8-8.5 and 10-10.5, computes 8.5-10.5 and 10.5-12.5.
// Step 12.5: compute 6, host_dispatch 1, offload 4 (0-2 and 6-8, only a copy running), dp_comm
// 1.5 (the gathers at 2, 4 and 8; at 2 and 8 a copy starts with the gather, and the tie goes to
// the gather). The closed form before 2026-11-29 walked the items without the host (forward
// 5.5 s) and added the pass's host bound after: 5.5 + 0.5 x 2 = 6.5, a 13 s step; the copy
// waits hid the host time of the first unit, which it counted.
TEST(Zero3Prefetch, TheHostBoundPricesEachUnitOfAnItem) {
  const Scenario s = zero3_stage(2, 1, "1f1b", 1, 0.5);
  ASSERT_EQ(s.framework.host_sync_fraction, 0.5);
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 2, 1, 1, 1);
  set_zero3_traffic(c, 0.5, 0, 2);
  std::vector<LayerCost> layers(2, c.layer(0));
  for (auto& l : layers) l.work.host_fwd = 1;
  c.set_layers(std::move(layers));
  const StepResult des = simulate_step(s, plan, c);
  const AnalyticResult analytic = analytic_step(s, plan, c);
  for (const TimeSplit& split : {des.breakdown, analytic.breakdown}) {
    EXPECT_DOUBLE_EQ(split.total(), 12.5);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kCompute], 6);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kHostDispatch], 1);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kOffload], 4);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kDpComm], 1.5);
  }
}

// Which idle time is the copies': three layers, one micro-batch, prefetch 0, f = 1 and b + w =
// 1 per layer, 1 s gathers, no reduce-scatter, 1.5 s copies. Each pass: copies 0-1.5, 1.5-3,
// 3-4.5; gather 0 1.5-2.5, compute 2.5-3.5; gather 1 waits for that compute, 3.5-4.5, compute
// 4.5-5.5; gather 2 5.5-6.5, compute 6.5-7.5. Idle 0-2.5: 0-1.5 only the first copy runs
// (offload), 1.5-2.5 the first gather, which starts with the second copy (the tie goes to the
// gather); idle 3.5-4.5: the third copy, running since 3, and gather 1, starting at 3.5: the DES
// clips the copy's start to the idle's, 3.5, so the gather takes it (found by review,
// 2026-11-29: the closed form compared the tasks' own starts and called it offload); idle
// 5.5-6.5: gather 2. Per pass 7.5 s, offload 1.5, dp_comm 3; the step twice that.
TEST(Zero3Prefetch, WhatRunsWhenComputeIdlesTakesTheIdleTime) {
  const Scenario s = zero3_stage(3, 1, "1f1b", 0);
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 3, 1, 0.5, 0.5);
  set_zero3_traffic(c, 1, 0, 1.5);
  const StepResult des = simulate_step(s, plan, c);
  const AnalyticResult analytic = analytic_step(s, plan, c);
  for (const TimeSplit& split : {des.breakdown, analytic.breakdown}) {
    EXPECT_DOUBLE_EQ(split.total(), 15);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kOffload], 3);
    EXPECT_DOUBLE_EQ(split[TimeCategory::kDpComm], 6);
  }
}

// ZeRO-3's trailing reduce-scatters hold the stage's next item, not its neighbour. 1F1B, 2 stages
// of 2 layers, one micro-batch, f = b = w = 1, 0.5 s gathers and reduce-scatters, prefetch 1.
// Stage 0's forward 0-2.5 (its first gather exposed), stage 1's 2.5-5; stage 1's backward
// computes 5.5-7.5 and 7.5-9.5 and its reduce-scatters run to 10, but the gradient leaves at
// 9.5; stage 0's backward: gathers 9.5-10.5, computes 10-12 and 12-14, reduce-scatters to 14.5.
// Step 14.5. Each stage's backward item takes 5 s with its 0.5 s trail, so charging the trail
// on the chain would give 15.
TEST(Zero3Prefetch, TrailingReduceScattersHoldTheStageNotItsNeighbour) {
  const Scenario s = edited_pipeline(2, 1, "1f1b", [](nlohmann::json& raw) {
    raw["model"]["layers"] = 4;
    raw["parallel"]["zero"] = 3;
    raw["parallel"]["zero3_prefetch"] = 1;
  });
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 4, 1, 1, 1);
  std::vector<LayerCost> layers(4, c.layer(0));
  for (auto& l : layers) {
    l.zero3_gather_seconds = 0.5;
    l.zero3_reduce_seconds = 0.5;
  }
  c.set_layers(layers);
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 14.5);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 14.5);
  // Without stage 0's reduce-scatters it ends with its last compute, at 14; stage 1's trail
  // (to 10) runs beside stage 0's drain, not before it (found by review: the stage path had
  // added it ahead of the drain, 14.5).
  layers[0].zero3_reduce_seconds = layers[1].zero3_reduce_seconds = 0;
  c.set_layers(std::move(layers));
  EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 14);
  EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 14);
}

// offload_lead_counts is the closed form of a walk over each stage's program: for every fixed
// schedule, pipeline depth, chunk count and micro-batch count here, the items that gather and
// follow a reduce-scatter item, counted by walking stage_program, are its counts.
TEST(Zero3Prefetch, OffloadLeadCountsAreTheProgramsPairs) {
  for (const Schedule sched :
       {Schedule::kGpipe, Schedule::k1F1B, Schedule::kInterleaved, Schedule::kZbH1})
    for (int pp = 1; pp <= 4; ++pp)
      for (int vpp : {1, 2, 3}) {
        if ((sched == Schedule::kInterleaved) != (vpp > 1)) continue;
        for (std::int64_t m = 1; m <= 9; ++m) {
          Plan plan;
          plan.pp = pp;
          plan.vpp = vpp;
          plan.micro_batches = m;
          plan.schedule = sched;
          const bool zb = sched == Schedule::kZbH1;
          const Pass reducer = zb ? Pass::kBackwardWeight : Pass::kBackwardInput;
          const std::size_t v = std::size_t(vpp);
          for (int stage = 0; stage < pp; ++stage) {
            std::vector<std::int64_t> walked(2 * v * v, 0);
            int prev = -1;  // the previous item's chunk when it reduce-scatters
            for (const ProgramItem& it : stage_program(sched, stage, pp, vpp, m)) {
              const bool backward = it.pass != Pass::kForward;
              const int chunk = order_position(stage, it.k, backward, pp, vpp).first / pp;
              if (it.pass != Pass::kBackwardWeight && prev >= 0)
                ++walked[(std::size_t(backward) * v + std::size_t(chunk)) * v + std::size_t(prev)];
              prev = it.pass == reducer ? chunk : -1;
            }
            EXPECT_EQ(offload_lead_counts(plan, stage, zb), walked)
                << "schedule " << int(sched) << " pp " << pp << " vpp " << vpp << " m " << m
                << " stage " << stage;
          }
        }
      }
}

// Contention inside a ZeRO-3 item (pipeline_paths.h zero3_item_exposed): compute slows to
// 1 / (1 + s) only while a collective runs beside it. Two units, 1 s gathers, 2 s compute,
// prefetch 1, s = 0.5: gather 0 runs 0-1 while nothing computes; unit 0 computes from 1 beside
// gather 1 (1-2), doing 1 / 1.5 s of its work by 2 and the remaining 4/3 s alone, to 10/3; unit
// 1 computes 10/3-16/3. Exposed: 16/3 - 4 = 4/3 (the first gather, 1, plus 1/3 of contention).
// The rule before 2026-11-29 charged the whole traffic as overlapping: 1 + (2 x 0.5 / 1.5) = 5/3.
// Copy-bound (3 s host-to-device copies, 1 s gathers, 1 s compute): copies 0-3 and 3-6, gathers
// 3-4 and 6-7, computes 4-5 and 7-8, never beside a gather: exposed 8 - 2 = 6, no contention
// (the old rule added 2 x 0.5 / 1.5 = 2/3).
TEST(Zero3Prefetch, ContentionSlowsOnlyTheComputeACollectiveRunsBeside) {
  const std::vector<Zero3Unit> compute_bound = {{1, 0, 2, 0}, {1, 0, 2, 0}};
  EXPECT_DOUBLE_EQ(zero3_item_exposed(compute_bound, 1, true, false, 0.5).exposed, 4.0 / 3);
  EXPECT_DOUBLE_EQ(zero3_item_exposed(compute_bound, 1, true, false).exposed, 1);
  const std::vector<Zero3Unit> copy_bound = {{1, 0, 1, 3}, {1, 0, 1, 3}};
  const Zero3Item alone = zero3_item_exposed(copy_bound, 1, true, false, 0.5);
  EXPECT_DOUBLE_EQ(alone.exposed, 6);
  // Of it the compute waits on a copy (the first-started side task) over 0-3 and 5-6: 4 s
  // offload; over 3-4 and 6-7 on a gather (3-4 a tie with the second copy, given to the gather).
  EXPECT_DOUBLE_EQ(alone.offload, 4);
  // The same copy-bound item behind 4 s of the previous item's reduce-scatters: the copies run
  // 0-3 and 3-6 beside them, the gathers 4-5 and 6-7, the computes 5-6 and 7-8: 8 - 2 = 6
  // exposed including the 4 s lead, 2 beyond it (the lead and the item in series: 4 + 6).
  // Offload: 4-5 only, when the second copy (from 3) runs beside the first gather (from 4); the
  // lead, started before the item, takes 0-4.
  const Zero3Item behind = zero3_item_exposed(copy_bound, 1, true, false, 0.5, 4);
  EXPECT_DOUBLE_EQ(behind.exposed, 6);
  EXPECT_DOUBLE_EQ(behind.offload, 1);
}

// One layer (f = 1, b + w = 2; 0.5 s gather, 2 s reduce-scatter, 2 s copy), prefetch 1, two
// micro-batches on one stage under `schedule`: the step in the DES or, `analytic`, the closed form.
double one_offloaded_layer_step(const std::string& schedule, bool analytic) {
  const Scenario s = zero3_stage(1, 2, schedule, 1);
  const Plan plan = make_plan(s);
  StepCosts c = uniform(plan, 1, 1, 1, 1);
  set_zero3_traffic(c, 0.5, 2, 2);
  return analytic ? analytic_step(s, plan, c).step_seconds : simulate_step(s, plan, c).step_seconds;
}

// Parameter offload under 1F1B: a forward's copies start beside the previous backward's trailing
// reduce-scatters. One layer (f = 1, b + w = 2; 0.5 s gather, 2 s reduce-scatter, 2 s copy),
// prefetch 1, two micro-batches on one stage: F0 B0 F1 B1. F0: copy 0-2, gather 2-2.5, compute
// 2.5-3.5. B0: copy 3.5-5.5, gather 5.5-6, compute 6-8, reduce-scatter 8-10. F1 starts at 8: copy
// 8-10 beside that reduce-scatter, gather 10-10.5, compute 10.5-11.5. B1: copy 11.5-13.5, gather
// 13.5-14, compute 14-16, reduce-scatter 16-18. Step 18. The closed form before 2026-11-29 put F1's
// copy after the reduce-scatter, 2.5 s exposed per forward: 2 x (1 + 2.5 + 2 + 4.5) = 20; now F1
// exposes 0.5 beyond the 2 s lead and the forwards average (2.5 + 0.5) / 2 = 1.5: 2 x (1 + 1.5) +
// 2 x (2 + 4.5) = 18 (found against the DES: +13.2 % on mixtral-8x7b-16xh100 at pp 2, ZB-H1).
TEST(Zero3Prefetch, AForwardsCopiesRunBesideThePreviousBackwardsTrail) {
  EXPECT_DOUBLE_EQ(one_offloaded_layer_step("1f1b", false), 18);
  EXPECT_DOUBLE_EQ(one_offloaded_layer_step("1f1b", true), 18);
}

// The same layer, two micro-batches on one stage under GPipe: F0 F1 B0 B1, so a backward follows
// a backward. F0: copy 0-2, gather 2-2.5, compute 2.5-3.5; F1: copy 3.5-5.5, gather 5.5-6,
// compute 6-7. B0: copy 7-9, gather 9-9.5, compute 9.5-11.5, reduce-scatter 11.5-13.5. B1 starts
// at 11.5: copy 11.5-13.5 beside that reduce-scatter, gather 13.5-14, compute 14-16,
// reduce-scatter 16-18. Step 18. The closed form: 2 x 3.5 forward; B0 4.5 and its 2 s trail; B1
// behind the 2 s lead takes max(2, 2) + 0.5 + 2 = 4.5, 2.5 beyond it, and its trail: 7 + 6.5 +
// 4.5 = 18.
TEST(Zero3Prefetch, ABackwardsCopiesRunBesideThePreviousBackwardsTrail) {
  EXPECT_DOUBLE_EQ(one_offloaded_layer_step("gpipe", false), 18);
  EXPECT_DOUBLE_EQ(one_offloaded_layer_step("gpipe", true), 18);
}

// Two stages of one layer each under ZeRO-3 with prefetch 1, two micro-batches, layer i with
// forward f_i, backward b_i (input and weight), 0.5 s gathers, reduce-scatters r_i, and
// host-to-device copies h (0: no offload).
Scenario two_one_layer_stages(const std::string& schedule) {
  return edited_pipeline(2, 2, schedule, [](nlohmann::json& raw) {
    raw["model"]["layers"] = 2;
    raw["parallel"]["zero"] = 3;
    raw["parallel"]["zero3_prefetch"] = 1;
  });
}

StepCosts two_one_layer_costs(const Plan& plan, const std::array<double, 2>& f,
                              const std::array<double, 2>& b, const std::array<double, 2>& r,
                              double h) {
  StepCosts c = uniform(plan, 2, 1, 1, 1);
  std::vector<LayerCost> layers(2);
  for (std::size_t i = 0; i < 2; ++i) {
    layers[i].work.fwd.add(TimeCategory::kCompute, f[i]);
    layers[i].work.bwd_input.add(TimeCategory::kCompute, b[i] / 2);
    layers[i].work.bwd_weight.add(TimeCategory::kCompute, b[i] / 2);
    layers[i].zero3_gather_seconds = 0.5;
    layers[i].zero3_reduce_seconds = r[i];
    layers[i].zero3_h2d_seconds = h;
  }
  c.set_layers(std::move(layers));
  return c;
}

// Equal stages (f = 1, b = 2, r = 2, h = 2). The items of the other stage on a stage's path
// waited for their input, so the lead their copies ran beside is gone: the closed form takes
// them without the lead credit (found 2026-11-29: before, GPipe gave 25 and 1F1B 23).
// GPipe, events: stage 0's forwards as above end at 7; stage 1's F0 3.5-7 (copy, gather,
// compute), F1 7-10.5, B0 10.5-15 and its reduce-scatter to 17, B1 from 15 beside it: copy
// 15-17, gather 17-17.5, compute 17.5-19.5. Stage 0: B0 15-19.5 (copy, gather, compute),
// reduce-scatter 19.5-21.5; B1 from 19.5 beside it: gather 21.5-22, compute 22-24,
// reduce-scatter 24-26. Step 26. Closed form: stage 0's items, 7 + 6.5 + 4.5 = 18 (as the
// single stage above), and stage 1's forward and backward alone, 3.5 + 4.5: 26.
// 1F1B (stage 1 runs F0 B0 F1 B1), events: stage 1's F0 3.5-7, B0 7-11.5, reduce-scatter to
// 13.5; F1 from 11.5: copy beside it, gather 13.5-14, compute 14-15; B1 15-19.5, reduce-scatter
// to 21.5. Stage 0's B0 11.5-16 and reduce-scatter to 18; its B1 waits for stage 1's until
// 19.5, by when that trail is done: copy 19.5-21.5, gather 21.5-22, compute 22-24,
// reduce-scatter 24-26. Step 26. Closed form, stage 1's path (pipeline_paths.h
// one_f_one_b_path): stage 0's forward alone 3.5, stage 1's items 3.5 + 6.5 + (3.5 - 2) + 6.5
// = 18 (F1 behind B0's 2 s trail: max(2, 2) + 0.5 + 1, 1.5 beyond it), less B1's trail, 2,
// plus the drain: stage 0's last backward alone, 4.5, and its trail, 2: 3.5 + 18 - 2 + 6.5 = 26.
TEST(Zero3Prefetch, AnotherStagesOffloadedItemsKeepNoLead) {
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const Scenario s = two_one_layer_stages(schedule);
    const Plan plan = make_plan(s);
    const StepCosts c = two_one_layer_costs(plan, {1, 1}, {2, 2}, {2, 2}, 2);
    EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 26) << schedule;
    EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 26) << schedule;
  }
}

// A heavier second stage (f = 1, 2; b = 2, 4; r = 4, 2; no offload): the step ends with stage
// 0's 4 s trail after its last compute, which the closed form left out when stage 1 was the
// bottleneck (found 2026-11-29: GPipe 22, 1F1B 21.5 against the DES's 24).
// GPipe, events: stage 0's F0 gather 0-0.5, compute 0.5-1.5, F1 1.5-3; stage 1's F0 1.5-4, F1
// 4-6.5, B0 6.5-11 (gather, compute) and reduce-scatter 11-13, B1's gather after it, 13-13.5,
// compute 13.5-17.5, reduce-scatter to 19.5. Stage 0's B0 11-13.5, reduce-scatter 13.5-17.5;
// B1 gathers 17.5-18, computes 18-20, reduce-scatters 20-24. Step 24. Closed form: stage 1's
// 2 x 2.5 + 2 x (4.5 + 2) = 18, stage 0's fill and drain 1.5 + 2.5, and the drain's end:
// max(stage 1's 2 s trail, 2.5 + 4) less the 2 + 2.5 counted: 18 + 4 + 2 = 24.
// 1F1B, events: stage 1's F0 1.5-4, B0 4-8.5, reduce-scatter to 10.5, F1 gathers 10.5-11,
// computes 11-13, B1 13-17.5, reduce-scatter to 19.5; stage 0's B0 8.5-11, reduce-scatter to
// 15, B1 17.5-20, reduce-scatter 20-24. Step 24. Closed form, stage 1's path: 1.5 + 18 - 2 +
// max(2, 2.5 + 4) = 24.
TEST(Zero3Prefetch, TheDrainEndsWithTheEarlierStagesTrail) {
  for (const char* schedule : {"gpipe", "1f1b"}) {
    const Scenario s = two_one_layer_stages(schedule);
    const Plan plan = make_plan(s);
    const StepCosts c = two_one_layer_costs(plan, {1, 2}, {2, 4}, {4, 2}, 0);
    EXPECT_DOUBLE_EQ(simulate_step(s, plan, c).step_seconds, 24) << schedule;
    EXPECT_DOUBLE_EQ(analytic_step(s, plan, c).step_seconds, 24) << schedule;
  }
}

}  // namespace
}  // namespace shardsim
