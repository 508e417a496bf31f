// Per-stage memory through estimate_memory (simulator/memory/memory.h) on a small scenario, checked
// term by term against a hand derivation from the layer split and the closed-form rules:
// Narayanan et al. SC'21 per-layer parameters (12h^2 + 13h), ZeRO-1 sharding (Rajbhandari et al.
// SC'20: P + G replicated, K/N_d sharded) and Korthikanti et al. eq. 6 (34 sbh/t per layer with
// SP + selective recomputation) times the 1F1B in-flight count.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/memory/memory.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

// gpt-1.7b (Narayanan Table 1: 24 layers, h 2304, 24 heads, V 51200, s 2048; GeLU, LayerNorm,
// learned positions with 2048 rows, biases, dropout, tied embeddings) on 8 H100s:
// tp 2, pp 2, dp 2, ZeRO-1, SP + selective recomputation, bf16 + AdamW, no flash attention.
Scenario gpt_1_7b_scenario() {
  const nlohmann::json raw = {
      {"name", "stage-memory-test"},
      {"model", {{"preset", "gpt-1.7b"}}},
      {"training",
       {{"seq_len", 2048},
        {"global_batch", 8},
        {"micro_batch", 1},
        {"precision", "bf16"},
        {"optimizer", "adamw"},
        {"recompute", "selective"},
        {"flash_attention", false}}},
      {"parallel", {{"tp", 2}, {"pp", 2}, {"dp", 2}, {"sp", true}, {"zero", 1}}},
      {"cluster", {{"gpu", "h100-sxm"}, {"nodes", 1}}},
  };
  return scenario_from_json(raw, "");
}

const MemoryTerm* find_term(const RankMemory& r, const std::string& name) {
  for (const auto& t : r.terms)
    if (t.name == name) return &t;
  return nullptr;
}

double term_bytes(const RankMemory& r, const std::string& name) {
  const MemoryTerm* t = find_term(r, name);
  EXPECT_NE(t, nullptr) << "missing term " << name;
  return t ? t->bytes : 0.0;
}

// Hand derivation (h = 2304, h^2 = 5,308,416, V = 51200 (already a multiple of 128*tp = 256, so
// padding adds nothing), s = 2048, tp = 2):
//   One layer: 12h^2 + 13h parameters, of which
//     TP-split:   qkv 3h^2 + 3h, out-proj h^2, fc1 4h^2 + 4h, fc2 4h^2  = 12h^2 + 7h = 63,717,120
//     replicated: 2 LayerNorms 4h, out-proj bias h, fc2 bias h          = 6h        = 13,824
//   per TP rank: 63,717,120 / 2 + 13,824 = 31,872,384; 12 layers per stage -> 382,468,608.
//   Stage 0 adds the word embedding V h / 2 = 58,982,400 and the position table s h = 4,718,592
//     (replicated): 382,468,608 + 58,982,400 + 4,718,592 = 446,169,600.
//   Stage 1 adds the final LayerNorm 2h = 4,608 and, tied embeddings with pp > 1, its own copy of
//     the word embedding as output projection V h / 2 = 58,982,400: 441,455,616.
constexpr double kStage0Params = 446169600;
constexpr double kStage1Params = 441455616;

TEST(stage_memory, PlanSplitsLayersEvenly) {
  const Scenario s = gpt_1_7b_scenario();
  const Plan plan = make_plan(s);
  ASSERT_EQ(plan.stages.size(), 2u);
  EXPECT_EQ(plan.dp, 2);
  EXPECT_EQ(plan.micro_batches, 4);  // global 8 / (dp 2 x micro-batch 1)
  EXPECT_EQ(plan.stages[0].layers(), 12);
  EXPECT_EQ(plan.stages[1].layers(), 12);
  EXPECT_TRUE(plan.stages[0].has_embedding);
  EXPECT_FALSE(plan.stages[0].has_output);
  EXPECT_FALSE(plan.stages[1].has_embedding);
  EXPECT_TRUE(plan.stages[1].has_output);
}

TEST(stage_memory, LocalParamsPerStage) {
  const Scenario s = gpt_1_7b_scenario();
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  ASSERT_EQ(e.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(e.ranks[0].local_params, kStage0Params);
  EXPECT_DOUBLE_EQ(e.ranks[1].local_params, kStage1Params);
  // The whole model once (tied embeddings counted once): Narayanan's
  // 12lh^2 + 13lh + (V + s)h = 1,652,226,048 plus the final LayerNorm 2h = 4,608.
  EXPECT_DOUBLE_EQ(e.parameters.total, 1652230656);
}

// bf16 + AdamW: 2 B params, 2 B grads, 12 B optimizer per parameter (ZeRO K = 12); ZeRO-1 over
// the DP group (dp x cp = 2) shards the optimizer only.
//   Stage 0: params 2 x 446,169,600 = 892,339,200; grads 892,339,200;
//            optimizer 12 x 446,169,600 / 2 = 2,677,017,600.
//   Stage 1: params 2 x 441,455,616 = 882,911,232; grads 882,911,232;
//            optimizer 12 x 441,455,616 / 2 = 2,648,733,696.
TEST(stage_memory, ModelStatesPerStageZero1) {
  const Scenario s = gpt_1_7b_scenario();
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  ASSERT_EQ(e.ranks.size(), 2u);
  const auto& r0 = e.ranks[0];
  const auto& r1 = e.ranks[1];
  EXPECT_DOUBLE_EQ(r0.params_bytes, 892339200);
  EXPECT_DOUBLE_EQ(r0.grads_bytes, 892339200);
  EXPECT_DOUBLE_EQ(r0.optimizer_bytes, 2677017600);
  EXPECT_DOUBLE_EQ(r1.params_bytes, 882911232);
  EXPECT_DOUBLE_EQ(r1.grads_bytes, 882911232);
  EXPECT_DOUBLE_EQ(r1.optimizer_bytes, 2648733696);
  // The same through the named terms.
  EXPECT_DOUBLE_EQ(term_bytes(r0, "params"), 892339200);
  EXPECT_DOUBLE_EQ(term_bytes(r0, "grads"), 892339200);
  EXPECT_DOUBLE_EQ(term_bytes(r0, "optimizer"), 2677017600);
  EXPECT_DOUBLE_EQ(r0.host_bytes, 0);
  EXPECT_DOUBLE_EQ(r1.host_bytes, 0);
}

// Activations of the transformer blocks: Korthikanti eq. 6 with t = 2,
//   34 s b h / t = 34 x 2048 x 1 x 2304 / 2 = 80,216,064 B per layer per micro-batch,
// times 12 layers and the 1F1B in-flight count min(p - i, m) with p = 2, m = 4:
//   stage 0: 2 micro-batches -> 80,216,064 x 12 x 2 = 1,925,185,536 B
//   stage 1: 1 micro-batch   -> 962,592,768 B.
// Embedding (stage 0): int64 token ids 8 s b = 16,384 B (kept whole on each TP rank) + the
// embedding dropout mask s b h / t = 2,359,296 B (1 B, split by SP), x 2 in flight = 4,751,360 B.
TEST(stage_memory, LayerActivationsPerStage) {
  const Scenario s = gpt_1_7b_scenario();
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  ASSERT_EQ(e.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(e.ranks[0].in_flight_microbatches, 2);
  EXPECT_DOUBLE_EQ(e.ranks[1].in_flight_microbatches, 1);
  EXPECT_DOUBLE_EQ(term_bytes(e.ranks[0], "activations.layers"), 1925185536);
  EXPECT_DOUBLE_EQ(term_bytes(e.ranks[1], "activations.layers"), 962592768);
  EXPECT_DOUBLE_EQ(term_bytes(e.ranks[0], "activations.embedding"), 4751360);
  EXPECT_EQ(find_term(e.ranks[1], "activations.embedding"), nullptr);
  EXPECT_EQ(find_term(e.ranks[0], "activations.output"), nullptr);
  EXPECT_NE(find_term(e.ranks[1], "activations.output"), nullptr);
  // Selective recomputation keeps no working-set term (only full recomputation has one).
  EXPECT_EQ(find_term(e.ranks[0], "activations.recompute_working_set"), nullptr);
}

// What the loss keeps. Stage 1 holds the output layer with one micro-batch live (1F1B, the last
// stage). Its logits: s b V / tp = 2048 * 1 * 51200 / 2 = 52,428,800 per micro-batch. Megatron's
// vocabulary-parallel loss keeps their fp32 copy (4 B each, inside activations.output) and, for one
// micro-batch, the bf16 result of the output GEMM (activations.logits_buffer, 2 B each =
// 104,857,600 B). A fused loss keeps the bf16 logits themselves (2 B each, inside
// activations.output) and no buffer: activations.output falls by 2 B per logit = 104,857,600 B and
// the buffer term is gone, 209,715,200 B less activations; with the allocator slack of 10 % of
// activations (overheads.fragmentation_fraction), 230,686,720 B less in all.
TEST(stage_memory, FusedLossKeepsTheBf16LogitsAndNoFp32Copy) {
  const Scenario megatron = gpt_1_7b_scenario();
  const MemoryEstimate a = estimate_memory(megatron, make_plan(megatron));
  EXPECT_DOUBLE_EQ(term_bytes(a.ranks[1], "activations.logits_buffer"), 104857600);
  Scenario fused = megatron;
  fused.training.cross_entropy = CrossEntropyKernel::kFused;
  const MemoryEstimate b = estimate_memory(fused, make_plan(fused));
  EXPECT_EQ(find_term(b.ranks[1], "activations.logits_buffer"), nullptr);
  EXPECT_DOUBLE_EQ(
      term_bytes(a.ranks[1], "activations.output") - term_bytes(b.ranks[1], "activations.output"),
      104857600);
  EXPECT_DOUBLE_EQ(a.ranks[1].activations_bytes - b.ranks[1].activations_bytes, 209715200);
  EXPECT_NEAR(a.ranks[1].total_bytes - b.ranks[1].total_bytes, 230686720, 1e-3);
  // Stage 0 has no output layer: unchanged.
  EXPECT_DOUBLE_EQ(a.ranks[0].total_bytes, b.ranks[0].total_bytes);
}

// In fp32 training the output GEMM writes fp32 logits, and the loss's cast returns that tensor:
// the fp32 copy inside activations.output is all there is, and no logits_buffer (found by review,
// 2026-11-29: fp32 counted s b V / tp x 4 B = 209,715,200 B a second time here).
TEST(stage_memory, Fp32TrainingKeepsNoSecondCopyOfTheLogits) {
  Scenario fp32 = gpt_1_7b_scenario();
  fp32.training.precision = Dtype::kFp32;
  const MemoryEstimate e = estimate_memory(fp32, make_plan(fp32));
  EXPECT_EQ(find_term(e.ranks[1], "activations.logits_buffer"), nullptr);
  EXPECT_NE(find_term(e.ranks[1], "activations.output"), nullptr);
}

// The totals are the sum of their terms.
TEST(stage_memory, TotalsAreSumsOfTerms) {
  const Scenario s = gpt_1_7b_scenario();
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  for (const auto& r : e.ranks) {
    double sum = 0;
    for (const auto& t : r.terms) sum += t.bytes;
    EXPECT_DOUBLE_EQ(r.total_bytes, sum);
    EXPECT_DOUBLE_EQ(r.total_bytes, r.params_bytes + r.grads_bytes + r.optimizer_bytes +
                                        r.activations_bytes + r.overhead_bytes);
    EXPECT_LE(r.total_bytes, e.peak_bytes);
  }
}

// DDP (ZeRO-0, dp 2): the all-reduce bucket is overheads.ddp_bucket_bytes, capped at the rank's
// gradient (found by review, 2026-11-27: a 1 TB bucket was counted beside GB of gradients).
// bf16 gradients are 2 B per parameter: stage 0 holds 446,169,600 x 2 = 892,339,200 bytes.
TEST(stage_memory, DdpBucketIsCappedAtTheRanksGradient) {
  Scenario s = gpt_1_7b_scenario();
  s.strategy.zero = 0;
  s.overheads.ddp_bucket_bytes = 1e12;
  const MemoryEstimate huge = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(huge.ranks[0], "overhead.ddp_bucket"), kStage0Params * 2);
  s.overheads.ddp_bucket_bytes = 25.0 * 1048576;  // PyTorch's 25 MiB, below the gradient
  const MemoryEstimate dflt = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(dflt.ranks[0], "overhead.ddp_bucket"), 25.0 * 1048576);
}

// DeepSpeed's BF16 optimizer (fusion off, fp32 gradient accumulation, grad_accumulation_cast
// separate) keeps each bf16 gradient until the next backward pass beside the FP32 buffer: stage 0
// holds 4 B x 446,169,600 = 1,784,678,400 B of FP32 gradients (ZeRO-1 does not shard them) plus
// 2 B x 446,169,600 = 892,339,200 B of bf16 ones, a term of its own. The same accumulation
// without the separate cast (PyTorch's mixed-dtype add, which frees each bf16 gradient as it
// goes) has the FP32 buffer only.
TEST(stage_memory, Bf16OptimizerKeepsTheSixteenBitGradients) {
  Scenario s = gpt_1_7b_scenario();
  s.training.grad_accumulation_fusion = false;
  s.training.grad_dtype = GradDtype::kFp32;
  const MemoryEstimate in_add = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(in_add.ranks[0].grads_bytes, 4 * kStage0Params);
  EXPECT_EQ(find_term(in_add.ranks[0], "grads.bf16_kept"), nullptr);
  s.training.grad_accumulation_cast = GradAccumulationCast::kSeparate;
  const MemoryEstimate kept = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(kept.ranks[0], "grads"), 4 * kStage0Params);
  EXPECT_DOUBLE_EQ(term_bytes(kept.ranks[0], "grads.bf16_kept"), 2 * kStage0Params);
  EXPECT_DOUBLE_EQ(kept.ranks[0].grads_bytes, 6 * kStage0Params);
  EXPECT_DOUBLE_EQ(kept.ranks[1].grads_bytes, 6 * kStage1Params);
  // With ZeRO-2 (gradients sharded over dp = 2: 4 B / 2 per parameter), which DeepSpeed's BF16
  // optimizer does not run, or with fusion on, the cast has no effect (a warning says so), in
  // memory as in time.
  s.strategy.zero = 2;
  const MemoryEstimate zero2 = estimate_memory(s, make_plan(s));
  EXPECT_EQ(find_term(zero2.ranks[0], "grads.bf16_kept"), nullptr);
  EXPECT_DOUBLE_EQ(zero2.ranks[0].grads_bytes, 2 * kStage0Params);
  s.strategy.zero = 1;
  s.training.grad_accumulation_fusion = true;
  EXPECT_DOUBLE_EQ(estimate_memory(s, make_plan(s)).ranks[0].grads_bytes, 4 * kStage0Params);
}

// ZeRO-3 on the same layout: every state is sharded over dp = 2: 16 B / 2 = 8 B per parameter.
TEST(stage_memory, Zero3ShardsAllStates) {
  Scenario s = gpt_1_7b_scenario();
  s.strategy.zero = 3;
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  ASSERT_EQ(e.ranks.size(), 2u);
  EXPECT_DOUBLE_EQ(e.ranks[0].params_bytes, kStage0Params);  // 2 B / 2
  EXPECT_DOUBLE_EQ(e.ranks[0].grads_bytes, kStage0Params);   // 2 B / 2
  EXPECT_DOUBLE_EQ(e.ranks[0].optimizer_bytes, 6 * kStage0Params);
  EXPECT_DOUBLE_EQ(e.ranks[1].params_bytes + e.ranks[1].grads_bytes + e.ranks[1].optimizer_bytes,
                   8 * kStage1Params);
}

// ZeRO-3 holds the unit computing and what runs ahead of it: the larger of DeepSpeed's prefetch
// bucket (overheads.zero3_prefetch_elements, 5e7) and parallel.zero3_prefetch units, as the
// step-time model gathers them (found by review, 2026-11-28: the bucket alone, at every depth),
// plus the unit's gradient buffer, 2 B each in bf16. Stage 0's largest unit is its embedding:
// the word embedding V h / 2 = 58,982,400 and the position table s h = 4,718,592 parameters
// (above), L = 63,700,992. The units ahead of it are its neighbours, blocks of B = 31,872,384
// parameters per TP rank (Zero3PrefetchesOnlyTheRanksOtherUnits below), not further copies of L
// (found by review, 2026-11-29: depth x L was counted):
//   depth 0: (L + 5e7) x 2 + L x 2               = 4L + 1e8      = 354,803,968 B
//   depth 1: (L + max(5e7, B)) x 2 + L x 2        = 4L + 1e8      = 354,803,968 B
//   depth 2: (L + max(5e7, 2B)) x 2 + L x 2       = 4L + 4B       = 382,293,504 B
TEST(stage_memory, Zero3BuffersHoldThePrefetchedUnits) {
  Scenario s = gpt_1_7b_scenario();
  s.strategy.zero = 3;
  for (const auto& [depth, bytes] :
       {std::pair{0, 354803968.0}, {1, 354803968.0}, {2, 382293504.0}}) {
    s.strategy.zero3_prefetch = depth;
    const MemoryEstimate e = estimate_memory(s, make_plan(s));
    EXPECT_DOUBLE_EQ(term_bytes(e.ranks[0], "overhead.zero3_buffers"), bytes) << depth;
  }
}

// What runs ahead is the rank's other units: a stage that holds one block and nothing else
// gathers that block once (found by a metamorphic review, 2026-11-29: it was counted again as
// its own prefetch, which made ZeRO-3 use more memory than ZeRO-2). gpt-1.7b cut to 4 layers on
// pp 4: stages 1 and 2 hold one block each, L = 31,872,384 parameters per TP rank (the hand
// derivation above). Prefetch = min(max(5e7, 1 x L), L - L) = 0, so the buffers are the
// gathered block and its gradient buffer: L x 2 + L x 2 = 4L = 127,489,536 B.
TEST(stage_memory, Zero3PrefetchesOnlyTheRanksOtherUnits) {
  Scenario s = gpt_1_7b_scenario();
  s.model.layers = 4;
  s.strategy.pp = 4;
  s.strategy.zero = 3;
  s.cluster.nodes = 2;  // tp 2 x pp 4 x dp 2 = 16 GPUs
  const MemoryEstimate e = estimate_memory(s, make_plan(s));
  ASSERT_EQ(e.ranks.size(), 4u);
  for (int i : {1, 2}) {
    EXPECT_DOUBLE_EQ(e.ranks[std::size_t(i)].local_params, 31872384.0) << i;
    EXPECT_DOUBLE_EQ(term_bytes(e.ranks[std::size_t(i)], "overhead.zero3_buffers"), 4 * 31872384.0)
        << i;
  }
}

// With one data-parallel rank ZeRO-3 shards nothing and gathers nothing (PyTorch's FSDP runs
// NO_SHARD on one rank), like the ZeRO-1/2 buckets: every stage's total equals ZeRO-0's, and
// there is no zero3_buffers term.
TEST(stage_memory, Zero3WithOneDataParallelRankHoldsWhatZero0Holds) {
  Scenario s = gpt_1_7b_scenario();
  s.strategy.dp = 1;
  s.training.global_batch = 4;
  s.strategy.zero = 0;
  const MemoryEstimate none = estimate_memory(s, make_plan(s));
  s.strategy.zero = 3;
  const MemoryEstimate z3 = estimate_memory(s, make_plan(s));
  ASSERT_EQ(z3.ranks.size(), none.ranks.size());
  for (std::size_t i = 0; i < z3.ranks.size(); ++i) {
    EXPECT_EQ(find_term(z3.ranks[i], "overhead.zero3_buffers"), nullptr) << i;
    EXPECT_DOUBLE_EQ(z3.ranks[i].total_bytes, none.ranks[i].total_bytes) << i;
  }
}

// With its parameters offloaded, ZeRO-3 copies each unit onto the GPU and prefetches the next at
// any sharding degree, so one data-parallel rank holds the same buffers as two (found by review,
// 2026-11-29: at dp 1 the term was left out, and adding a GPU raised the per-GPU peak). The units
// are layers per TP rank, which dp does not change; the rank's other units bound the prefetch
// by the stage's parameters, also unchanged by dp: Zero3BuffersHoldThePrefetchedUnits's depth-1
// figure, 4L + 1e8 = 354,803,968 B, at both.
TEST(stage_memory, Zero3WithOffloadedParamsGathersAtAnyDataParallelDegree) {
  Scenario s = gpt_1_7b_scenario();
  s.strategy.zero = 3;
  s.strategy.offload_params = true;
  s.strategy.offload_optimizer = true;
  const MemoryEstimate two = estimate_memory(s, make_plan(s));
  s.strategy.dp = 1;
  s.training.global_batch = 4;
  const MemoryEstimate one = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(two.ranks[0], "overhead.zero3_buffers"), 354803968.0);
  EXPECT_DOUBLE_EQ(term_bytes(one.ranks[0], "overhead.zero3_buffers"), 354803968.0);
  EXPECT_DOUBLE_EQ(one.ranks[0].params_bytes, 0.0);  // on the host
}

// The expert-parallel all-to-all's send and receive buffers hold the routed copies of the tokens
// this rank holds: s / tp of them under sequence parallelism (Megatron-Core's alltoall
// dispatcher; the TP all-gather after it is the experts' input, an activation). Found by a
// numeric review (2026-11-29: all s tokens were counted). mixtral-8x7b-16xh100: s 4096,
// micro-batch 1, top-2, h 4096, bf16, tp 2 with SP, ep 8:
//   2 x (4096 / 2) x 2 x 4096 x 2 B = 67,108,864 B; without SP 2 x 4096 x 2 x 4096 x 2 B =
//   134,217,728 B.
TEST(stage_memory, MoeDispatchBuffersHoldThisRanksTokens) {
  Scenario s = load_scenario("mixtral-8x7b-16xh100", {});
  ASSERT_EQ(s.strategy.tp, 2);
  ASSERT_TRUE(s.strategy.sp);
  const MemoryEstimate sp = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(sp.ranks[0], "overhead.moe_dispatch"), 67108864.0);
  s.strategy.sp = false;
  const MemoryEstimate no_sp = estimate_memory(s, make_plan(s));
  EXPECT_DOUBLE_EQ(term_bytes(no_sp.ranks[0], "overhead.moe_dispatch"), 134217728.0);
}

// The buffers of one layer's context-parallel exchange (Transformer Engine's context_parallel.py)
// on llama3-8b-8xh100 at cp 2 (TP 2, 32 heads and 8 KV heads of 128, s 8192, micro-batch 1,
// bf16). This rank's K and V: 8192 / 2 x (8 + 8) x 128 / 2 x 2 B = 8 MiB (kv); its Q and output
// 16 MiB each.
//   p2p: the larger of the forward's cp = 2 chunks and the backward's 4 double buffers: 4 x kv
//        = 33,554,432 B;
//   all_gather: (3 x 2 + 1/2) x kv = 54,525,952 B;
//   a2a: Q + K + V + output = 16 + 4 + 4 + 16 MiB = 41,943,040 B.
// The all-to-all also saves the attention output before its all-to-all back (out_part) beside
// the output the projection keeps: 16 MiB per layer and micro-batch in flight (one under 1F1B on
// one stage), 32 layers = 536,870,912 B more activations, none under selective recomputation
// (the core's saved tensors are recomputed).
TEST(stage_memory, ContextParallelExchangeBuffersByCommType) {
  Scenario s = load_scenario("llama3-8b-8xh100", {});
  s.strategy.cp = 2;
  s.strategy.dp = 2;
  constexpr double kMiB = 1 << 20;
  const auto estimate = [&](CpComm type) {
    s.strategy.cp_comm = type;
    return estimate_memory(s, make_plan(s));
  };
  const MemoryEstimate p2p = estimate(CpComm::kP2p);
  EXPECT_DOUBLE_EQ(term_bytes(p2p.ranks[0], "overhead.cp_exchange"), 32 * kMiB);
  EXPECT_DOUBLE_EQ(term_bytes(estimate(CpComm::kAllGather).ranks[0], "overhead.cp_exchange"),
                   52 * kMiB);
  const MemoryEstimate a2a = estimate(CpComm::kA2a);
  EXPECT_DOUBLE_EQ(term_bytes(a2a.ranks[0], "overhead.cp_exchange"), 40 * kMiB);
  EXPECT_DOUBLE_EQ(a2a.ranks[0].activations_bytes - p2p.ranks[0].activations_bytes, 32 * 16 * kMiB);
  s.strategy.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(estimate(CpComm::kA2a).ranks[0].activations_bytes,
                   estimate(CpComm::kP2p).ranks[0].activations_bytes);
  s.strategy.cp = 1;  // no exchange
  s.strategy.dp = 4;
  EXPECT_EQ(find_term(estimate(CpComm::kA2a).ranks[0], "overhead.cp_exchange"), nullptr);
}

// Offloaded states past the node's host memory (cluster.host_memory_bytes) make the plan
// infeasible, code host_memory naming the key; at the capacity exactly, or with none given, they
// do not (found by review, 2026-11-29: 16.5 TiB per node was reported feasible).
TEST(stage_memory, OffloadedStatesPastTheNodesHostMemoryAreInfeasible) {
  Scenario s = load_scenario("llama3-8b-8xh100", {});
  s.strategy.zero = 3;
  s.strategy.offload_optimizer = true;
  const auto host_reason = [&](double capacity) {
    s.cluster.host_memory_bytes = capacity;
    for (const auto& r : estimate_memory(s, make_plan(s)).infeasible)
      if (r.code == "host_memory") return r;
    return Infeasibility{};
  };
  const double need = estimate_memory(s, make_plan(s)).host_bytes_per_node;
  ASSERT_GT(need, 0);
  EXPECT_EQ(host_reason(0).code, "");     // not given: not checked
  EXPECT_EQ(host_reason(need).code, "");  // exactly enough
  const Infeasibility r = host_reason(need / 2);
  EXPECT_EQ(r.path, "/cluster/host_memory_bytes");
  EXPECT_NE(r.message.find("of host memory, the node has"), std::string::npos) << r.message;
}

}  // namespace
}  // namespace shardsim
