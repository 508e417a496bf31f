#pragma once

// Shared by the DeepSpeed (importers.cc) and Megatron-LM (importers_megatron.cc) importers.

#include <string>
#include <vector>

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

// DeepSpeed's gradients (importers_deepspeed_grads.cc): data_types.grad_accum_dtype into
// training.grad_dtype (InputError naming the field when malformed), and, once the ZeRO section is
// read, the BF16 optimizer's settings where DeepSpeed runs it (bf16 with fp32 accumulation, without
// ZeRO or with ZeRO-1 not offloaded), with the warnings bf16 without ZeRO needs.
void read_grad_accum_dtype(const nlohmann::json& ds, const std::string& precision,
                           nlohmann::json& training, std::vector<std::string>& warnings);
void apply_bf16_optimizer(const std::string& precision, nlohmann::json& training,
                          nlohmann::json& parallel, std::vector<std::string>& warnings);

// The warning an fp32 import carries: neither source says whether its GEMMs use TF32, so the
// scenario keeps training.tf32's default (true).
inline constexpr const char* kFp32Tf32Warning =
    "fp32 training: training.tf32 is left at true (TF32 tensor cores, as NVIDIA's PyTorch "
    "containers set up); the imported configuration does not say, and plain PyTorch multiplies "
    "fp32 without TF32: set training.tf32 false for such a run";

}  // namespace shardsim::import_detail
