#pragma once

// Shared by the DeepSpeed (importers.cc) and Megatron-LM (importers_megatron.cc) importers.

#include <nlohmann/json.hpp>

#include "simulator/scenario/importers.h"

namespace shardsim::import_detail {

// The scenario's `cluster` section from --gpu, --gpus and --gpus-per-node; InputError when one
// is missing or the GPU count is not a multiple of the GPUs per node.
nlohmann::json cluster_json(const ImportTarget& t);

// The scenario's `model` section from --model: {"hf_config": PATH} for a path (a '/' in it, a
// ".json" name, or an existing file or folder that is no model preset's name), else
// {"preset": NAME} (found by review, 2026-11-28: a folder named without '/' was "unknown models
// preset").
nlohmann::json model_json(const std::string& model);

// The warning an fp32 import carries: neither source says whether its GEMMs use TF32, so the
// scenario keeps training.tf32's default (true).
inline constexpr const char* kFp32Tf32Warning =
    "fp32 training: training.tf32 is left at true (TF32 tensor cores, as NVIDIA's PyTorch "
    "containers set up); the imported configuration does not say, and plain PyTorch multiplies "
    "fp32 without TF32: set training.tf32 false for such a run";

}  // namespace shardsim::import_detail
