// Fuzz target: the DeepSpeed config importer, then the scenario it produces loaded and evaluated
// (what `shardsim import deepspeed FILE --model M --gpu G --gpus N --seq-len S` and a later
// `simulate` do). Input: the DeepSpeed JSON config. Property (fuzz_common.h): a scenario that
// loads, or InputError naming the key.
#include <cstddef>
#include <cstdint>

#include "simulator/scenario/importers.h"
#include "simulator/scenario/load.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  ImportTarget t;
  t.model = "llama2-7b";
  t.gpu = "a100-sxm-80gb";
  t.gpus = 16;
  t.seq_len = 4096;
  try {
    const nlohmann::json config = parse_json_text(fuzz::as_text(data, size), "fuzz ds.json");
    const ImportResult r = import_deepspeed(config, t, "fuzz ds.json");
    const Scenario s = scenario_from_json(r.scenario, "");
    fuzz::evaluate_loaded(s);
  } catch (const InputError& e) {
    fuzz::refused(e);
  }
  return 0;
}
