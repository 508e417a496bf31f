#include "simulator/suite/framework_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "calibrate/nelder_mead.h"
#include "simulator/scenario/load.h"

namespace shardsim::suite {
namespace {

struct Row {
  Scenario scenario;
  double published = 0;
  bool calibration = false;
  std::string id;
};

// Both subsets' statistics with the framework `f` on every row.
void evaluate_rows(std::vector<Row>& rows, const FrameworkConfig& f, Mode mode, ErrorStats& cal,
                   ErrorStats& held, EvaluateCache& cache) {
  std::vector<CaseResult> results;
  results.reserve(rows.size());
  for (Row& r : rows) {
    r.scenario.framework = f;
    const Expected<Estimate> e =
        evaluate(r.scenario, {mode, false, MemoryDetail::kNumbers, &cache});
    CaseResult c;
    c.c.id = r.id;
    c.c.calibration_subset = r.calibration;
    if (!e.ok() || !e->time || !e->feasible()) {
      c.outcome = Outcome::kInfeasible;
    } else {
      c.predicted = e->time->step_seconds;
      c.signed_pct_error = 100 * (c.predicted - r.published) / r.published;
      c.abs_pct_error = std::fabs(c.signed_pct_error);
    }
    results.push_back(std::move(c));
  }
  std::vector<const CaseResult*> a, b;
  for (const auto& c : results) (*c.c.calibration_subset ? a : b).push_back(&c);
  cal = error_stats(a);
  held = error_stats(b);
}

}  // namespace

FrameworkFit fit_framework(const std::string& name, Mode mode) {
  std::vector<Row> rows;
  for (const Case& c : vtrain_cases()) {
    Row r;
    r.scenario = case_scenario(c);
    r.published = c.published;
    r.calibration = c.calibration_subset.value_or(false);
    r.id = c.id;
    rows.push_back(std::move(r));
  }
  std::vector<Row> cal_rows;
  for (const Row& r : rows)
    if (r.calibration) cal_rows.push_back(r);
  EvaluateCache cache;
  FrameworkFit out;
  FrameworkConfig zero;
  zero.name = name;
  evaluate_rows(rows, zero, mode, out.before_calibration, out.before_held_out, cache);
  // x in microseconds (op, collective), milliseconds (step) and per cent (sync fraction); |x|
  // keeps them non-negative, and the sync fraction is capped at 1 (100 %).
  auto config = [&](const std::vector<double>& x) {
    FrameworkConfig f = zero;
    f.op_dispatch_s = std::fabs(x[0]) * 1e-6;
    f.collective_dispatch_s = std::fabs(x[1]) * 1e-6;
    f.step_overhead_s = std::fabs(x[2]) * 1e-3;
    f.host_sync_fraction = std::min(1.0, std::fabs(x[3]) * 1e-2);
    return f;
  };
  auto objective = [&](const std::vector<double>& x) {
    ErrorStats cal, unused;
    evaluate_rows(cal_rows, config(x), mode, cal, unused, cache);
    if (cal.count != int(cal_rows.size()))
      throw std::logic_error("internal error: a vTrain calibration row did not evaluate");
    return cal.mape;
  };
  const auto best = calibrate::nelder_mead(objective, {30, 30, 5, 10}, {20, 20, 5, 10}, 600, 1e-4);
  out.evaluations = best.evaluations;
  out.framework = config(best.x);
  out.framework.fitted = true;
  evaluate_rows(rows, out.framework, mode, out.calibration, out.held_out, cache);
  out.framework.source = fmt::format(
      "fitted by `shardsim suite --fit-framework` ({} mode) on the calibration subset of the "
      "vTrain "
      "single-node rows (even 0-based rows of scenarios/published/vtrain-ground-truth-single.csv, "
      "{} iterations measured with Megatron-DeepSpeed on 8x A100; Bang et al., MICRO 2024): "
      "calibration MAPE {:.2f} % -> {:.2f} %; held-out odd rows (never seen by the fit) MAPE "
      "{:.2f} % -> {:.2f} %, worst {:.1f} % ({}). Values are per operation of shardsim's op list "
      "(simulator/model/ops.cc), not per PyTorch operator; host_sync_fraction is the share of the "
      "shorter of a work item's host and GPU time that does not overlap the longer "
      "(simulator/cost/host_dispatch.h)",
      mode_name(mode), out.calibration.count, out.before_calibration.mape, out.calibration.mape,
      out.before_held_out.mape, out.held_out.mape, out.held_out.max_abs, out.held_out.worst);
  return out;
}

nlohmann::json framework_preset_json(const FrameworkFit& fit, const std::string& description) {
  const FrameworkConfig& f = fit.framework;
  return {{"name", f.name},
          {"description", description},
          {"op_dispatch_s", f.op_dispatch_s},
          {"collective_dispatch_s", f.collective_dispatch_s},
          {"step_overhead_s", f.step_overhead_s},
          {"host_sync_fraction", f.host_sync_fraction},
          {"fitted", f.fitted},
          {"source", f.source}};
}

}  // namespace shardsim::suite
