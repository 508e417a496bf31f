// The host as a resource (simulator/cost/host_dispatch.h) and the mixed-precision optimizer's byte
// traffic (simulator/cost/stage_costs.cc): the pure functions against hand arithmetic, and a whole
// step that is host-bound or GPU-bound by construction, in both the DES and the analytic model.
#include <gtest/gtest.h>

#include "simulator/analytic/analytic.h"
#include "simulator/cost/host_dispatch.h"
#include "simulator/cost/op_table.h"
#include "simulator/cost/step_costs.h"
#include "simulator/des/step_sim.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"
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
  EXPECT_DOUBLE_EQ(host_exposed(3e-3, 1e-3, 0), 2e-3);
  EXPECT_EQ(host_exposed(1e-3, 3e-3, 0), 0);
}

TEST(host_dispatch, ASyncFractionAddsThatShareOfTheShorterTime) {
  // item time = max(G, H) + s min(G, H), so the wait beyond G is max(0, H - G) + s min(G, H).
  // Host-bound, H = 3 ms, G = 1 ms, s = 0.25: 2 ms + 0.25 x 1 ms = 2.25 ms (item 4.25 ms).
  EXPECT_NEAR(host_exposed(3e-3, 1e-3, 0.25), 2.25e-3, 1e-15);
  // GPU-bound, H = 1 ms, G = 3 ms, s = 0.25: 0 + 0.25 x 1 ms = 0.25 ms (item 3.25 ms).
  EXPECT_NEAR(host_exposed(1e-3, 3e-3, 0.25), 0.25e-3, 1e-15);
  // s = 1, a host that waits for every operation: item H + G = 4 ms, so the wait is H = 1 ms
  // beyond G = 3 ms, whichever of the two is longer.
  EXPECT_NEAR(host_exposed(1e-3, 3e-3, 1), 1e-3, 1e-15);
  EXPECT_NEAR(host_exposed(3e-3, 1e-3, 1), 3e-3, 1e-15);
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

TEST(host_dispatch, AFullySerialHostAddsTheGpusTimeToItsOwnInBothModels) {
  // host_sync_fraction 1: every item takes H + G instead of max(G, H), so the step is the host
  // time of the test above plus the GPU's compute (taken from the overlapping run, whose compute
  // breakdown is the GPU's own time), the optimizer and the 0.25 s step overhead.
  nlohmann::json j = gpt(10e-3);
  const Scenario overlapping = scenario_from_json(j, "");
  j["framework"]["host_sync_fraction"] = 1;
  const Scenario serial = scenario_from_json(j, "");
  const Plan plan = make_plan(serial);
  const StepCosts c = compute_step_costs(serial, plan);
  const StepResult base = simulate_step(overlapping, plan, compute_step_costs(overlapping, plan));
  const double gpu = base.breakdown[TimeCategory::kCompute];
  const double host = base.breakdown[TimeCategory::kHostDispatch] + gpu - 0.25;  // items: H
  const double optimizer = c.stages[0].optimizer_seconds;
  EXPECT_GT(gpu, 0);
  EXPECT_NEAR(simulate_step(serial, plan, c).step_seconds, host + gpu + optimizer + 0.25, 1e-9);
  EXPECT_NEAR(analytic_step(serial, plan, c).step_seconds, host + gpu + optimizer + 0.25, 1e-9);
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
  nlohmann::json j = gpt(10e-3);
  j["framework"]["host_sync_fraction"] = 0.5;
  const Scenario s = scenario_from_json(j, "", {"effects.host_dispatch=false"});
  EXPECT_EQ(s.framework.op_dispatch_s, 0);
  EXPECT_EQ(s.framework.step_overhead_s, 0);
  EXPECT_EQ(s.framework.host_sync_fraction, 0);
  const Plan plan = make_plan(s);
  EXPECT_EQ(
      simulate_step(s, plan, compute_step_costs(s, plan)).breakdown[TimeCategory::kHostDispatch],
      0);
}

// The optimizer's seconds minus its one launch, with the full traffic on or off, on a profile with
// one scalar memory-bound efficiency (so time is proportional to bytes).
double optimizer_stream_seconds(const std::string& precision, bool full,
                                std::vector<std::string> more = {}) {
  more.push_back("effects.kernel_bandwidth=false");
  more.push_back(std::string("effects.optimizer_traffic=") + (full ? "true" : "false"));
  const Scenario s = scenario_from_json(gpt(0, precision), "", more);
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

TEST(optimizer_traffic, PytorchsClipScalesTheGradientsEveryStep) {
  // training.grad_clip_scaling "always" (torch.nn.utils.clip_grad_norm_) adds the FP32 (main)
  // gradients' scaling, read and written: 8 B. BF16 with FP32 main gradients: norm 4 + update
  // 4 + 8 + 16 + copy to model 6 + zero 4 = 42 B, and 50 B with the scaling, what PyTorch's five
  // optimizer kernels moved on an H200 (calibrate/h200-sxm-2026-11-30/README.md). BF16 with
  // 2-byte gradients: 46 -> 54. Without the full traffic nothing is added (28 B either way).
  const std::vector<std::string> fp32_grads = {"training.grad_dtype=\"fp32\""};
  auto always = fp32_grads;
  always.push_back("training.grad_clip_scaling=\"always\"");
  EXPECT_NEAR(optimizer_stream_seconds("bf16", true, always) /
                  optimizer_stream_seconds("bf16", true, fp32_grads),
              50.0 / 42.0, 1e-12);
  EXPECT_NEAR(optimizer_stream_seconds("bf16", true, {"training.grad_clip_scaling=\"always\""}) /
                  optimizer_stream_seconds("bf16", true),
              54.0 / 46.0, 1e-12);
  EXPECT_NEAR(optimizer_stream_seconds("bf16", false, {"training.grad_clip_scaling=\"always\""}),
              optimizer_stream_seconds("bf16", false), 1e-15);
}

// A block's or the embedding's backward-weight compute with and without
// training.grad_accumulation_fusion, with one scalar memory-bound efficiency (kernel_bandwidth
// off): each add kernel then costs bytes / (HBM x efficiency) + one launch.
struct AddSeconds {
  double block = 0, embedding = 0;  // unfused minus fused
};
AddSeconds unfused_add_seconds(const std::vector<std::string>& more) {
  auto unfused = more;
  unfused.push_back("effects.kernel_bandwidth=false");
  auto fused = unfused;
  unfused.push_back("training.grad_accumulation_fusion=false");
  const Scenario a = scenario_from_json(gpt(0), "", fused);
  const Scenario b = scenario_from_json(gpt(0), "", unfused);
  const Plan plan = make_plan(a);
  const StepCosts ca = compute_step_costs(a, plan), cb = compute_step_costs(b, plan);
  EXPECT_DOUBLE_EQ(cb.layer(0).work.fwd.total(), ca.layer(0).work.fwd.total());
  EXPECT_DOUBLE_EQ(cb.layer(0).work.bwd_input.total(), ca.layer(0).work.bwd_input.total());
  return {cb.layer(0).work.bwd_weight.total() - ca.layer(0).work.bwd_weight.total(),
          cb.embedding.work.bwd_weight.total() - ca.embedding.work.bwd_weight.total()};
}

// A block's parameters and groups, split by whether a linear layer's GEMM writes the gradient
// (layer_params' gemm_weight: the four matmul weights) or autograd does (biases, LayerNorms).
struct BlockGroups {
  double gemm_params = 0, gemm_groups = 0, other_params = 0, other_groups = 0;
};
BlockGroups block_groups(const Scenario& s) {
  BlockGroups b;
  for (const auto& g : layer_params(s.model, 0)) {
    if (g.count <= 0) continue;
    (g.gemm_weight ? b.gemm_params : b.other_params) += g.count;
    (g.gemm_weight ? b.gemm_groups : b.other_groups) += 1;
  }
  return b;
}

TEST(main_grad_accumulation, UnfusedAddsTheGradientAndTheBufferPerParameterEachMicroBatch) {
  // training.grad_accumulation_fusion false: every parameter group of a block gets one add kernel
  // in its backward-weight pass, reading the gradient its GEMM wrote (2 B in bf16) and reading
  // and writing the buffer (2 x 4 B with FP32 main gradients, 2 x 2 B with 16-bit ones): 10 B
  // or 6 B per parameter. With fusion the GEMM-written groups add nothing and the others are
  // added by Megatron's hook with the same bytes, so the block's backward-weight compute grows by
  // P x bytes / (HBM x eff) + G x launch over the GEMM-written groups (P parameters, G groups);
  // nothing else changes, and the embedding, written by autograd either way, costs the same.
  const Scenario s = scenario_from_json(gpt(0), "");
  const BlockGroups b = block_groups(s);
  const GpuProfile& gpu = s.cluster.gpu;
  const double rate = gpu.hbm_bytes_per_second * gpu.compute.memory_bound_efficiency;
  const double launches = b.gemm_groups * gpu.compute.launch_overhead_s;
  const AddSeconds fp32 = unfused_add_seconds({"training.grad_dtype=\"fp32\""});
  EXPECT_NEAR(fp32.block, b.gemm_params * 10 / rate + launches, 1e-12);
  EXPECT_NEAR(fp32.embedding, 0, 1e-15);
  EXPECT_NEAR(unfused_add_seconds({}).block, b.gemm_params * 6 / rate + launches, 1e-12);
  // grad_accumulation_cast separate (DeepSpeed's BF16 optimizer, hp_grad.add_(lp.grad.to(fp32))):
  // a copy kernel reads the bf16 gradient and writes an fp32 temporary (2 + 4 B), the add reads
  // it and reads and writes the buffer (3 x 4 B): 18 B per parameter and two launches per group,
  // for every group (its adds replace the hook's 10 B and one launch for the others).
  // With 16-bit gradients .to() copies nothing and the add is the one above.
  const AddSeconds cast = unfused_add_seconds(
      {"training.grad_dtype=\"fp32\"", "training.grad_accumulation_cast=separate"});
  EXPECT_NEAR(cast.block,
              b.gemm_params * 18 / rate + 2 * launches + b.other_params * (18 - 10) / rate +
                  b.other_groups * gpu.compute.launch_overhead_s,
              1e-12);
  EXPECT_NEAR(unfused_add_seconds({"training.grad_accumulation_cast=separate"}).block,
              b.gemm_params * 6 / rate + launches, 1e-12);
}

TEST(main_grad_accumulation, FusedAccumulationStillAddsWhatNoGemmWrites) {
  // Fusion on (the default): Megatron's hook adds the gradients autograd wrote, main_grad.add_(
  // param.grad), for the groups no linear layer's GEMM accumulates: a block's biases and
  // LayerNorms, the word embedding, the final norm (gpt() ties its embeddings: no output
  // projection). Per parameter 2 B read + 2 x 2 B of the bf16 buffer = 6 B (10 B with fp32
  // gradients), one launch per group. The op table lists them as grad_accumulate rows, and the
  // matmul weights have none.
  const Scenario s = scenario_from_json(gpt(0), "", {"effects.kernel_bandwidth=false"});
  const BlockGroups b = block_groups(s);
  // The split the hook follows, counted by hand for gpt()'s block (h 1,024, biases, LayerNorm):
  // two LayerNorms 2 x 2h, the QKV bias 3h, the attention-output bias h, fc1's 4h, fc2's h =
  // 13,312 parameters in 6 groups; the four matmul weights 12h^2 = 12,582,912 in 4.
  EXPECT_DOUBLE_EQ(b.other_params, 13312.0);
  EXPECT_DOUBLE_EQ(b.other_groups, 6.0);
  EXPECT_DOUBLE_EQ(b.gemm_params, 12582912.0);
  EXPECT_DOUBLE_EQ(b.gemm_groups, 4.0);
  const GpuProfile& gpu = s.cluster.gpu;
  const double rate = gpu.hbm_bytes_per_second * gpu.compute.memory_bound_efficiency;
  const double vocab = padded_vocab(s.model.vocab, 1);  // 51200, already a multiple of 128
  double block = 0, embedding = 0;
  int rows = 0;
  for (const OpCostRow& r : op_cost_rows(s, make_plan(s))) {
    if (r.name != "grad_accumulate") continue;
    ++rows;
    if (r.part == "dense block") block = r.pass[2].seconds;
    if (r.part == "embedding") embedding = r.pass[2].seconds;
  }
  EXPECT_EQ(rows, 3);  // embedding, dense block, output (its final norm)
  EXPECT_NEAR(block, b.other_params * 6 / rate + b.other_groups * gpu.compute.launch_overhead_s,
              1e-12);
  // gpt(): 51200 x 1024 word embedding; its position table (learned, 2048 x 1024) is a group
  // of its own.
  const double positions = 2048.0 * 1024;
  EXPECT_NEAR(embedding, (vocab * 1024 + positions) * 6 / rate + 2 * gpu.compute.launch_overhead_s,
              1e-12);
  // Untied embeddings: the output projection is a linear layer whose GEMM accumulates, so the
  // output part's row is still its final LayerNorm alone: weight and bias, 2 x 1,024 parameters.
  auto untied_json = gpt(0);
  untied_json["model"]["tied_embeddings"] = false;
  const Scenario untied = scenario_from_json(untied_json, "", {"effects.kernel_bandwidth=false"});
  double output = -1;
  for (const OpCostRow& r : op_cost_rows(untied, make_plan(untied)))
    if (r.name == "grad_accumulate" && r.part == "output") output = r.pass[2].seconds;
  EXPECT_NEAR(output, 2 * 1024.0 * 6 / rate + gpu.compute.launch_overhead_s, 1e-12);
  // ZeRO-2 and 3 shard the gradients: those stacks (DeepSpeed, FSDP) have no Megatron buffer and
  // hook, and nothing is added.
  for (const char* zero : {"parallel.zero=2", "parallel.zero=3"}) {
    const Scenario z = scenario_from_json(gpt(0), "", {zero});
    for (const OpCostRow& r : op_cost_rows(z, make_plan(z))) EXPECT_NE(r.name, "grad_accumulate");
  }
}

TEST(main_grad_accumulation, IntoPyTorchsGradTheFirstMicroBatchIsAssignedNotAdded) {
  // grad_accumulation_target param_grad: autograd's AccumulateGrad assigns the first
  // micro-batch's gradient to .grad (None after zero_grad) and adds each later one in place, so
  // a step of m micro-batches runs m - 1 adds, spread as (m - 1) / m of one per micro-batch. gpt()
  // has global_batch 2 on one GPU, micro-batch 1: m = 2. Against the fused step, whose hook adds
  // the groups no GEMM writes every micro-batch, the block's unfused compute is half of every
  // group's 6 B/parameter add (bf16 gradients: read 2 B, read and write the 2 B .grad) less the
  // hook's adds, launches included.
  const Scenario s = scenario_from_json(gpt(0), "");
  const BlockGroups b = block_groups(s);
  const GpuProfile& gpu = s.cluster.gpu;
  const double rate = gpu.hbm_bytes_per_second * gpu.compute.memory_bound_efficiency;
  const double launch = gpu.compute.launch_overhead_s;
  const double all =
      (b.gemm_params + b.other_params) * 6 / rate + (b.gemm_groups + b.other_groups) * launch;
  const double hook = b.other_params * 6 / rate + b.other_groups * launch;
  EXPECT_NEAR(unfused_add_seconds({"training.grad_accumulation_target=param_grad"}).block,
              all / 2 - hook, 1e-12);
  // global_batch 6: m = 6, five adds in six micro-batches.
  EXPECT_NEAR(unfused_add_seconds(
                  {"training.grad_accumulation_target=param_grad", "training.global_batch=6"})
                  .block,
              all * 5 / 6 - hook, 1e-12);
  // One micro-batch per step: its gradient is assigned, nothing is added; the fused step still
  // pays the hook's adds.
  EXPECT_NEAR(unfused_add_seconds(
                  {"training.grad_accumulation_target=param_grad", "training.global_batch=1"})
                  .block,
              -hook, 1e-12);
}

}  // namespace
}  // namespace shardsim
