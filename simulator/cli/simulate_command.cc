#include "simulator/cli/simulate_command.h"

#include "reports/memory_report.h"
#include "reports/output.h"
#include "reports/report_common.h"
#include "reports/step_report.h"
#include "reports/trace.h"
#include "simulator/analytic/analytic.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/json_reader.h"
#include "simulator/cost/step_costs.h"
#include "simulator/des/step_sim.h"
#include "simulator/memory/memory.h"
#include "simulator/scenario/load.h"

namespace shardsim::cli {

int run_simulate(const SimulateArgs& a) {
  if (!a.trace.empty() && a.mode != "des")
    throw InputError("", "--trace needs --mode des (the analytic model has no timeline)");
  const Scenario s = load_scenario(a.common.scenario, a.common.overrides);
  if (!s.infeasible.empty()) return write_infeasible(s, a.common);
  const Plan plan = make_plan(s);
  const MemoryEstimate mem = estimate_memory(s, plan);
  const StepCosts costs = compute_step_costs(s, plan);
  StepSummary t;
  t.mode = a.mode;
  t.peak_flops_per_gpu = costs.peak_flops_per_gpu;
  if (a.mode == "analytic") {
    const AnalyticResult r = analytic_step(s, plan, costs);
    t.step_seconds = r.step_seconds;
    t.breakdown = r.breakdown;
    t.critical_stage = r.bottleneck_stage;
  } else {
    const StepResult r = simulate_step(s, plan, costs, {!a.trace.empty()});
    t.step_seconds = r.step_seconds;
    t.breakdown = r.breakdown;
    t.critical_stage = r.critical_stage;
    t.stage_end_seconds = r.stage_end_seconds;
    if (!a.trace.empty()) write_output(a.trace, json_text(chrome_trace(r, plan.pp)) + "\n");
  }
  t.throughput = throughput(s, plan, costs, t.step_seconds);
  if (a.common.json) {
    nlohmann::json report = report_header(s, plan);
    add_memory_json(mem, report);
    add_step_json(t, mem, report);
    write_output(a.common.output, json_text(report, 2) + "\n");
  } else {
    write_output(a.common.output, step_text(s, plan, t, mem));
  }
  return kExitOk;
}

}  // namespace shardsim::cli
