// Per-step costs: FLOP counts against Narayanan et al. SC'21 eq. 3 and its no-recompute form
// (published/README §4.1), TP/SP collective counts, recomputation, ZeRO-3 traffic (ZeRO paper:
// 1.5x DDP), and the per-GPU throughput derived from them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "simulator/analytic/analytic.h"
#include "simulator/cost/collective.h"
#include "simulator/cost/compute.h"
#include "simulator/cost/op_table.h"
#include "simulator/cost/step_costs.h"
#include "simulator/model/ops.h"
#include "simulator/model/params.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

// GPT-3-shaped model, small enough to reason about: l = 4, h = 1024, a = 16, V = 51200 (already
// a multiple of 128 * tp), s = 2048, micro-batch 1; dropout on, no flash attention (so attention
// FLOPs follow the unfused Megatron count).
nlohmann::json gpt(int tp, const std::string& recompute) {
  return {{"model",
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
            {"recompute", recompute},
            {"flash_attention", false}}},
          {"parallel", {{"tp", tp}}},
          {"cluster", {{"gpu", "a100-sxm-80gb"}, {"gpus_per_node", tp}, {"nodes", 1}}}};
}

// Model FLOPs per step per GPU (all ranks of a stage do the same work).
double flops_per_gpu(const Scenario& s, double(WorkCost::*field)) {
  const Plan plan = make_plan(s);
  const StepCosts c = compute_step_costs(s, plan);
  double per_mb = c.embedding.work.*field + c.output.work.*field;
  for (int l = 0; l < c.layer_count(); ++l) per_mb += c.layer(l).work.*field;
  return per_mb * double(plan.micro_batches);
}

// Narayanan eq. 3 family with B = 2 sequences, s = 2048, l = 4, h = 1024, V = 51200:
//   no recompute:   72 B s l h^2 (1 + s/(6h) + V/(12 l h))
//   full recompute: 96 B s l h^2 (1 + s/(6h) + V/(16 l h))
constexpr double kB = 2, kS = 2048, kL = 4, kH = 1024, kV = 51200;
constexpr double kModelFlops =
    72 * kB * kS * kL * kH * kH * (1 + kS / (6 * kH) + kV / (12 * kL * kH));
constexpr double kFullRecomputeFlops =
    96 * kB * kS * kL * kH * kH * (1 + kS / (6 * kH) + kV / (16 * kL * kH));

TEST(step_flops, ModelFlopsMatchNarayananWithoutRecompute) {
  const Scenario s = scenario_from_json(gpt(1, "none"), "");
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::model_flops), kModelFlops, 1e-9 * kModelFlops);
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::hardware_flops), kModelFlops, 1e-9 * kModelFlops);
}

TEST(step_flops, FlashAttentionCountsLikeMegatron) {
  // Fused attention: model FLOPs keep the Megatron count (unmasked; backward = 2x forward), so
  // attention is 3 x 4 s^2 h b per layer. The executed (hardware) FLOPs: the backward also
  // recomputes the scores (2.5x forward, 3.5x in all), and under the causal mask the kernel skips
  // half the tiles: 0.5 x 3.5 x 4 s^2 h b = 7 s^2 h b, so hardware = model - 5 s^2 h b per layer.
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["flash_attention"] = true;
  raw["model"]["dropout"] = false;
  const Scenario s = scenario_from_json(raw, "");
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::model_flops), kModelFlops, 1e-9 * kModelFlops);
  const double fewer = 5 * kS * kS * kH * kB * kL;
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::hardware_flops), kModelFlops - fewer, 1e-9 * kModelFlops);
}

TEST(step_flops, TensorParallelRanksEachDoTheirShare) {
  // tp = 2: every GEMM and the attention heads split in two -> half the FLOPs per GPU.
  const Scenario s = scenario_from_json(gpt(2, "none"), "");
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::model_flops), kModelFlops / 2, 1e-9 * kModelFlops);
}

TEST(step_flops, FullRecomputeHardwareFlopsMatchEquationThree) {
  // Eq. 3 counts 4 passes over the layers (forward, recomputed forward, 2x backward) but the
  // logits only 3 times: exactly the hardware FLOPs of full recomputation.
  const Scenario s = scenario_from_json(gpt(1, "full"), "");
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::model_flops), kModelFlops, 1e-9 * kModelFlops);
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::hardware_flops), kFullRecomputeFlops,
              1e-9 * kFullRecomputeFlops);
}

TEST(step_flops, SelectiveRecomputeAddsTheAttentionCoreForward) {
  // Selective recomputation repeats Q.K^T and P.V: 4 s^2 h b FLOPs per layer and micro-batch.
  const Scenario s = scenario_from_json(gpt(1, "selective"), "");
  const double extra = 4 * kS * kS * kH * kB * kL;
  EXPECT_NEAR(flops_per_gpu(s, &WorkCost::hardware_flops), kModelFlops + extra, 1e-9 * kModelFlops);
}

TEST(step_comm, TensorParallelCollectivesPerLayer) {
  // Megatron, per layer. Forward: 2 all-reduces of s*b*h*2 bytes without SP; with SP 2
  // all-gathers and 2 reduce-scatters of the same buffer, all exposed. Backward (asynchronous TP
  // communication in the column-parallel QKV and fc1 layers): without SP the 2 input-gradient
  // all-reduces hide behind those layers' weight-gradient GEMMs; with SP the 2 input re-gathers
  // hide behind their data-gradient GEMMs, the 2 reduce-scatters behind their weight-gradient
  // GEMMs, and the row-parallel layers' 2 output-gradient all-gathers are exposed.
  for (bool sp : {false, true}) {
    nlohmann::json raw = gpt(8, "none");
    raw["parallel"]["sp"] = sp;
    const Scenario s = scenario_from_json(raw, "");
    const Plan plan = make_plan(s);
    const StepCosts c = compute_step_costs(s, plan);
    const double bytes = kS * kH * 2;
    const GroupPlacement tp = place_group(8, 1, 8);
    const NetworkConfig& net = s.cluster.network;
    const double ar = collective_cost(CollectiveOp::kAllReduce, bytes, tp, net).seconds;
    const double ag = collective_cost(CollectiveOp::kAllGather, bytes, tp, net).seconds;
    const double rs = collective_cost(CollectiveOp::kReduceScatter, bytes, tp, net).seconds;
    double dgrad = 0, wgrad = 0;  // the column-parallel GEMMs' backward on one rank
    const OpShape shape{kS, kS, 1, false};
    for (const Op& op : layer_ops(s.model, 0, shape)) {
      if (op.kind != OpKind::kGemm || op.split != TpSplit::kColumn) continue;
      const OpContext ctx{8, sp, Dtype::kBf16};
      dgrad += op_cost(op, Pass::kBackwardInput, ctx, s.cluster.gpu).seconds;
      wgrad += op_cost(op, Pass::kBackwardWeight, ctx, s.cluster.gpu).seconds;
    }
    const double fwd = sp ? 2 * (ag + rs) : 2 * ar;
    const double bwd = sp ? 2 * ag + std::max(0.0, 2 * ag - dgrad) + std::max(0.0, 2 * rs - wgrad)
                          : std::max(0.0, 2 * ar - wgrad);
    EXPECT_DOUBLE_EQ(c.layer(0).work.fwd[TimeCategory::kTpComm], fwd) << "sp " << sp;
    EXPECT_DOUBLE_EQ(c.layer(0).work.bwd_input[TimeCategory::kTpComm], bwd) << "sp " << sp;
  }
}

// Context parallelism's exchange per layer and micro-batch by parallel.cp_comm_type (Transformer
// Engine's context_parallel.py). gpt(1) with flash attention at cp 2 on one node: each rank holds
// s / cp = 1024 tokens, so its Q, K, V and output are each 1024 x 16 heads x 64 x 2 B = 2 MiB.
// - all_gather: K and V all-gathered (nccl-tests size: the whole 2 x 2 MiB buffer) before the
//   attention, exposed; the backward gathers them again and reduce-scatters dK and dV.
// - a2a: all-to-alls of Q, K, V and the output (2 MiB each per rank) forward, of dO, dQ, dK, dV
//   backward, exposed.
// - p2p: below, at cp 2 and 4.
// Selective recomputation re-runs the core attention module with its exchange (Megatron's
// _checkpointed_attention_forward wraps Transformer Engine's attention, exchange included).
TEST(step_comm, ContextParallelExchangeByCommType) {
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["flash_attention"] = true;
  raw["parallel"]["cp"] = 2;
  raw["cluster"]["gpus_per_node"] = 2;
  const double mib2 = 1024.0 * 16 * 64 * 2;
  const GroupPlacement cp = place_group(2, 1, 2);
  const auto seconds = [&](CollectiveOp op, double bytes, const Scenario& s) {
    return collective_cost(op, bytes, cp, s.cluster.network).seconds;
  };
  const auto layer = [](const Scenario& s) { return compute_step_costs(s, make_plan(s)).layer(0); };
  {
    raw["parallel"]["cp_comm_type"] = "all_gather";
    const Scenario s = scenario_from_json(raw, "");
    const double ag = seconds(CollectiveOp::kAllGather, 2 * mib2, s);
    const double rs = seconds(CollectiveOp::kReduceScatter, 2 * mib2, s);
    const LayerCost l = layer(s);
    EXPECT_DOUBLE_EQ(l.work.fwd[TimeCategory::kCpComm], 2 * ag);
    EXPECT_DOUBLE_EQ(l.work.bwd_input[TimeCategory::kCpComm], 2 * ag + 2 * rs);
    raw["training"]["recompute"] = "selective";
    const LayerCost r = layer(scenario_from_json(raw, ""));
    EXPECT_DOUBLE_EQ(r.work.bwd_input[TimeCategory::kCpComm], 4 * ag + 2 * rs);
    raw["training"]["recompute"] = "none";
  }
  {
    raw["parallel"]["cp_comm_type"] = "a2a";
    const Scenario s = scenario_from_json(raw, "");
    const double a2a = seconds(CollectiveOp::kAllToAll, mib2, s);
    const LayerCost l = layer(s);
    EXPECT_DOUBLE_EQ(l.work.fwd[TimeCategory::kCpComm], 4 * a2a);
    EXPECT_DOUBLE_EQ(l.work.bwd_input[TimeCategory::kCpComm], 4 * a2a);
  }
  // p2p at cp 2 and 4 (this rank's K and V: 2048 / cp x 16 x 64 x 2 B each, kv = both): the
  // forward's cp - 1 steps of kv; the backward's cp steps send kv, then kv with dK and dV
  // (2 kv) cp - 2 times, then dK and dV (kv). At cp 4 that is 2 t(kv) + 2 t(2 kv), where the
  // rule before 2026-11-29 priced 6 t(kv).
  for (const int degree : {2, 4}) {
    raw["parallel"]["cp_comm_type"] = "p2p";
    raw["parallel"]["cp"] = degree;
    raw["cluster"]["gpus_per_node"] = degree;
    const Scenario s = scenario_from_json(raw, "");
    const GroupPlacement group = place_group(degree, 1, degree);
    const double kv = 2 * 2048.0 / degree * 16 * 64 * 2;
    const auto sr = [&](double bytes) {
      return collective_cost(CollectiveOp::kSendRecv, bytes, group, s.cluster.network).seconds;
    };
    double core_fwd = 0, core_bwd = 0;  // the flash attention op on one rank
    const OpShape shape{2048.0 / degree, 2048, 1, true};
    for (const Op& op : layer_ops(s.model, 0, shape))
      if (op.kind == OpKind::kFlashAttention) {
        const OpContext ctx{1, false, Dtype::kBf16};
        core_fwd += op_cost(op, Pass::kForward, ctx, s.cluster.gpu).seconds;
        core_bwd += op_cost(op, Pass::kBackwardInput, ctx, s.cluster.gpu).seconds;
      }
    ASSERT_GT(core_fwd, 0);
    const LayerCost l = layer(s);
    EXPECT_DOUBLE_EQ(l.work.fwd[TimeCategory::kCpComm],
                     std::max(0.0, (degree - 1) * sr(kv) - core_fwd))
        << degree;
    EXPECT_DOUBLE_EQ(l.work.bwd_input[TimeCategory::kCpComm],
                     std::max(0.0, 2 * sr(kv) + (degree - 2) * sr(2 * kv) - core_bwd))
        << degree;
  }
}

// Under the all-to-all a rank's attention core takes the whole sequence for heads / cp heads:
// the same FLOPs as s / cp queries of every head, so a step's compute and FLOPs do not change
// with the exchange. Under a window it holds no busiest chunk: gpt(1) at s = 2048, w = 512 is
// counted at 2 x 512 - 512^2 / 2048 = 896 keys for cp 1 and a2a (the ring's busiest rank of cp 2
// holds more: windowed_attention_keys(2048, 1024, 512) = 1024, chunks of 512 tokens).
TEST(step_comm, AllToAllAttentionTakesTheWholeSequenceForItsHeads) {
  ModelConfig m;
  m.layers = 1;
  m.hidden = 1024;
  m.heads = 16;
  m.vocab = 51200;
  m.sliding_window = 512;
  OpShape ring{1024, 2048, 1, true};
  ring.window = 512;
  OpShape a2a = ring;
  a2a.cp_heads = 2;
  const auto flash = [&](const OpShape& shape) {
    for (const Op& op : layer_ops(m, 0, shape))
      if (op.kind == OpKind::kFlashAttention) return op;
    return Op{};
  };
  EXPECT_EQ(flash(ring).m, 1024);
  EXPECT_EQ(flash(ring).batch, 16);
  EXPECT_EQ(flash(ring).n, 1024);
  EXPECT_EQ(flash(a2a).m, 2048);
  EXPECT_EQ(flash(a2a).batch, 8);
  EXPECT_EQ(flash(a2a).n, 896);
  EXPECT_EQ(flash(a2a).elements, flash(ring).elements);  // the same Q, K, V on the rank
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["flash_attention"] = true;
  raw["parallel"]["cp"] = 2;
  raw["cluster"]["gpus_per_node"] = 2;
  const Scenario p2p = scenario_from_json(raw, "");
  raw["parallel"]["cp_comm_type"] = "a2a";
  const Scenario all = scenario_from_json(raw, "");
  for (auto field : {&WorkCost::model_flops, &WorkCost::hardware_flops}) {
    const double a = flops_per_gpu(p2p, field), b = flops_per_gpu(all, field);
    EXPECT_NEAR(a, b, 1e-12 * a);
  }
}

// One layer's GEMM seconds on one TP-8 rank, per pass, from op_cost (the priced ops alone).
struct GemmSeconds {
  double fwd = 0, dgrad = 0, wgrad = 0;
};
GemmSeconds layer_gemm_seconds(const Scenario& s, bool sp) {
  GemmSeconds g;
  const OpContext ctx{8, sp, Dtype::kBf16};
  for (const Op& op : layer_ops(s.model, 0, OpShape{kS, kS, 1, false})) {
    if (op.kind != OpKind::kGemm) continue;
    g.fwd += op_cost(op, Pass::kForward, ctx, s.cluster.gpu).seconds;
    g.dgrad += op_cost(op, Pass::kBackwardInput, ctx, s.cluster.gpu).seconds;
    g.wgrad += op_cost(op, Pass::kBackwardWeight, ctx, s.cluster.gpu).seconds;
  }
  return g;
}

TEST(step_comm, TensorParallelOverlapHidesBehindSlowedGemms) {
  // parallel.overlap_tp_comm (Transformer Engine's userbuffers, which replaces the asynchronous
  // scheme of the test above): each pass's TP collectives hide behind the pass's GEMMs, which run
  // at 1 / (1 + s) while they do, s the profile's overlap_compute_slowdown (cost/contention.h).
  // GEMMs of c seconds beside g seconds of collectives take c + g s / (1 + s) when g < c (1 + s),
  // else g: the exposed part is the time over c. With SP the forward's g = 2 (AG + RS) and the
  // backward's g = 4 AG + 2 RS (the column-parallel layers gather their input again and
  // reduce-scatter the input gradient, the row-parallel layers gather the output gradient);
  // without SP both are 2 AR. Hidden 8192 on TP 8 makes the GEMMs outlast the collectives, so
  // the slowdown is what shows. Activations are bf16: s*h*2 bytes per collective.
  nlohmann::json raw = gpt(8, "none");
  raw["model"]["hidden"] = 8192;
  raw["model"]["heads"] = 64;
  raw["parallel"]["overlap_tp_comm"] = true;
  const double bytes = kS * 8192 * 2;
  const GroupPlacement tp = place_group(8, 1, 8);
  for (bool sp : {true, false}) {
    raw["parallel"]["sp"] = sp;
    const Scenario s = scenario_from_json(raw, "");
    const double slow = s.cluster.gpu.compute.overlap_compute_slowdown;
    ASSERT_GT(slow, 0);
    const NetworkConfig& net = s.cluster.network;
    const double ag = collective_cost(CollectiveOp::kAllGather, bytes, tp, net).seconds;
    const double rs = collective_cost(CollectiveOp::kReduceScatter, bytes, tp, net).seconds;
    const double ar = collective_cost(CollectiveOp::kAllReduce, bytes, tp, net).seconds;
    const GemmSeconds g = layer_gemm_seconds(s, sp);
    const double gemm_fwd = g.fwd, gemm_bwd = g.dgrad + g.wgrad;
    const double comm_fwd = sp ? 2 * (ag + rs) : 2 * ar;
    const double comm_bwd = sp ? 4 * ag + 2 * rs : 2 * ar;
    // The slowed-GEMM branch (not the comm-bound one), and GEMMs long enough that the overlap
    // hides everything once the slowdown is off.
    ASSERT_LT(comm_fwd, gemm_fwd) << "sp " << sp;
    ASSERT_LT(comm_bwd, gemm_bwd) << "sp " << sp;
    const StepCosts c = compute_step_costs(s, make_plan(s));
    EXPECT_NEAR(c.layer(0).work.fwd[TimeCategory::kTpComm], comm_fwd * slow / (1 + slow), 1e-15)
        << "sp " << sp;
    EXPECT_NEAR(c.layer(0).work.bwd_input[TimeCategory::kTpComm], comm_bwd * slow / (1 + slow),
                1e-15)
        << "sp " << sp;
    EXPECT_GT(c.layer(0).work.fwd[TimeCategory::kTpComm], 0);

    // effects.comm_contention = false: the overlap is free, nothing is exposed.
    nlohmann::json off = raw;
    off["effects"]["comm_contention"] = false;
    const Scenario free_overlap = scenario_from_json(off, "");
    const StepCosts f = compute_step_costs(free_overlap, make_plan(free_overlap));
    EXPECT_EQ(f.layer(0).work.fwd[TimeCategory::kTpComm], 0) << "sp " << sp;
    EXPECT_EQ(f.layer(0).work.bwd_input[TimeCategory::kTpComm], 0) << "sp " << sp;
  }

  // Zero-bubble schedules run the weight-gradient GEMMs in their own later pass: only the
  // input-gradient GEMMs (c_dgrad) hide the backward's collectives. At hidden 3072 (SP) those
  // collectives outlast the slowed input-gradient GEMMs but not all the backward's GEMMs:
  // exposed g - c_dgrad, where pooling every backward GEMM would give g s / (1 + s).
  nlohmann::json zb_raw = raw;
  zb_raw["model"]["hidden"] = 3072;
  zb_raw["model"]["heads"] = 24;
  zb_raw["parallel"]["sp"] = true;
  zb_raw["parallel"]["pp"] = 2;
  zb_raw["parallel"]["schedule"] = "zb-h1";
  zb_raw["cluster"]["nodes"] = 2;
  const Scenario zb = scenario_from_json(zb_raw, "");
  const double slow = zb.cluster.gpu.compute.overlap_compute_slowdown;
  const double zb_bytes = kS * 3072 * 2;
  const NetworkConfig& zb_net = zb.cluster.network;
  const double zb_ag = collective_cost(CollectiveOp::kAllGather, zb_bytes, tp, zb_net).seconds;
  const double zb_rs = collective_cost(CollectiveOp::kReduceScatter, zb_bytes, tp, zb_net).seconds;
  const GemmSeconds zb_g = layer_gemm_seconds(zb, true);
  const double zb_dgrad = zb_g.dgrad, zb_wgrad = zb_g.wgrad;
  const double zb_comm = 4 * zb_ag + 2 * zb_rs;
  ASSERT_GT(zb_comm, zb_dgrad * (1 + slow));
  ASSERT_LT(zb_comm, (zb_dgrad + zb_wgrad) * (1 + slow));
  EXPECT_NEAR(compute_step_costs(zb, make_plan(zb)).layer(0).work.bwd_input[TimeCategory::kTpComm],
              zb_comm - zb_dgrad, 1e-15);
}

TEST(step_comm, FullRecomputeRepeatsTheForwardInBackward) {
  const Scenario s = scenario_from_json(gpt(2, "full"), "");
  const StepCosts c = compute_step_costs(s, make_plan(s));
  const WorkCost& w = c.layer(0).work;
  EXPECT_DOUBLE_EQ(w.bwd_input[TimeCategory::kRecompute], w.fwd[TimeCategory::kCompute]);
  // The recomputed forward's TP collectives run again, on top of the backward's own.
  const Scenario none = scenario_from_json(gpt(2, "none"), "");
  const double backward_own =
      compute_step_costs(none, make_plan(none)).layer(0).work.bwd_input[TimeCategory::kTpComm];
  EXPECT_DOUBLE_EQ(w.bwd_input[TimeCategory::kTpComm], w.fwd[TimeCategory::kTpComm] + backward_own);
}

TEST(step_comm, ZeroThreeMovesOneAndAHalfTimesTheBytesOfDdp) {
  // ZeRO paper §5: DDP all-reduces the gradients, 2 Psi elements on the wire per GPU (x (n-1)/n);
  // ZeRO-3 gathers the parameters in forward and in backward and reduce-scatters the gradients:
  // 3 Psi, i.e. 1.5x (one micro-batch per step, bf16 parameters and gradients).
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["global_batch"] = 8;  // dp 8, one micro-batch each
  raw["cluster"]["gpus_per_node"] = 8;
  const Scenario ddp = scenario_from_json(raw, "");
  raw["parallel"]["zero"] = 3;
  const Scenario z3 = scenario_from_json(raw, "");
  const double ddp_bytes = compute_step_costs(ddp, make_plan(ddp)).stages[0].dp_wire_bytes;
  const double z3_bytes = compute_step_costs(z3, make_plan(z3)).stages[0].dp_wire_bytes;
  EXPECT_GT(ddp_bytes, 0);
  EXPECT_DOUBLE_EQ(z3_bytes / ddp_bytes, 1.5);
}

// Megatron's finalize_model_grads all-reduces the tied embedding's gradient between the first and
// last pipeline stage (_allreduce_embedding_grads), found missing by review (2026-11-28). The gpt()
// model on pp 2 x tp 2, one node: V_padded = 51200 (a multiple of 128 x 2), so each of those
// stages ends with a bucket of 51200 / 2 x 1024 = 26,214,400 gradient elements x 2 B (bf16,
// grad_dtype same) = 52,428,800 B, priced as an all-reduce over a group of 2 on one node. Untied,
// no such bucket.
TEST(step_comm, TiedEmbeddingsAllReduceBetweenTheFirstAndLastStage) {
  nlohmann::json raw = gpt(2, "none");
  raw["parallel"]["pp"] = 2;
  raw["cluster"]["gpus_per_node"] = 4;
  const Scenario tied = scenario_from_json(raw, "");
  raw["model"]["tied_embeddings"] = false;
  const Scenario untied = scenario_from_json(raw, "");
  const StepCosts t = compute_step_costs(tied, make_plan(tied));
  const StepCosts u = compute_step_costs(untied, make_plan(untied));
  const double bytes = 51200.0 / 2 * 1024 * 2;
  const double seconds =
      collective_cost(CollectiveOp::kAllReduce, bytes, {2, 2}, tied.cluster.network).seconds;
  for (int i : {0, 1}) {
    const auto& tb = t.stages[std::size_t(i)].buckets;
    const auto& ub = u.stages[std::size_t(i)].buckets;
    ASSERT_EQ(tb.size(), ub.size() + 1) << "stage " << i;
    EXPECT_EQ(tb.back().trigger_layer, -1);
    EXPECT_DOUBLE_EQ(tb.back().bytes, bytes);
    EXPECT_DOUBLE_EQ(tb.back().seconds, seconds);
  }
}

TEST(step_throughput, MfuIsModelFlopsOverStepTimesPeak) {
  const Scenario s = scenario_from_json(gpt(1, "none"), "");
  const Plan plan = make_plan(s);
  const StepCosts c = compute_step_costs(s, plan);
  const Throughput t = throughput(s, plan, c, 2.0);  // a 2 s step
  // A100 dense bf16 peak 312e12 FLOP/s (published/README §9); tokens = 2 x 2048.
  EXPECT_NEAR(t.mfu, kModelFlops / 2.0 / 312e12, 1e-12);
  EXPECT_DOUBLE_EQ(t.tokens_per_second, 2 * 2048 / 2.0);
  EXPECT_NEAR(t.model_tflops_per_gpu, kModelFlops / 2.0 / 1e12, 1e-9);
}

// simulate --ops (cost/op_table.h) lists the ops compute_step_costs prices, on the same context.
// For gpt(2, "none") (TP 2, one micro-batch of 2048 tokens, h 1024, V 51200):
//   qkv_projection forward = 2 x tokens x k x n / tp = 2 x 2048 x 1024 x 3072 / 2 = 6,442,450,944
//   output_projection forward = 2 x 2048 x 1024 x 51200 / 2 = 107,374,182,400
// and, summed over the rows, the dense block's forward seconds are the block's forward compute,
// and the rows' FLOPs (embedding + 4 blocks + output) are the micro-batch's hardware FLOPs.
TEST(op_table, RowsAreTheOpsTheStepPrices) {
  const Scenario s = scenario_from_json(gpt(2, "none"), "");
  const Plan plan = make_plan(s);
  const std::vector<OpCostRow> rows = op_cost_rows(s, plan);
  const StepCosts c = compute_step_costs(s, plan);
  double block_fwd = 0, flops = 0;
  int blocks = 0;
  for (const OpCostRow& r : rows) {
    const double f = r.pass[0].flops + r.pass[1].flops + r.pass[2].flops;
    flops += r.part == "dense block" ? 4 * f : f;
    if (r.part == "dense block") {
      block_fwd += r.pass[0].seconds;
      ++blocks;
    }
    if (r.name == "qkv_projection") {
      EXPECT_EQ(r.kind, "gemm");
      EXPECT_DOUBLE_EQ(r.pass[0].flops, 6442450944.0);
    }
    if (r.name == "output_projection") {
      EXPECT_DOUBLE_EQ(r.pass[0].flops, 107374182400.0);
    }
  }
  EXPECT_GT(blocks, 5);
  EXPECT_EQ(rows.front().part, "embedding");
  EXPECT_EQ(rows.back().part, "output");
  EXPECT_DOUBLE_EQ(block_fwd, c.layer(0).work.fwd[TimeCategory::kCompute]);
  double step_hw = c.embedding.work.hardware_flops + c.output.work.hardware_flops;
  for (int l = 0; l < c.layer_count(); ++l) step_hw += c.layer(l).work.hardware_flops;
  EXPECT_NEAR(flops, step_hw, 1e-12 * step_hw);
}

// training.grad_accumulation_fusion false with FP32 gradients and grad_accumulation_cast separate
// (DeepSpeed's BF16 optimizer): each part lists a grad_copy_to_fp32 row (bf16 read 2 B + fp32
// written 4 B per parameter on the rank) and a grad_accumulate row (the copy read, the buffer read
// and written: 3 x 4 B), backward-weight pass only, and a dense block's rows sum to the block's
// backward-weight compute. Default fusion: only the hook's grad_accumulate rows, for the groups
// no GEMM writes (main_grad_accumulation.FusedAccumulationStillAddsWhatNoGemmWrites), and no
// copies even with the separate cast. gpt(2, "none") at TP 2: a block's weights split over the
// two ranks, its LayerNorms and the row-parallel biases whole (layer_params).
TEST(op_table, UnfusedGradientAccumulationHasRowsOfItsOwn) {
  const Scenario s =
      scenario_from_json(gpt(2, "none"), "",
                         {"training.grad_accumulation_fusion=false", "training.grad_dtype=fp32",
                          "training.grad_accumulation_cast=separate"});
  const Plan plan = make_plan(s);
  const StepCosts c = compute_step_costs(s, plan);
  double on_rank = 0;
  for (const auto& g : layer_params(s.model, 0))
    on_rank += g.shard == ParamShard::kTensor ? g.count / 2 : g.count;
  double block_bwd_weight = 0;
  int grad_rows = 0;
  for (const OpCostRow& r : op_cost_rows(s, plan)) {
    if (r.part == "dense block") block_bwd_weight += r.pass[2].seconds;
    if (r.name != "grad_copy_to_fp32" && r.name != "grad_accumulate") continue;
    ++grad_rows;
    EXPECT_EQ(r.kind, "elementwise");
    EXPECT_EQ(r.pass[0].seconds + r.pass[1].seconds, 0.0);
    if (r.part == "dense block") {
      EXPECT_DOUBLE_EQ(r.pass[2].bytes, on_rank * (r.name == "grad_accumulate" ? 12 : 6));
    }
  }
  EXPECT_EQ(grad_rows, 6);  // embedding, dense block, output (its norm): a copy and an add each
  EXPECT_NEAR(block_bwd_weight, c.layer(0).work.bwd_weight[TimeCategory::kCompute],
              1e-12 * block_bwd_weight);
  // Fusion on, with or without the separate cast: no copy rows, and a block's add row moves
  // the bytes of its groups that no GEMM writes only (2 B + 2 x 2 B, or 2 x 4 B with fp32
  // gradients, per parameter).
  double other_on_rank = 0;
  for (const auto& g : layer_params(s.model, 0))
    if (!g.gemm_weight) other_on_rank += g.shard == ParamShard::kTensor ? g.count / 2 : g.count;
  for (const auto& sets : std::vector<std::vector<std::string>>{
           {}, {"training.grad_dtype=fp32", "training.grad_accumulation_cast=separate"}}) {
    const Scenario fused = scenario_from_json(gpt(2, "none"), "", sets);
    const double per_param = sets.empty() ? 6 : 10;
    for (const OpCostRow& r : op_cost_rows(fused, make_plan(fused))) {
      EXPECT_NE(r.name, "grad_copy_to_fp32");
      if (r.name == "grad_accumulate" && r.part == "dense block") {
        EXPECT_DOUBLE_EQ(r.pass[2].bytes, other_on_rank * per_param);
      }
    }
  }
}

// The embedding's backward first zero-fills the gradient of the rank's whole table (PyTorch's
// embedding_dense_backward: at::zeros({num_weights, dim})), then adds each token's row. gpt(2):
// vocabulary 51,200 (a multiple of 128 x 2, so not padded) over TP 2 = 25,600 rows x 1,024 x 2 B
// (bf16) = 52,428,800 B of fill; the lookup's backward moves kBackwardBytes (2) x its forward's
// bytes (2,048 tokens x 1,024 x 2 B read and written = 8,388,608 B) = 16,777,216 B. Forward: the
// 8,388,608 B alone.
TEST(op_table, EmbeddingBackwardZeroFillsTheRanksTable) {
  const Scenario s = scenario_from_json(gpt(2, "none"), "");
  int rows = 0;
  for (const OpCostRow& r : op_cost_rows(s, make_plan(s))) {
    if (r.name != "embedding") continue;
    ++rows;
    EXPECT_DOUBLE_EQ(r.pass[0].bytes, 8388608.0);
    EXPECT_DOUBLE_EQ(r.pass[1].bytes, 16777216.0 + 52428800.0);
    EXPECT_EQ(r.pass[2].bytes, 0.0);
  }
  EXPECT_EQ(rows, 1);
}

// The loss row prices the scenario's implementation, and effects.cross_entropy_traffic off prices
// the generic streaming op. Logits per TP rank: s V / tp = 2048 * 51200 / 2 = 52,428,800; bf16
// (the default precision). Forward bytes per logit (core/cross_entropy.h): vocabulary-parallel
// 38 -> 1,992,294,400 B; fused 4 -> 209,715,200 B; streaming 4 -> 209,715,200 B. Backward:
// 14 -> 734,003,200 B, 4 -> 209,715,200 B, 8 -> 419,430,400 B.
TEST(op_table, LossRowMovesItsImplementationsBytes) {
  const auto loss_bytes = [](const std::vector<std::string>& sets) {
    const Scenario s = scenario_from_json(gpt(2, "none"), "", sets);
    for (const OpCostRow& r : op_cost_rows(s, make_plan(s)))
      if (r.name == "cross_entropy") return std::pair{r.pass[0].bytes, r.pass[1].bytes};
    ADD_FAILURE() << "no cross_entropy row";
    return std::pair{0.0, 0.0};
  };
  EXPECT_EQ(loss_bytes({}), (std::pair{1992294400.0, 734003200.0}));
  EXPECT_EQ(loss_bytes({"training.cross_entropy=fused"}), (std::pair{209715200.0, 209715200.0}));
  EXPECT_EQ(loss_bytes({"effects.cross_entropy_traffic=false"}),
            (std::pair{209715200.0, 419430400.0}));
  EXPECT_EQ(loss_bytes({"training.cross_entropy=fused", "effects.cross_entropy_traffic=false"}),
            (std::pair{209715200.0, 419430400.0}));
}

// Sliding-window attention (model/ops.h windowed_attention_keys). A query at position q attends
// to min(q + 1, w) keys; the exact pair count is w s - w (w - 1) / 2, and the function's count,
// half of which the kernel executes, is its continuous form (the causal mask's s^2 / 2 likewise
// stands for s (s + 1) / 2): they differ by w / 2 pairs in all. Mistral 7B v0.1 at s = 32768,
// w = 4096: 2 * 4096 - 4096^2 / 32768 = 7680.
TEST(sliding_window, KeysCountedAreTwiceTheWindowsPairsPerQuery) {
  EXPECT_DOUBLE_EQ(windowed_attention_keys(32768, 32768, 4096), 7680);
  EXPECT_DOUBLE_EQ(windowed_attention_keys(8192, 8192, 0), 8192);     // no window: the causal count
  EXPECT_DOUBLE_EQ(windowed_attention_keys(8192, 8192, 8192), 8192);  // the whole sequence
  EXPECT_DOUBLE_EQ(windowed_attention_keys(8192, 8192, 10000), 8192);  // longer than it
  for (const double s : {512.0, 2048.0, 8192.0})
    for (const double w : {1.0, 64.0, 256.0, 511.0}) {
      double pairs = 0;  // brute force
      for (double q = 0; q < s; ++q) pairs += std::min(q + 1, w);
      EXPECT_NEAR(windowed_attention_keys(s, s, w) * s / 2, pairs, w / 2 + 1e-9) << s << " " << w;
    }
}

// Under context parallelism rank r holds chunks r and 2cp - 1 - r of c = s / (2 cp) tokens; the
// window trims the early chunks, so the ranks differ and the busiest is counted. s = 32768,
// w = 4096, cp = 2, c = 8192:
//   rank 0: chunk [0, 8192): 4096^2 / 2 + 4096 * 4096 = 25,165,824; chunk [24576, 32768):
//           4096 * 8192 = 33,554,432; 58,720,256 in all;
//   rank 1: chunks [8192, 16384) and [16384, 24576): 2 * 4096 * 8192 = 67,108,864, the busiest;
//   counted = 2 * 67,108,864 / 16,384 = 8192 keys (7680 at cp 1: 1.067x).
// Without a window both ranks hold s * c pairs and the count stays s. A brute force over integer
// positions agrees within c (half a key per query of two chunks).
TEST(sliding_window, ContextParallelismCountsTheBusiestRank) {
  EXPECT_DOUBLE_EQ(windowed_attention_keys(32768, 16384, 4096), 8192);
  EXPECT_DOUBLE_EQ(windowed_attention_keys(32768, 16384, 0), 32768);
  for (const int cp : {2, 4, 8})
    for (const double w : {100.0, 1000.0, 3000.0}) {
      const double s = 8192, c = s / (2 * cp);
      double busiest = 0;
      for (int r = 0; r < cp; ++r) {
        double pairs = 0;
        for (const int chunk : {r, 2 * cp - 1 - r})
          for (double q = chunk * c; q < (chunk + 1) * c; ++q) pairs += std::min(q + 1, w);
        busiest = std::max(busiest, pairs);
      }
      EXPECT_NEAR(windowed_attention_keys(s, s / cp, w) * (s / cp) / 2, busiest, c)
          << cp << " " << w;
    }
}

// The window a run's fused attention skips tiles by: none for unfused attention, for the 2023
// Triton kernel (no window argument) or for a window at least as long as the sequence.
TEST(sliding_window, OnlyAKernelThatTakesAWindowSkipsTiles) {
  ModelConfig m;
  m.sliding_window = 4096;
  EXPECT_EQ(attention_window(m, 8192, true, "flash-attention-2"), 4096);
  EXPECT_EQ(attention_window(m, 8192, false, "flash-attention-2"), 0);
  EXPECT_EQ(attention_window(m, 8192, true, "flash-attention-triton"), 0);
  EXPECT_EQ(attention_window(m, 4096, true, "flash-attention-2"), 0);
  m.sliding_window = 0;
  EXPECT_EQ(attention_window(m, 8192, true, "flash-attention-2"), 0);
}

// Layers from sliding_window_from_layer on count their fused attention at the window's keys;
// earlier layers at the whole sequence. Unfused attention computes every key on any layer, but
// its model FLOPs count the window's (896 of 2048 keys), so a windowed layer is a kind of its own.
TEST(sliding_window, OnlyFusedAttentionOfWindowedLayersIsCountedAtTheWindow) {
  ModelConfig m;
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 16;
  m.vocab = 51200;
  m.sliding_window = 512;
  m.sliding_window_from_layer = 2;
  OpShape shape{2048, 2048, 1, true};
  shape.window = 512;
  const auto keys = [&](int layer, OpKind kind) {
    for (const Op& op : layer_ops(m, layer, shape))
      if (op.kind == kind) return op.n;
    return -1.0;
  };
  EXPECT_EQ(keys(1, OpKind::kFlashAttention), 2048);
  EXPECT_EQ(keys(2, OpKind::kFlashAttention), 896);  // 2 * 512 - 512^2 / 2048
  EXPECT_EQ(block_kind(m, 1, shape), 0);
  EXPECT_EQ(block_kind(m, 2, shape), 2);
  // Every 2nd layer (1-based) full, from layer 0: layers 0 and 2 windowed, 1 and 3 not
  // (Megatron's layer_number % 2 != 0 slides).
  ModelConfig alternating = m;
  alternating.sliding_window_from_layer = 0;
  alternating.sliding_window_full_every = 2;
  for (int l = 0; l < 4; ++l) EXPECT_EQ(alternating.is_windowed_layer(l), l % 2 == 0) << l;
  shape.flash_attention = false;
  shape.window = 0;                                   // attention_window: unfused takes none
  EXPECT_EQ(keys(3, OpKind::kAttentionScore), 2048);  // Q.K^T over every key, masked after
  EXPECT_EQ(block_kind(m, 3, shape), 2);
  for (const Op& op : layer_ops(m, 3, shape))
    if (op.kind == OpKind::kAttentionScore || op.kind == OpKind::kAttentionValue) {
      EXPECT_DOUBLE_EQ(op.model_flops_scale, 896.0 / 2048);
      EXPECT_EQ(op.executed_flops_scale, 1);
    }
}

// A step with the window on the last two of gpt(1)'s four layers, fused attention, s = 2048,
// w = 512: each windowed layer's flash attention is counted at 896 keys instead of 2048. Per
// micro-batch and layer the counted forward FLOPs fall by 4 s (2048 - 896) d a
//   = 4 * 2048 * 1152 * 64 * 16 = 9,663,676,416;
// the model FLOPs (3x the forward) by 3x that, the executed ones (half of forward + 2.5x
// backward) by 1.75x that; two layers, two micro-batches (global batch 2).
TEST(sliding_window, StepFlopsFallByTheWindowsShareAndOnlyOnWindowedLayers) {
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["flash_attention"] = true;
  const Scenario full = scenario_from_json(raw, "");
  raw["model"]["sliding_window"] = 512;
  raw["model"]["sliding_window_from_layer"] = 2;
  const Scenario windowed = scenario_from_json(raw, "");
  constexpr double kDelta = 4.0 * 2048 * 1152 * 64 * 16;
  EXPECT_NEAR(
      flops_per_gpu(full, &WorkCost::model_flops) - flops_per_gpu(windowed, &WorkCost::model_flops),
      3 * kDelta * 2 * 2, 1e-9 * kDelta);
  EXPECT_NEAR(flops_per_gpu(full, &WorkCost::hardware_flops) -
                  flops_per_gpu(windowed, &WorkCost::hardware_flops),
              1.75 * kDelta * 2 * 2, 1e-9 * kDelta);
  {
    // The same two windowed layers by alternation (layers 0 and 2) give the same FLOPs.
    nlohmann::json alt = raw;
    alt["model"]["sliding_window_from_layer"] = 0;
    alt["model"]["sliding_window_full_every"] = 2;
    const Scenario a = scenario_from_json(alt, "");
    EXPECT_NEAR(flops_per_gpu(a, &WorkCost::model_flops),
                flops_per_gpu(windowed, &WorkCost::model_flops), 1e-12 * kDelta);
  }
  const StepCosts c = compute_step_costs(windowed, make_plan(windowed));
  EXPECT_EQ(c.kinds.size(), 2u);  // dense over the whole sequence, dense windowed
  {
    nlohmann::json whole = raw;  // a window of the whole sequence: one kind, the full count
    whole["model"]["sliding_window"] = 2048;
    const Scenario w = scenario_from_json(whole, "");
    EXPECT_EQ(compute_step_costs(w, make_plan(w)).kinds.size(), 1u);
    EXPECT_EQ(flops_per_gpu(w, &WorkCost::model_flops),
              flops_per_gpu(full, &WorkCost::model_flops));
  }
  EXPECT_EQ(c.layer(1).work.fwd.total(), c.layer(0).work.fwd.total());
  EXPECT_LT(c.layer(2).work.fwd.total(), c.layer(1).work.fwd.total());
  EXPECT_EQ(c.layer(3).work.fwd.total(), c.layer(2).work.fwd.total());
  // Two pipeline stages of two layers: the second holds the windowed ones (and the output
  // layer), so the stages are costed apart, not as twins.
  raw["parallel"]["pp"] = 2;
  raw["cluster"]["gpus_per_node"] = 2;
  raw["training"]["global_batch"] = 4;
  raw["model"]["tied_embeddings"] = false;
  const Scenario piped = scenario_from_json(raw, "");
  const StepCosts p = compute_step_costs(piped, make_plan(piped));
  ASSERT_EQ(p.stages.size(), 2u);
  const double block0 = p.layer(0).work.fwd.total(), block2 = p.layer(2).work.fwd.total();
  EXPECT_NEAR(p.stages[0].forward_seconds - p.embedding.work.fwd.total(), 2 * block0,
              1e-12 * block0);
  EXPECT_NEAR(p.stages[1].forward_seconds - p.output.work.fwd.total(), 2 * block2, 1e-12 * block2);
}

// Model FLOPs depend on the model, not on the layout or the kernel. Summed over the GPUs, a
// windowed step's model and executed FLOPs are the same at cp 1 and cp 2 (the busiest rank is
// timed, the average one counted), and the model FLOPs are the same for fused and unfused
// attention: the unfused score and value GEMMs, 3 x 2 x 2 m s d per head and micro-batch, count
// the window's 896 of 2048 keys, 12 m 896 d, as the fused op's 3 x 4 m 896 d does.
TEST(sliding_window, ModelFlopsDependOnTheModelNotTheLayoutOrKernel) {
  nlohmann::json raw = gpt(1, "none");
  raw["training"]["flash_attention"] = true;
  raw["model"]["sliding_window"] = 512;
  const Scenario one = scenario_from_json(raw, "");
  raw["parallel"]["cp"] = 2;
  raw["parallel"]["cp_comm_type"] = "all_gather";  // Transformer Engine's ring takes no window
  raw["cluster"]["gpus_per_node"] = 2;
  const Scenario two = scenario_from_json(raw, "");
  for (auto field : {&WorkCost::model_flops, &WorkCost::hardware_flops}) {
    const double a = flops_per_gpu(one, field), b = 2 * flops_per_gpu(two, field);
    EXPECT_NEAR(a, b, 1e-12 * a);
  }
  raw["parallel"]["cp"] = 1;
  raw["cluster"]["gpus_per_node"] = 1;
  raw["training"]["flash_attention"] = false;
  const Scenario unfused = scenario_from_json(raw, "");
  const double fused_model = flops_per_gpu(one, &WorkCost::model_flops);
  EXPECT_NEAR(flops_per_gpu(unfused, &WorkCost::model_flops), fused_model, 1e-12 * fused_model);
}

// window_layers_of (model_config.h) finds the first windowed layer and the period of full layers
// that reproduce a per-layer list, when one does: F F T T -> from 2; T F T F (GPT-OSS) -> every
// 2nd full; T T T F T T T F (Megatron's [1,1,1,0]*2) -> every 4th; F F F -> none windowed
// (from = 3); T F F T -> no pair (two full layers in a row, then a windowed one).
TEST(sliding_window, PerLayerListsMapOntoTheTwoKeysWhereTheyCan) {
  const auto of = [](std::vector<bool> v) { return window_layers_of(v); };
  const auto is = [](std::optional<WindowLayers> w, int from, int every) {
    return w && w->from_layer == from && w->full_every == every;
  };
  EXPECT_TRUE(is(of({false, false, true, true}), 2, 0));
  EXPECT_TRUE(is(of({true, false, true, false}), 0, 2));
  EXPECT_TRUE(is(of({true, true, true, false, true, true, true, false}), 0, 4));
  EXPECT_TRUE(is(of({false, false, false}), 3, 0));
  EXPECT_FALSE(of({true, false, false, true}).has_value());
  // from 3 with every 3rd full: layers 3, 4 windowed, 5 (number 6) full, 6, 7 windowed.
  EXPECT_TRUE(is(of({false, false, false, true, true, false, true, true}), 3, 3));
}

}  // namespace
}  // namespace shardsim
