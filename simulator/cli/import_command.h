// `shardsim import deepspeed DS_CONFIG.json ...` and `shardsim import megatron ... -- ARGS...`:
// write a scenario from a DeepSpeed config or a Megatron-LM argument list
// (simulator/scenario/importers.h). The scenario is loaded once before it is written, so what is
// written always loads; warnings name every option not modelled.
#pragma once

#include <string>
#include <vector>

#include "simulator/scenario/importers.h"

namespace shardsim::cli {

struct ImportArgs {
  std::string kind;               // "deepspeed" | "megatron"
  std::string config;             // deepspeed: the config file
  std::vector<std::string> args;  // megatron: the arguments (after --)
  ImportTarget target;
  std::string output;  // -o FILE; empty = stdout
};

int run_import(const ImportArgs& a);

}  // namespace shardsim::cli
