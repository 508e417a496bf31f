// The host as a resource (simulator/cost/host_dispatch.h) and the mixed-precision optimizer's byte
// traffic (simulator/cost/stage_costs.cc): the pure functions against hand arithmetic, and a whole
// step that is host-bound or GPU-bound by construction, in both the DES and the analytic model.
#include <gtest/gtest.h>

#include "simulator/analytic/analytic.h"
#include "simulator/cost/host_dispatch.h"
#include "simulator/cost/step_costs.h"
#include "simulator/des/step_sim.h"
#include "simulator/model/ops.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

TEST(host_dispatch, SecondsPerPassFromTheCounts) {
  FrameworkConfig f;
  f.op_dispatch_s = 10e-6;
  f.collective_dispatch_s = 5e-6;
  DispatchCounts n;
  n.ops = 13;
  n.gemms = 4;
  n.fwd_colls = 2;
  n.bwd_colls = 2;
  // forward: 13 ops x 10 us + 2 collectives x 5 us = 140 us; backward the same.
  HostSeconds h = host_dispatch_seconds(f, n);
  EXPECT_NEAR(h.fwd, 140e-6, 1e-15);
  EXPECT_NEAR(h.bwd_input, 140e-6, 1e-15);
  EXPECT_EQ(h.bwd_weight, 0);
  // Full recomputation re-issues the forward inside backward: 140 + 140 = 280 us; zero-bubble
  // issues the 4 GEMMs' weight gradients again in W: 4 x 10 = 40 us.
  n.recompute_full = true;
  n.split_weight = true;
  h = host_dispatch_seconds(f, n);
  EXPECT_NEAR(h.bwd_input, 280e-6, 1e-15);
  EXPECT_NEAR(h.bwd_weight, 40e-6, 1e-15);
}

TEST(host_dispatch, TheGpuWaitsOnlyForWhatExceedsItsOwnTime) {
  // item time = max(G, H): the wait is H - G when the host is slower, else nothing.
  EXPECT_DOUBLE_EQ(host_exposed(3e-3, 1e-3), 2e-3);
  EXPECT_EQ(host_exposed(1e-3, 3e-3), 0);
}

// A 4-layer GPT on one GPU, 2 micro-batches (as tests/cost/step_costs_test.cc).
nlohmann::json gpt(double op_dispatch_s, const std::string& precision = "bf16") {
  return {
      {"model",
       {{"layers", 4},
        {"hidden", 1024},
        {"heads", 16},
        {"vocab", 51200},
        {"bias", true},
        {"dropout", true},
        {"tied_embeddings", true}}},
      {"training",
       {{"seq_len", 2048},
        {"global_batch", 2},
        {"precision", precision},
        {"flash_attention", false}}},
      {"framework",
       {{"op_dispatch_s", op_dispatch_s}, {"collective_dispatch_s", 0}, {"step_overhead_s", 0.25}}},
      {"cluster", {{"gpu", "a100-sxm-80gb"}, {"gpus_per_node", 1}, {"nodes", 1}}}};
}

TEST(host_dispatch, AHostBoundStepIsTheHostsTimeInBothModels) {
  // 10 ms per operation dwarfs the GPU time of any op of this model (its largest GEMM is
  // 2*2048*4096*1024 = 17 GFLOP, about 0.1 ms on an A100): every item is host-bound. Per
  // micro-batch the host issues N = embedding + 4 blocks + output ops forward and N backward,
  // so the step is 2 micro-batches x 2N x 10 ms, plus the optimizer and the 0.25 s step overhead.
  const Scenario s = scenario_from_json(gpt(10e-3), "");
  const Plan plan = make_plan(s);
  const StepCosts c = compute_step_costs(s, plan);
  const OpShape shape{2048, 2048, 1, false};
  const double vocab = 51200;
  const double n = double(embedding_ops(s.model, vocab, shape).size()) +
                   4.0 * double(layer_ops(s.model, 0, shape).size()) +
                   double(output_ops(s.model, vocab, shape).size());
  const double host = 2 * 2 * n * 10e-3;
  const double optimizer = c.stages[0].optimizer_seconds;
  const StepResult des = simulate_step(s, plan, c);
  EXPECT_NEAR(des.step_seconds, host + optimizer + 0.25, 1e-9);
  const AnalyticResult an = analytic_step(s, plan, c);
  EXPECT_NEAR(an.step_seconds, host + optimizer + 0.25, 1e-9);
  // The breakdown names the wait: all but the GPU's own time and the optimizer is host_dispatch.
  EXPECT_NEAR(des.breakdown[TimeCategory::kHostDispatch] + des.breakdown[TimeCategory::kCompute] +
                  des.breakdown[TimeCategory::kOptimizer],
              des.step_seconds, 1e-9);
  EXPECT_GT(des.breakdown[TimeCategory::kHostDispatch], 0.9 * host);
}

TEST(host_dispatch, AGpuBoundStepWaitsOnlyForTheStepOverhead) {
  // 1 ns per operation: the host is always ahead; only the per-step 0.25 s remains.
  const Scenario s = scenario_from_json(gpt(1e-9), "");
  const Plan plan = make_plan(s);
  const StepCosts c = compute_step_costs(s, plan);
  EXPECT_NEAR(simulate_step(s, plan, c).breakdown[TimeCategory::kHostDispatch], 0.25, 1e-12);
  EXPECT_NEAR(analytic_step(s, plan, c).breakdown[TimeCategory::kHostDispatch], 0.25, 1e-12);
}

TEST(host_dispatch, EffectSwitchRemovesTheHostCost) {
  const Scenario s = scenario_from_json(gpt(10e-3), "", {"effects.host_dispatch=false"});
  EXPECT_EQ(s.framework.op_dispatch_s, 0);
  EXPECT_EQ(s.framework.step_overhead_s, 0);
  const Plan plan = make_plan(s);
  EXPECT_EQ(
      simulate_step(s, plan, compute_step_costs(s, plan)).breakdown[TimeCategory::kHostDispatch],
      0);
}

// The optimizer's seconds minus its one launch, with the full traffic on or off, on a profile with
// one scalar memory-bound efficiency (so time is proportional to bytes).
double optimizer_stream_seconds(const std::string& precision, bool full) {
  const Scenario s =
      scenario_from_json(gpt(0, precision), "",
                         {"effects.kernel_bandwidth=false",
                          std::string("effects.optimizer_traffic=") + (full ? "true" : "false")});
  const Plan plan = make_plan(s);
  return compute_step_costs(s, plan).stages[0].optimizer_seconds -
         s.cluster.gpu.compute.launch_overhead_s;
}

TEST(optimizer_traffic, MixedPrecisionMovesTheBytesMegatronsOptimizerMoves) {
  // stage_costs.cc: update alone 2 + 8 + 16 + 2 = 28 B per parameter (2-byte gradients). Full:
  // BF16 copy to FP32 main grads 6 + norm 4 + update 4 + 8 + 16 + copy to model 6 + zero 2 = 46;
  // FP16 adds unscale with inf check 8 = 54.
  EXPECT_NEAR(optimizer_stream_seconds("bf16", true) / optimizer_stream_seconds("bf16", false),
              46.0 / 28.0, 1e-12);
  EXPECT_NEAR(optimizer_stream_seconds("fp16", true) / optimizer_stream_seconds("fp16", false),
              54.0 / 28.0, 1e-12);
}

}  // namespace
}  // namespace shardsim
