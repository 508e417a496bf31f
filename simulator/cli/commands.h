// The CLI's subcommands. Each returns a process exit code (core/diagnostics.h) and throws
// InputError for bad input (mapped to exit code 2 by main).
#pragma once

#include <string>
#include <vector>

namespace shardsim::cli {

struct ScenarioArgs {
  std::string scenario;                // path or shipped example name
  std::vector<std::string> overrides;  // --set KEY=VALUE
  bool json = false;
  std::string output;  // -o FILE; empty = stdout
};

struct MemoryArgs {
  ScenarioArgs common;
  std::string estimator = "shardsim";  // or "deepspeed": DeepSpeed's closed-form model states
};

int run_memory(const MemoryArgs& a);
int run_presets(const std::string& kind, bool json);

}  // namespace shardsim::cli
