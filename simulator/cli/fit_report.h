// The report `shardsim fit` prints: what each input gave the profile, each fitted nccl-tests
// log's segments with residuals and held-out errors, and the topology fit across logs (text, or
// JSON following reports/schemas/fit-report.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/collective_fit.h"
#include "calibrate/topology_fit.h"
#include "simulator/cli/fit_inputs.h"

namespace shardsim::cli {

// One fitted log in the report.
struct LogReport {
  calibrate::MeasuredCollective rows;
  calibrate::CollectiveFit fit;
  double held_out_pct = -1;  // -1: fewer than 4 rows
  // --table-fit-sizes ladder: the table's rows off the ladder, predicted by `fit` (percent).
  std::vector<double> ladder_held_out_pct;
};

// "N rows off the size ladder: median x%, max y%" of a ladder-fitted table.
[[nodiscard]] std::string ladder_text(const std::vector<double>& errors);

[[nodiscard]] nlohmann::json fit_report_json(const FitNotes& notes,
                                             const std::vector<LogReport>& logs,
                                             const calibrate::TopologyFit* topo);
[[nodiscard]] std::string fit_report_text(const FitNotes& notes, const std::vector<LogReport>& logs,
                                          const calibrate::TopologyFit* topo);

}  // namespace shardsim::cli
