#include "tests/fuzz/fuzz_common.h"

#include "reports/memory_report.h"
#include "reports/step_report.h"

namespace shardsim::fuzz {

void evaluate_loaded(const Scenario& s) {
  EvaluateOptions options;
  options.mode = Mode::kAnalytic;  // the DES has its own event-count bound (des_size_test)
  const Expected<Estimate> e = evaluate(s, options);
  static const bool verbose = std::getenv("SHARDSIM_FUZZ_VERBOSE") != nullptr;
  if (!e.ok()) {  // diagnostics naming the field: the documented refusal
    if (verbose) std::fprintf(stderr, "refused by evaluate: %s\n", e.errors().format().c_str());
    return;
  }
  if (verbose) std::fprintf(stderr, "evaluated\n");
  require_finite(simulate_report_json(e.value()), "the simulate report");
  require_finite(memory_report_json(e.value()), "the memory report");
}

}  // namespace shardsim::fuzz
