// EvaluateCache: an evaluation through a cache gives exactly what one without it gives, for every
// number of the Estimate, across a sweep of strategies (every degree, ZeRO stage, schedule,
// recomputation, micro-batch, precision...) on every shipped example, with one cache shared by
// all of them, both filled scenario by scenario and with scenarios alternating (so the memos see
// their model and GPU change under them).
#include <gtest/gtest.h>

#include "simulator/evaluate/evaluate.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/validate.h"

namespace shardsim {
namespace {

const char* const kExamples[] = {"gpt3-175b-1536xa100", "llama3-70b-fsdp-64xh100",
                                 "llama3-8b-8xh100", "mcore-177b-2304xh100",
                                 "mixtral-8x7b-16xh100"};

void expect_same_split(const TimeSplit& a, const TimeSplit& b) {
  for (std::size_t i = 0; i < a.seconds.size(); ++i) EXPECT_EQ(a.seconds[i], b.seconds[i]) << i;
}

void expect_same_rank(const RankMemory& a, const RankMemory& b) {
  EXPECT_EQ(a.pp_stage, b.pp_stage);
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.local_params, b.local_params);
  EXPECT_EQ(a.in_flight_microbatches, b.in_flight_microbatches);
  EXPECT_EQ(a.params_bytes, b.params_bytes);
  EXPECT_EQ(a.grads_bytes, b.grads_bytes);
  EXPECT_EQ(a.optimizer_bytes, b.optimizer_bytes);
  EXPECT_EQ(a.activations_bytes, b.activations_bytes);
  EXPECT_EQ(a.overhead_bytes, b.overhead_bytes);
  EXPECT_EQ(a.total_bytes, b.total_bytes);
  EXPECT_EQ(a.host_bytes, b.host_bytes);
  ASSERT_EQ(a.terms.size(), b.terms.size());
  for (std::size_t i = 0; i < a.terms.size(); ++i) {
    EXPECT_EQ(a.terms[i].name, b.terms[i].name);
    EXPECT_EQ(a.terms[i].bytes, b.terms[i].bytes);
    EXPECT_EQ(a.terms[i].note, b.terms[i].note);
  }
}

void expect_same(const Expected<Estimate>& x, const Expected<Estimate>& y) {
  ASSERT_EQ(x.ok(), y.ok());
  if (!x.ok()) {
    EXPECT_EQ(x.errors().format(), y.errors().format());
    return;
  }
  const Estimate &a = *x, &b = *y;
  EXPECT_EQ(a.warnings, b.warnings);
  ASSERT_EQ(a.infeasible.size(), b.infeasible.size());
  for (std::size_t i = 0; i < a.infeasible.size(); ++i) {
    EXPECT_EQ(a.infeasible[i].code, b.infeasible[i].code);
    EXPECT_EQ(a.infeasible[i].message, b.infeasible[i].message);
  }
  ASSERT_EQ(a.memory.has_value(), b.memory.has_value());
  if (a.memory) {
    const MemoryEstimate &m = *a.memory, &n = *b.memory;
    EXPECT_EQ(m.peak_bytes, n.peak_bytes);
    EXPECT_EQ(m.peak_stage, n.peak_stage);
    EXPECT_EQ(m.fits, n.fits);
    EXPECT_EQ(m.reason, n.reason);
    EXPECT_EQ(m.host_bytes_per_node, n.host_bytes_per_node);
    EXPECT_EQ(m.parameters.total, n.parameters.total);
    ASSERT_EQ(m.ranks.size(), n.ranks.size());
    for (std::size_t i = 0; i < m.ranks.size(); ++i) expect_same_rank(m.ranks[i], n.ranks[i]);
  }
  ASSERT_EQ(a.time.has_value(), b.time.has_value());
  if (a.time) {
    const StepTime &s = *a.time, &t = *b.time;
    EXPECT_EQ(s.step_seconds, t.step_seconds);
    expect_same_split(s.breakdown, t.breakdown);
    EXPECT_EQ(s.critical_stage, t.critical_stage);
    EXPECT_EQ(s.stage_end_seconds, t.stage_end_seconds);
    EXPECT_EQ(s.peak_flops_per_gpu, t.peak_flops_per_gpu);
    EXPECT_EQ(s.throughput.tokens_per_second, t.throughput.tokens_per_second);
    EXPECT_EQ(s.throughput.model_tflops_per_gpu, t.throughput.model_tflops_per_gpu);
    EXPECT_EQ(s.throughput.hardware_tflops_per_gpu, t.throughput.hardware_tflops_per_gpu);
    EXPECT_EQ(s.throughput.mfu, t.throughput.mfu);
    EXPECT_EQ(s.throughput.hfu, t.throughput.hfu);
  }
}

// The strategies of one sweep point `i` on scenario `base` (nullopt when the checks reject it
// outright, so that both evaluations would only repeat the same diagnostics).
std::optional<Scenario> variant(const Scenario& base, std::size_t i) {
  Scenario s = base;
  Strategy& p = s.strategy;
  auto pick = [&i](std::size_t n) {
    const std::size_t r = i % n;
    i /= n;
    return r;
  };
  p.tp = 1 << pick(4);
  p.pp = 1 << pick(3);
  p.zero = int(pick(4));
  s.training.micro_batch = std::int64_t(1) << pick(2);
  p.sp = pick(2) == 1;
  p.recompute = Recompute(pick(3));
  p.cp = 1 << pick(2);
  p.schedule = Schedule(pick(5));
  p.vpp = p.schedule == Schedule::kInterleaved ? 2 : 1;
  if (base.model.moe.enabled()) p.ep = 1 << pick(2);
  p.offload_optimizer = p.zero > 0 && pick(2) == 1;
  p.first_stage_layers = p.last_stage_layers = -1;
  const std::int64_t model_ranks = std::int64_t(p.tp) * p.pp * p.cp;
  if (s.cluster.gpus() % model_ranks != 0) return std::nullopt;
  p.dp = int(s.cluster.gpus() / model_ranks);
  if (!check_strategy(s).errors.empty()) return std::nullopt;
  return s;
}

constexpr std::size_t kSweep = 4 * 3 * 4 * 2 * 2 * 3 * 2 * 5 * 2 * 2;

TEST(evaluate_cache, CachedEqualsUncachedAcrossStrategiesAndExamples) {
  EvaluateCache cache;
  EvaluateOptions plain{Mode::kAnalytic, false, MemoryDetail::kNumbers};
  EvaluateOptions cached = plain;
  cached.cache = &cache;
  std::size_t compared = 0;
  for (const char* name : kExamples) {
    const Scenario base = load_scenario(name);
    // Every 7th point: a sample of the sweep that still covers each dimension's values.
    for (std::size_t i = 0; i < kSweep; i += 7) {
      const std::optional<Scenario> s = variant(base, i);
      if (!s) continue;
      SCOPED_TRACE(std::string(name) + " point " + std::to_string(i));
      expect_same(evaluate(*s, plain), evaluate(*s, cached));
      ++compared;
    }
  }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(cache.costs.size(), 0u);
  EXPECT_GT(cache.memory.size(), 0u);
}

TEST(evaluate_cache, ScenariosAlternatingOnOneCacheAndOtherFieldsVaried) {
  // Two models and two GPUs alternating (and one model on both GPUs): each memo must notice the
  // change and never serve the other scenario's entry; precision (fp32 with and without TF32
  // too), sequence length, flash
  // attention, the attention kernel, the loss's implementation and its traffic switch vary too.
  EvaluateCache cache;
  const Scenario a = load_scenario("llama3-8b-8xh100");
  const Scenario b = load_scenario("gpt3-175b-1536xa100");
  const Scenario c = [&] {  // a's model on b's GPU: only the cost memo's inputs change
    Scenario s = a;
    s.cluster.gpu = b.cluster.gpu;
    return s;
  }();
  std::size_t compared = 0;
  for (std::size_t i = 0; i < kSweep; i += 11) {
    for (const Scenario* base : {&a, &b, &c}) {
      std::optional<Scenario> s = variant(*base, i);
      if (!s) continue;
      s->training.precision = (i / 11) % 3 == 0   ? Dtype::kFp8
                              : (i / 11) % 3 == 1 ? Dtype::kFp32
                                                  : Dtype::kBf16;
      // fp32's GEMMs on TF32 or not: the kind costs' key holds the switch
      s->training.tf32 = (i / 31) % 2 == 0;
      s->training.flash_attention = (i / 13) % 2 == 0;
      // the kernel alone changes the kind costs' key (A100: two measured kernels)
      s->training.attention_kernel =
          (i / 19) % 2 == 0 ? "flash-attention-2" : "flash-attention-triton";
      // and so does the loss's implementation
      s->training.cross_entropy =
          (i / 23) % 2 == 0 ? CrossEntropyKernel::kVocabParallel : CrossEntropyKernel::kFused;
      s->effects.cross_entropy_traffic = (i / 29) % 2 == 0;
      if ((i / 17) % 2 == 0) s->training.seq_len /= 2;
      if (!check_strategy(*s).errors.empty()) continue;
      const Mode mode = i % 5 == 0 ? Mode::kDes : Mode::kAnalytic;
      if (mode == Mode::kDes && !check_simulation_size(*s, make_plan(*s)).empty()) continue;
      EvaluateOptions plain{mode, false, i % 3 == 0 ? MemoryDetail::kFull : MemoryDetail::kNumbers};
      EvaluateOptions cached = plain;
      cached.cache = &cache;
      SCOPED_TRACE(base->name + " point " + std::to_string(i));
      expect_same(evaluate(*s, plain), evaluate(*s, cached));
      ++compared;
    }
  }
  EXPECT_GT(compared, 300u);
}

// One fp32 scenario with TF32 on, then off, on one cache: the same model and GPU, so the cost
// memo keeps its entries and only its key (KindCostKey::tf32) tells the two apart. Found by
// review (2026-11-28): the alternating test above changes model or GPU at every step, which
// empties the memo, so it could not see a key without tf32. Each must equal its uncached
// evaluation, and TF32 off is slower (FP32's 67 against TF32's 494.7 TFLOP/s on h100-sxm).
TEST(evaluate_cache, Tf32OnAndOffOnOneCacheAreTwoEntries) {
  EvaluateCache cache;
  const EvaluateOptions plain{Mode::kAnalytic, false, MemoryDetail::kNumbers};
  EvaluateOptions cached = plain;
  cached.cache = &cache;
  const Scenario on = load_scenario("llama3-8b-8xh100", {"training.precision=fp32"});
  const Scenario off =
      load_scenario("llama3-8b-8xh100", {"training.precision=fp32", "training.tf32=false"});
  const Expected<Estimate> a = evaluate(on, cached);
  const Expected<Estimate> b = evaluate(off, cached);
  expect_same(evaluate(on, plain), a);
  expect_same(evaluate(off, plain), b);
  ASSERT_TRUE(a.ok() && b.ok() && a->time && b->time);
  EXPECT_GT(b->time->step_seconds, a->time->step_seconds);
}

TEST(evaluate_cache, GradientAccumulationFusionOnAndOffOnOneCacheAreTwoEntries) {
  // The unfused adds are part of the memoised kind costs (KindCostKey::main_grad_add_bytes): a
  // cached evaluation of one setting must not serve the other, nor the same setting with another
  // gradient dtype (10 B per parameter with fp32 main gradients, 6 B without), nor the fp32 copy
  // of grad_accumulation_cast separate (18 B: KindCostKey::main_grad_add_bytes tells them apart),
  // nor autograd's .grad, which adds (m - 1) / m of that per micro-batch
  // (grad_accumulation_target param_grad; the example runs m > 1 micro-batches per step).
  EvaluateCache cache;
  const EvaluateOptions plain{Mode::kAnalytic, false, MemoryDetail::kNumbers};
  EvaluateOptions cached = plain;
  cached.cache = &cache;
  const std::vector<std::vector<std::string>> variants = {
      {},
      {"training.grad_accumulation_fusion=false"},
      {"training.grad_accumulation_fusion=false", "training.grad_dtype=fp32"},
      {"training.grad_accumulation_fusion=false", "training.grad_dtype=fp32",
       "training.grad_accumulation_cast=separate"},
      {"training.grad_dtype=fp32"},
      {"training.grad_accumulation_fusion=false", "training.grad_accumulation_target=param_grad"}};
  std::vector<double> steps;
  for (const auto& v : variants) {
    const Scenario s = load_scenario("llama3-8b-8xh100", v);
    const Expected<Estimate> c = evaluate(s, cached);
    expect_same(evaluate(s, plain), c);
    ASSERT_TRUE(c.ok() && c->time);
    steps.push_back(c->time->step_seconds);
  }
  EXPECT_GT(steps[1], steps[0]);
  EXPECT_GT(steps[2], steps[1]);
  EXPECT_GT(steps[3], steps[2]);
  EXPECT_GT(steps[5], steps[0]);
  EXPECT_LT(steps[5], steps[1]);
}

TEST(evaluate_cache, AProfileTableChangedAfterACachedEvaluationIsNoticed) {
  // The profile's measured tables are shared by its copies (core/shared_vector.h), the memo's
  // copy included: a change, on a copy of the scenario or on the scenario itself, must reach the
  // next cached evaluation. Every H100 GEMM point at half its measured efficiency slows each plan.
  EvaluateCache cache;
  Scenario a = load_scenario("llama3-8b-8xh100");
  const EvaluateOptions plain{Mode::kAnalytic, false, MemoryDetail::kNumbers};
  EvaluateOptions cached = plain;
  cached.cache = &cache;
  const Expected<Estimate> before = evaluate(a, cached);
  ASSERT_TRUE(before.ok());
  ASSERT_FALSE(a.cluster.gpu.compute.gemm_points.empty());
  auto halve = [](Scenario& s) {
    for (GemmPoint& p : s.cluster.gpu.compute.gemm_points.edit()) p.efficiency /= 2;
  };
  Scenario copy = a;
  halve(copy);
  const Expected<Estimate> slower = evaluate(copy, cached);
  expect_same(evaluate(copy, plain), slower);
  ASSERT_TRUE(slower.ok());
  EXPECT_GT(slower->time->step_seconds, before->time->step_seconds);
  expect_same(evaluate(a, plain), evaluate(a, cached));  // the original kept its table
  halve(a);                                              // in place, on the evaluated scenario
  expect_same(evaluate(a, plain), evaluate(a, cached));
  EXPECT_EQ(evaluate(a, cached)->time->step_seconds, slower->time->step_seconds);
}

}  // namespace
}  // namespace shardsim
