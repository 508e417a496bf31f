// Fuzz target: the scenario reader with --set overrides, then evaluate (what `shardsim simulate
// FILE --set ...` does). Input: any number of leading lines "--set KEY=VALUE" (at most 16 are
// used), then the scenario's JSON text. Relative paths in the scenario resolve against the working
// directory. Property (fuzz_common.h): a report with finite numbers, or InputError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "simulator/scenario/load.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  std::string_view text = fuzz::as_text(data, size);
  std::vector<std::string> overrides;
  while (text.starts_with("--set ")) {
    const std::size_t end = text.find('\n');
    const std::string_view line =
        text.substr(6, end == std::string_view::npos ? text.npos : end - 6);
    if (overrides.size() < 16) overrides.emplace_back(line);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  try {
    const nlohmann::json raw = parse_json_text(text, "fuzz scenario");
    const Scenario s = scenario_from_json(raw, "", overrides);
    fuzz::evaluate_loaded(s);
  } catch (const InputError& e) {
    fuzz::refused(e);
  }
  return 0;
}
