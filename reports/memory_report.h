// The memory report: JSON (DESIGN.md keys, SI bytes) and a human table (GiB = 2^30 bytes, with
// GB = 1e9 bytes given for capacity and peak). An Estimate without a plan gives the infeasible
// report (report_common.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/evaluate/estimate.h"

namespace shardsim {

// Header, "model", "memory" and "feasibility". REQUIRES: e.memory when e.plan.
[[nodiscard]] nlohmann::json memory_report_json(const Estimate& e);
[[nodiscard]] std::string memory_report_text(const Estimate& e);

// The "model" and "memory" sections alone (shared with the simulate report).
void add_memory_json(const MemoryEstimate& m, nlohmann::json& report);

}  // namespace shardsim
