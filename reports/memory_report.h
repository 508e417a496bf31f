// The memory report: JSON (DESIGN.md keys, SI bytes) and a human table (GiB = 2^30 bytes, with
// GB = 1e9 bytes given for capacity and peak).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/memory/memory.h"

namespace shardsim {

// Adds "model" and "memory" sections to `report`.
void add_memory_json(const MemoryEstimate& e, nlohmann::json& report);

[[nodiscard]] std::string memory_text(const Scenario& s, const Plan& plan, const MemoryEstimate& e);

}  // namespace shardsim
