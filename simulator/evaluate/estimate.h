// What evaluating one scenario gives: the plan, memory per pipeline stage, step time with its
// breakdown and throughput, the DES timeline when asked, warnings, and, for a plan that cannot
// run, the reasons. Writers (reports/) take an Estimate, never its pieces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/analytic/analytic.h"
#include "simulator/core/infeasible.h"
#include "simulator/cost/time_split.h"
#include "simulator/des/step_sim.h"
#include "simulator/memory/memory.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

// kMemory: plan and memory only. kAnalytic: plus the closed-form step time. kDes: plus the
// discrete-event simulation of the step.
enum class Mode { kMemory, kAnalytic, kDes };
[[nodiscard]] std::string mode_name(Mode m);  // "memory", "analytic", "des"

struct StepTime {
  Mode mode = Mode::kAnalytic;
  double step_seconds = 0;
  TimeSplit breakdown;  // exposed seconds of the critical stage; sums to step_seconds
  int critical_stage = 0;
  std::vector<double> stage_end_seconds;  // DES only: when each pipeline stage finished
  double peak_flops_per_gpu = 0;          // dense peak of the GEMMs' dtype (MFU base)
  Throughput throughput;
};

struct Estimate {
  // The scenario evaluated: its model, training, cluster and resolved input. REQUIRES: it outlives
  // the Estimate. Its strategy may change afterwards (a search varies it in place), so what was
  // evaluated is kept here by value, and writers read these two, not the scenario's.
  const Scenario* scenario = nullptr;
  Strategy strategy;
  std::int64_t micro_batch = 1;
  std::vector<std::string> warnings;      // the scenario's, then the strategy's
  std::vector<Infeasibility> infeasible;  // why the plan cannot run; empty when it can
  std::optional<Plan> plan;               // absent when the strategy cannot be laid out
  std::optional<MemoryEstimate> memory;   // with the plan
  std::optional<StepTime> time;           // kAnalytic and kDes, with the plan
  std::vector<TraceSlice> timeline;       // kDes with EvaluateOptions::timeline

  [[nodiscard]] bool feasible() const { return infeasible.empty(); }
  [[nodiscard]] const Scenario& input() const { return *scenario; }
};

}  // namespace shardsim
