// The step-time report of `shardsim simulate`: time, breakdown, throughput, plus the memory
// sections; JSON in SI units (seconds, FLOP/s) and a human summary. An Estimate without a plan
// gives the infeasible report (report_common.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/cost/op_table.h"
#include "simulator/evaluate/estimate.h"
#include "simulator/evaluate/explain.h"

namespace shardsim {

inline constexpr const char* kFlopConvention =
    "megatron: 2*m*n*k per GEMM incl. attention scores and values (causal mask not halved), "
    "backward = 2x forward, element-wise ops not counted; MFU excludes recomputation, HFU "
    "includes it; attention under a sliding window w < s counted at 2w - w^2/s keys, twice the "
    "window's pairs per query, whatever the kernel (Megatron's own count ignores the window)";

// Header, "model", "memory", "time", "throughput" and "feasibility".
// REQUIRES: e.memory and e.time when e.plan.
[[nodiscard]] nlohmann::json simulate_report_json(const Estimate& e);
[[nodiscard]] std::string simulate_report_text(const Estimate& e);

// `simulate --explain`: each effect's seconds (explain.h), as the report's "explain" section and
// as text.
[[nodiscard]] nlohmann::json explain_json(const std::vector<EffectContribution>& effects,
                                          const Scenario& s);
[[nodiscard]] std::string explain_text(const std::vector<EffectContribution>& effects,
                                       const Scenario& s, double step_seconds);

// `simulate --ops`: each op's seconds per pass, FLOPs and bytes (cost/op_table.h), as the report's
// "ops" section and as a table with the rate each op reaches (TFLOP/s where it does floating-point
// work, else GB/s of HBM traffic).
[[nodiscard]] nlohmann::json ops_json(const std::vector<OpCostRow>& rows);
[[nodiscard]] std::string ops_text(const std::vector<OpCostRow>& rows);

}  // namespace shardsim
