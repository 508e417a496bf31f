// CI gates on a report's JSON: `--check EXPR` (a report value against a bound) and `--baseline
// OLD.json --tolerance P` (the key numbers against an earlier report of the same kind). A failed
// gate is a result (exit code 1 at the CLI); a malformed expression, a path the report does not
// have, or an unreadable baseline is bad input (InputError, exit code 2).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shardsim {

struct GateOutcome {
  std::string gate;  // the expression, or "baseline PATH"
  bool passed = false;
  std::string message;  // the values compared, with the rule
};

// EXPR: PATH OP NUMBER, PATH a dotted path into the report (array elements by index:
// "search.results.0.throughput.mfu"), OP one of < <= > >= == !=, NUMBER a JSON number; or
// PATH == true / false for booleans ("memory.fits==true").
// A gate on a report of a plan that cannot be built (no plan, memory, time or throughput) fails
// when its path names a key these sections have in a built report (planless_sections); any other
// missing path is bad input (InputError).
// A search gate on a result past the plans found fails too. `command` ("memory", "simulate",
// "compare", "search") is the report's: a memory report never has time or throughput, whatever its
// plan.
[[nodiscard]] std::vector<GateOutcome> run_checks(const nlohmann::json& report,
                                                  const std::vector<std::string>& exprs,
                                                  std::string_view command = "");

// The keys of the plan, memory, time and throughput sections of a built simulate report.
[[nodiscard]] const std::map<std::string, std::set<std::string>>& planless_sections();

// The report's key numbers against `baseline` (same kind): memory.peak_bytes and
// time.step_seconds may not grow, throughput.tokens_per_second and throughput.mfu may not fall,
// by more than `tolerance_pct` percent. simulate/memory: the report's own; compare: every variant
// (matched by its values; a variant missing from either side fails); search: the best result.
// Improvements pass and are reported.
[[nodiscard]] std::vector<GateOutcome> compare_baseline(const nlohmann::json& report,
                                                        const nlohmann::json& baseline,
                                                        double tolerance_pct);

// "check passed: ..." / "check FAILED: ..." lines, one per outcome.
[[nodiscard]] std::string gates_text(const std::vector<GateOutcome>& outcomes);

}  // namespace shardsim
