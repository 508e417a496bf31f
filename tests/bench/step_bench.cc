// Speed targets of the step-time models (issue: DES of GPT-3 175B on 1,536 A100s <= 50 ms;
// analytic evaluation <= 10 us; DES cost flat in the GPU count at a fixed pipeline shape).
#include <benchmark/benchmark.h>

#include "simulator/analytic/analytic.h"
#include "simulator/des/step_sim.h"
#include "simulator/scenario/load.h"

namespace shardsim {
namespace {

// GPT-3 175B, TP 8, PP 16 interleaved (v = 2), micro-batch 1, 128 micro-batches per DP rank;
// `dp` data-parallel replicas (12 -> 1,536 GPUs) with the global batch scaled to keep m = 128.
Scenario gpt3(int dp) {
  return load_scenario("gpt3-175b-1536xa100",
                       {"parallel.dp=" + std::to_string(dp), "cluster.nodes=null",
                        "training.global_batch=" + std::to_string(128 * dp)});
}

void BM_DesStep(benchmark::State& state) {
  const Scenario s = gpt3(int(state.range(0)));
  const Plan plan = make_plan(s);
  std::size_t tasks = 0;
  for (auto _ : state) {
    const StepCosts costs = compute_step_costs(s, plan);
    const StepResult r = simulate_step(s, plan, costs);
    tasks = r.tasks;
    benchmark::DoNotOptimize(r.step_seconds);
  }
  state.counters["gpus"] = double(plan.gpus);
  state.counters["tasks"] = double(tasks);
}
// 1,536, 6,144 and 24,576 GPUs: the same pipeline shape, so the same work.
BENCHMARK(BM_DesStep)->Arg(12)->Arg(48)->Arg(192)->Unit(benchmark::kMillisecond);

void BM_AnalyticStep(benchmark::State& state) {
  const Scenario s = gpt3(12);
  const Plan plan = make_plan(s);
  for (auto _ : state) {
    const StepCosts costs = compute_step_costs(s, plan);
    const AnalyticResult r = analytic_step(s, plan, costs);
    benchmark::DoNotOptimize(r.step_seconds);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnalyticStep)->Unit(benchmark::kMicrosecond);

void BM_AnalyticFromCosts(benchmark::State& state) {
  const Scenario s = gpt3(12);
  const Plan plan = make_plan(s);
  const StepCosts costs = compute_step_costs(s, plan);
  for (auto _ : state) {
    const AnalyticResult r = analytic_step(s, plan, costs);
    benchmark::DoNotOptimize(r.step_seconds);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AnalyticFromCosts)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace shardsim

BENCHMARK_MAIN();
