// The one seam every command calls: a scenario (model, training, cluster, strategy) in, an
// Estimate or the diagnostics of bad input out. No exception crosses it for bad input or for a
// plan that cannot run: infeasible plans are Estimates with reasons (estimate.h). Exceptions that
// do cross are bugs (std::logic_error: exit code 3 at the CLI).
//
// The scenario is used as it is: search and compare vary its strategy (and micro-batch) in place
// and call evaluate again; nothing here re-parses or copies it.
#pragma once

#include "simulator/core/expected.h"
#include "simulator/cost/step_costs.h"
#include "simulator/evaluate/estimate.h"
#include "simulator/memory/memory.h"

namespace shardsim {

// What evaluate may reuse from one call to the next: the per-kind op costs and the per-plan memory
// facts, which depend on a few strategy fields (tp, sp, cp, ep, micro-batch, recomputation,
// precision...) that a search revisits across pp, dp, ZeRO and schedules. Held by the caller and
// passed in EvaluateOptions::cache; each memo checks the model (and GPU profile) it was filled for,
// so one cache may see several scenarios. An Estimate is the same with or without it. Not safe for
// concurrent use: one cache per thread.
struct EvaluateCache {
  PlanFactsCache memory;
  KindCostCache costs;
};

struct EvaluateOptions {
  Mode mode = Mode::kAnalytic;
  bool timeline = false;  // kDes: keep every task as a trace slice (Estimate::timeline)
  // kFull: every memory term with its note (reports). kNumbers: totals, peak and feasibility
  // only, no per-term notes and MemoryEstimate::parameters left 0 (search loops).
  MemoryDetail memory_detail = MemoryDetail::kFull;
  EvaluateCache* cache = nullptr;  // optional (see EvaluateCache)
};

// REQUIRES: `s` came from load_scenario / scenario_from_json (sections parsed, strategy.dp and
// cluster.nodes resolved). The strategy is checked again here: a varied strategy that breaks a
// cross-field rule gives Diagnostics naming the field.
[[nodiscard]] Expected<Estimate> evaluate(const Scenario& s, const EvaluateOptions& options = {});
// An Estimate points at its scenario: evaluating a temporary would leave it dangling.
Expected<Estimate> evaluate(Scenario&&, const EvaluateOptions& = {}) = delete;

}  // namespace shardsim
