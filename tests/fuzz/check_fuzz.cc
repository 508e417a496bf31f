// Fuzz target: the CI gates (`--check EXPR`, `--baseline OLD.json --tolerance P`). Input: one
// --check expression per line (at most 16); optionally a line "---" followed by a baseline report
// (JSON) compared with tolerance 5%. The report checked is a fixed one shaped like simulate's.
// Property: outcomes (passed or failed, each with its message), or InputError; never another throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "reports/gates.h"
#include "tests/fuzz/fuzz_common.h"

namespace {

const nlohmann::json& report() {
  static const nlohmann::json r = nlohmann::json::parse(R"({
    "kind": "simulate", "scenario": {"name": "fuzz"},
    "memory": {"peak_bytes": 6.5e10, "fits": true, "per_stage": [{"peak_bytes": 6.5e10}]},
    "time": {"step_seconds": 1.25, "breakdown": {"compute_seconds": 1.0, "bubble_seconds": 0}},
    "throughput": {"tokens_per_second": 52428.8, "mfu": 0.41},
    "search": {"results": [{"memory": {"fits": false}, "throughput": {"mfu": 0.3}}]},
    "warnings": [], "name": "x", "flags": [true, false, null]})");
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  std::vector<std::string> exprs;
  std::string baseline;
  bool in_baseline = false;
  for (std::string& line : fuzz::lines_of(fuzz::as_text(data, size))) {
    if (in_baseline) {
      baseline += line;
      baseline += '\n';
    } else if (line == "---") {
      in_baseline = true;
    } else if (exprs.size() < 16) {
      exprs.push_back(std::move(line));
    }
  }
  try {
    for (const GateOutcome& o : run_checks(report(), exprs))
      if (o.message.empty()) fuzz::fail("a check outcome without a message");
  } catch (const InputError& e) {
    fuzz::refused(e);
  }
  if (in_baseline) {
    try {
      const nlohmann::json old = parse_json_text(baseline, "fuzz baseline");
      for (const GateOutcome& o : compare_baseline(report(), old, 5.0))
        if (o.message.empty()) fuzz::fail("a baseline outcome without a message");
    } catch (const InputError& e) {
      fuzz::refused(e);
    }
  }
  return 0;
}
