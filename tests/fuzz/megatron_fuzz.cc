// Fuzz target: the Megatron-LM argument importer, then the scenario it produces loaded and
// evaluated (`shardsim import megatron --gpu G --gpus N -- ARGS...`). Input: the arguments,
// separated by whitespace (at most 256 are used). Property (fuzz_common.h): a scenario that loads,
// or InputError.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "simulator/scenario/importers.h"
#include "simulator/scenario/load.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  std::vector<std::string> args;
  std::string cur;
  for (const char c : fuzz::as_text(data, size)) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      if (!cur.empty() && args.size() < 256) args.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty() && args.size() < 256) args.push_back(std::move(cur));
  ImportTarget t;
  t.gpu = "h100-sxm";
  t.gpus = 64;
  try {
    const ImportResult r = import_megatron(args, t);
    const Scenario s = scenario_from_json(r.scenario, "");
    fuzz::evaluate_loaded(s);
  } catch (const InputError& e) {
    fuzz::refused(e);
  }
  return 0;
}
