// The validation suite: every case of the chosen groups evaluated (prediction cases through
// scenario_from_json and evaluate, memory cases through their closed forms), with per-case errors
// and per-group error statistics against the targets. Pure: no I/O beyond the embedded
// data; the same options give the same result, bit for bit.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simulator/evaluate/evaluate.h"
#include "simulator/suite/cases.h"

namespace shardsim::suite {

enum class Outcome {
  kEvaluated,   // a prediction (or closed-form value) compared with the published value
  kInfeasible,  // the plan is valid but cannot run (memory, ...): reasons in CaseResult::reason
  kRejected,    // the scenario or strategy is not accepted (Diagnostics): messages in reason
};
[[nodiscard]] std::string outcome_name(Outcome o);  // "evaluated", "infeasible", "rejected"

struct CaseResult {
  Case c;
  Outcome outcome = Outcome::kEvaluated;
  std::string reason;  // why not evaluated; empty when evaluated
  // The prediction in the case's unit. For an infeasible plan whose step was still simulated it
  // is given too (reported, not counted in the group's statistics); NaN when there is none.
  double predicted = 0;
  // 100 (predicted - published) / published; for a memory case the prediction as the source
  // printed it (so an exact case has 0 %).
  double signed_pct_error = 0;
  double abs_pct_error = 0;
  std::optional<bool> exact;  // memory: the prediction as printed equals the published value
  // Prediction cases: the hardware profile the scenario resolved to, and whether it was fitted
  // from measurements (the shipped presets say not).
  std::string profile;
  bool profile_fitted = false;
};

struct ErrorStats {
  int count = 0;       // evaluated cases
  double mape = 0;     // mean absolute percentage error
  double max_abs = 0;  // largest absolute percentage error
  std::string worst;   // id of that case
  int within_10 = 0;   // cases with |error| <= 10 %
};

// The target for a group (issue 9, "Targets").
struct Target {
  std::string text;      // e.g. "MAPE <= 8 % and no row > 25 %"
  double max_mape = -1;  // < 0: no MAPE bound
  double max_abs = -1;   // < 0: no per-row bound
  bool exact = false;    // memory: every case exact
  // No bound at all: an independent check, reported only (it never gates --check-targets).
  [[nodiscard]] bool none() const { return max_mape < 0 && max_abs < 0 && !exact; }
};
[[nodiscard]] Target target_of(Group g);

struct GroupSummary {
  Group group = Group::kVtrain;
  int cases = 0;          // all cases of the group
  int not_evaluated = 0;  // infeasible or rejected: listed, never silently dropped
  ErrorStats all;         // over the evaluated cases
  // vTrain: the same over the calibration subset (even rows) and the held-out rows (odd).
  std::optional<ErrorStats> calibration, held_out;
  int exact = 0;  // memory: cases whose prediction as printed equals the published value
  // The hardware profiles the group's scenarios used (name, fitted), sorted by name.
  std::vector<std::pair<std::string, bool>> profiles;
  Target target;
  // The target holds on every evaluated case and every case was evaluated; false for a group
  // without a target (Target::none(), whose reports say "no target" instead).
  bool met = false;
};

struct SuiteOptions {
  std::vector<Group> groups;  // empty: all, in kAllGroups order
  Mode mode = Mode::kDes;     // kDes or kAnalytic for the prediction groups
};

struct SuiteResult {
  Mode mode = Mode::kDes;
  std::vector<CaseResult> cases;     // group by group, file order within a group
  std::vector<GroupSummary> groups;  // in the order run
  [[nodiscard]] bool all_targets_met() const;
};

[[nodiscard]] SuiteResult run_suite(const SuiteOptions& options);

// The gradient-bucket size that makes DDP all-reduce each stage's whole gradient at once (vTrain:
// bucketing off): the largest pipeline stage's local gradient bytes (over TP, Megatron's padded
// vocabulary), plus a millionth.
[[nodiscard]] double single_bucket_bytes(const Scenario& s);

// A prediction case's scenario, parsed (InputError when it is not accepted), with the case's
// gradient-bucket convention applied.
[[nodiscard]] Scenario case_scenario(const Case& c);

// One prediction case: the scenario parsed and evaluated (exposed for the tests).
[[nodiscard]] CaseResult evaluate_case(const Case& c, Mode mode, EvaluateCache* cache = nullptr);

// The statistics of the evaluated cases among `results` (others are skipped).
[[nodiscard]] ErrorStats error_stats(const std::vector<const CaseResult*>& results);

// The summary of one group's results against its target.
[[nodiscard]] GroupSummary summarize(Group g, const std::vector<const CaseResult*>& results);

}  // namespace shardsim::suite
