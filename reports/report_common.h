// Pieces every JSON report starts with (DESIGN.md "Report keys").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/core/infeasible.h"
#include "simulator/plan/plan.h"
#include "simulator/scenario/scenario.h"

namespace shardsim {

inline constexpr int kReportSchemaVersion = 1;

[[nodiscard]] std::string tool_version();

// schema_version, tool_version, scenario (the resolved input), plan, warnings.
[[nodiscard]] nlohmann::json report_header(const Scenario& s, const Plan& plan);

// {"feasible": bool, "reasons": [{"code", "path", "message"}]}
[[nodiscard]] nlohmann::json feasibility_json(const std::vector<Infeasibility>& reasons);

// The whole report of a scenario whose plan cannot run (s.infeasible non-empty): header without
// a plan, model parameters and feasibility; as JSON or text.
[[nodiscard]] nlohmann::json infeasible_report(const Scenario& s);
[[nodiscard]] std::string infeasible_text(const Scenario& s);

// Header lines of the text reports: what was simulated, on what, with which strategy.
[[nodiscard]] std::string describe_setup(const Scenario& s, const Plan& plan);

}  // namespace shardsim
