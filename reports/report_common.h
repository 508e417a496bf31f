// Pieces every JSON report starts with (DESIGN.md "Report keys"), from an Estimate.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/build_info.h"
#include "simulator/core/infeasible.h"
#include "simulator/evaluate/estimate.h"

namespace shardsim {

inline constexpr int kReportSchemaVersion = 1;

// schema_version, tool_version, build, profile (the hardware profile's name and whether it was
// fitted), scenario (the resolved input), warnings, and the plan when there is one.
[[nodiscard]] nlohmann::json report_header(const Estimate& e);

// {"feasible": bool, "reasons": [{"code", "path", "message"}]}
[[nodiscard]] nlohmann::json feasibility_json(const std::vector<Infeasibility>& reasons);

// The whole report of an Estimate without a plan (the strategy cannot be laid out): header,
// model parameters and feasibility; as JSON or text.
[[nodiscard]] nlohmann::json infeasible_report(const Estimate& e);
[[nodiscard]] std::string infeasible_text(const Estimate& e);

// Header lines of the text reports: what was simulated, on what, with which strategy.
// REQUIRES: e.plan.
[[nodiscard]] std::string describe_setup(const Estimate& e);

// CSV cells: a string in double quotes (inner quotes doubled); a number in shortest round-trip
// form, empty when not finite.
[[nodiscard]] std::string csv_quoted(const std::string& s);
[[nodiscard]] std::string csv_number(double v);

// "warning: ...\n" for each of e.warnings.
[[nodiscard]] std::string warnings_text(const Estimate& e);

}  // namespace shardsim
