#pragma once

// Shared by the DeepSpeed (importers.cc) and Megatron-LM (importers_megatron.cc) importers.

#include <nlohmann/json.hpp>

#include "simulator/scenario/importers.h"

namespace shardsim::import_detail {

// The scenario's `cluster` section from --gpu, --gpus and --gpus-per-node; InputError when one
// is missing or the GPU count is not a multiple of the GPUs per node.
nlohmann::json cluster_json(const ImportTarget& t);

}  // namespace shardsim::import_detail
