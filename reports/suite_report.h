// Writers of the validation suite's result (simulator/suite): a text table per group with its
// summary, the JSON report (reports/schemas/suite-report.schema.json) and a CSV of every case.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "simulator/suite/suite.h"

namespace shardsim {

inline constexpr int kSuiteReportSchemaVersion = 1;

// Groups of more cases than this print their worst rows and every case not evaluated; the JSON
// and CSV reports list all.
inline constexpr int kSuiteTextRowsPerGroup = 40;

[[nodiscard]] std::string suite_report_text(const suite::SuiteResult& r);
[[nodiscard]] nlohmann::json suite_report_json(const suite::SuiteResult& r);
[[nodiscard]] std::string suite_report_csv(const suite::SuiteResult& r);

// A group's "met" cell in the summary tables (text and HTML): "yes", "no", or "-" for a group
// without a target (suite::Target::none()).
[[nodiscard]] const char* met_cell(const suite::GroupSummary& g);

}  // namespace shardsim
