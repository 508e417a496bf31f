// Fuzz target: the Hugging Face config importer, then the imported model in a scenario that is
// loaded and evaluated (what `"model": {"hf_config": FILE}` does). Input: config.json text.
// Property (fuzz_common.h): model keys that load, or InputError.
#include <cstddef>
#include <cstdint>

#include "simulator/model/hf_import.h"
#include "simulator/scenario/load.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardsim;
  fuzz::init_once();
  try {
    const nlohmann::json hf =
        parse_json_text(fuzz::as_text(data, size), "fuzz config.json", kHfConfigPointer);
    nlohmann::json model = hf_config_to_model_json(hf, "fuzz config.json");
    if (!model.is_object()) fuzz::fail("hf_config_to_model_json returned a non-object");
    const nlohmann::json scenario = {
        {"model", std::move(model)},
        {"training", {{"seq_len", 2048}, {"global_batch", 64}, {"micro_batch", 1}}},
        {"cluster", {{"gpu", "h100-sxm"}, {"nodes", 1}}},
        {"parallel", {{"tp", 1}, {"pp", 1}, {"zero", 1}}}};
    const Scenario s = scenario_from_json(scenario, "");
    fuzz::evaluate_loaded(s);
  } catch (const InputError& e) {
    fuzz::refused(e);
  }
  return 0;
}
