// The report of `shardsim compare`: one row per variant of the cross product (memory, step time,
// throughput, or why it cannot run / why its input is invalid); JSON (SI units), text and CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/evaluate/variants.h"

namespace shardsim {

// schema_version, tool_version, build, scenario (the argument), compare {mode, overrides, vary[],
// counts, variants[]}; each variant with its values, status ("ok" | "infeasible" | "invalid")
// and, when laid out, the plan, memory, time, throughput and feasibility of a simulate report.
[[nodiscard]] nlohmann::json compare_report_json(const Comparison& c, const std::string& scenario,
                                                 const std::vector<std::string>& overrides);
[[nodiscard]] std::string compare_report_text(const Comparison& c, const std::string& scenario);
[[nodiscard]] std::string compare_report_csv(const Comparison& c);

// "ok" when the variant runs, "infeasible" when its plan cannot, "invalid" when its input is bad.
[[nodiscard]] std::string variant_status(const Variant& v);

}  // namespace shardsim
