// Pieces every JSON report starts with (DESIGN.md "Report keys").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

inline constexpr int kReportSchemaVersion = 1;

[[nodiscard]] std::string tool_version();

// schema_version, tool_version, scenario (the resolved input), plan, warnings.
[[nodiscard]] nlohmann::json report_header(const Scenario& s, const Plan& plan);

// Header lines of the text reports: what was simulated, on what, with which strategy.
[[nodiscard]] std::string describe_setup(const Scenario& s, const Plan& plan);

}  // namespace shardsim
