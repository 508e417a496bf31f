// `shardsim import`: scenarios from the configurations users already have. A DeepSpeed config
// (JSON) or a Megatron-LM argument list becomes a scenario JSON; every option that shardsim does
// not model, or models only approximately, is named in a warning, never silently dropped. What
// the source does not say (the model for DeepSpeed, the cluster for both, the sequence length for
// DeepSpeed) comes from the ImportTarget. The result is meant to be loaded by load_scenario,
// which checks it like any scenario.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardsim {

struct ImportTarget {
  std::string model;         // model preset or Hugging Face config path (DeepSpeed: required)
  std::string gpu;           // GPU preset or profile path (required)
  int gpus = 0;              // world size (required)
  int gpus_per_node = 0;     // 0: the GPU preset's node size
  std::int64_t seq_len = 0;  // DeepSpeed: required; Megatron: overrides --seq-length
};

struct ImportResult {
  nlohmann::json scenario;
  std::vector<std::string> warnings;  // options not modelled, approximations, "auto" values
};

// REQUIRES: nothing. Throws InputError naming the key for values of the wrong type or range.
[[nodiscard]] ImportResult import_deepspeed(const nlohmann::json& config, const ImportTarget& t,
                                            const std::string& source_name);

// `args`: Megatron-LM's command-line arguments ("--num-layers", "32", "--bf16", ...). Throws
// InputError for a missing value or a non-integer where one is needed.
[[nodiscard]] ImportResult import_megatron(const std::vector<std::string>& args,
                                           const ImportTarget& t);

}  // namespace shardsim
