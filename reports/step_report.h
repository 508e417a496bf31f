// The step-time report of `shardsim simulate`: time, breakdown, throughput, plus the memory
// sections; JSON in SI units (seconds, FLOP/s) and a human summary.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/analytic/analytic.h"
#include "simulator/cost/time_split.h"
#include "simulator/memory/memory.h"

namespace shardsim {

struct StepSummary {
  std::string mode;  // "des" or "analytic"
  double step_seconds = 0;
  TimeSplit breakdown;
  int critical_stage = 0;
  std::vector<double> stage_end_seconds;  // DES only
  Throughput throughput;
  double peak_flops_per_gpu = 0;
};

inline constexpr const char* kFlopConvention =
    "megatron: 2*m*n*k per GEMM incl. attention scores and values (causal mask not halved), "
    "backward = 2x forward, element-wise ops not counted; MFU excludes recomputation, HFU "
    "includes it";

// Adds "time", "throughput" and "feasibility" to `report` (which already has model/memory).
void add_step_json(const StepSummary& t, const MemoryEstimate& mem, nlohmann::json& report);

[[nodiscard]] std::string step_text(const Scenario& s, const Plan& plan, const StepSummary& t,
                                    const MemoryEstimate& mem);

}  // namespace shardsim
