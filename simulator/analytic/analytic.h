// Closed-form step time from the same per-op costs the DES uses (cost/step_costs.h): the
// bottleneck stage's work times the micro-batch count, plus every other stage's fill/drain time
// (1F1B: the longest stage path, which hides what a heavy stage's warm-up covers), pipeline
// transfers on the critical path, exposed data-parallel traffic, the optimizer and offload. With
// equal stages the fill/drain sums to the published bubbles:
//   GPipe, 1F1B:  (p-1)(f + b + w)              (Narayanan et al. §2.2)
//   interleaved:  (p-1)(f + b + w) / v
//   ZB-H1:        (p-1) max(f, f + b - w)       (Qi et al.; b = input-gradient work)
//   ZB-H2:        (p-1) max(0, f + b - 2w)      (once m >= 2p - 1; else as ZB-H1)
// with f, b, w one micro-batch's forward, backward-input and backward-weight time.
#pragma once

#include "simulator/cost/step_costs.h"
#include "simulator/cost/time_split.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

struct AnalyticResult {
  double step_seconds = 0;
  TimeSplit breakdown;  // sums to step_seconds
  int bottleneck_stage = 0;
  // FLOPs of one micro-batch of every stage, summed over the stages (throughput's sums)
  double model_flops = 0, hardware_flops = 0;
};

[[nodiscard]] AnalyticResult analytic_step(const Scenario& s, const Plan& plan,
                                           const StepCosts& costs);

struct Throughput {
  double tokens_per_second = 0;
  double model_tflops_per_gpu = 0;     // model FLOPs (no recomputation) / step / GPU, 1e12 FLOP/s
  double hardware_tflops_per_gpu = 0;  // executed FLOPs (recomputation included)
  double mfu = 0;                      // model FLOP/s per GPU / dense peak
  double hfu = 0;
};

// FLOPs follow Megatron's convention: 2*m*n*k per GEMM (attention scores and values included,
// causal masking not halved), backward = 2x forward; element-wise ops are not counted.
[[nodiscard]] Throughput throughput(const Scenario& s, const Plan& plan, const StepCosts& costs,
                                    double step_seconds);
// The same from the stages' summed FLOPs (AnalyticResult::model_flops, hardware_flops).
[[nodiscard]] Throughput throughput(const Scenario& s, const Plan& plan, const StepCosts& costs,
                                    double step_seconds, double model_flops, double hardware_flops);

}  // namespace shardsim
