#include "simulator/cli/simulate_command.h"

#include <iostream>

#include "reports/html_report.h"
#include "reports/output.h"
#include "reports/step_report.h"
#include "reports/trace.h"
#include "simulator/cli/evaluate_scenario.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/evaluate/explain.h"

namespace shardsim::cli {

int run_simulate(const SimulateArgs& a) {
  check_outputs(outputs_of(a.common, {{"--trace", a.trace}}), inputs_of(a.common));
  if (!a.trace.empty() && a.mode != "des")
    throw InputError("", "--trace needs --mode des (the analytic model has no timeline)");
  // The HTML page draws the DES timeline, so --html asks for it too.
  const EvaluateOptions options{a.mode == "des" ? Mode::kDes : Mode::kAnalytic,
                                a.mode == "des" && (!a.trace.empty() || !a.common.html.empty())};
  const Scenario s = load_scenario(a.common.scenario, a.common.overrides);
  check_outputs_not_inputs(outputs_of(a.common, {{"--trace", a.trace}}), s.files_read);
  const Estimate e = evaluate_or_throw(s, options);
  nlohmann::json report = simulate_report_json(e);
  std::string text = simulate_report_text(e);
  if (a.explain && e.time) {
    const auto effects = explain_effects(s, options.mode, e.time->step_seconds);
    report["explain"] = explain_json(effects, s);
    text += explain_text(effects, s, e.time->step_seconds);
  }
  if (a.ops && e.plan) {
    const std::vector<OpCostRow> rows = op_cost_rows(s, *e.plan);
    report["ops"] = ops_json(rows);
    text += ops_text(rows);
  }
  return write_report_with_gates(
      a.common, "simulate", report, text,
      [&] {
        return estimate_html(e,
                             "shardsim simulate: " + (s.name.empty() ? a.common.scenario : s.name));
      },
      [&] {
        if (a.trace.empty()) return OutputList{};
        // The trace is written even when the plan cannot be laid out (found by review,
        // 2026-11-27: nothing was written and nothing said, so a trace of an earlier run looked
        // current). Said here, once the gates are known to be well formed.
        if (!e.plan)
          std::cerr << "warning: --trace " << a.trace
                    << ": the plan cannot be laid out, so the trace has no events (the report "
                       "says why)\n";
        return OutputList{{a.trace, json_text(chrome_trace(e)) + "\n"}};
      });
}

}  // namespace shardsim::cli
