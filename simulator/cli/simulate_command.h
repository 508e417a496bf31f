// `shardsim simulate`: step time by discrete-event simulation (default) or the analytic model.
#pragma once

#include <string>

#include "simulator/cli/commands.h"

namespace shardsim::cli {

struct SimulateArgs {
  ScenarioArgs common;
  std::string mode = "des";  // des | analytic
  std::string trace;         // Chrome trace output path (DES only)
  bool explain = false;      // each effect's seconds (evaluate/explain.h)
  bool ops = false;          // each op's cost (cost/op_table.h)
};

int run_simulate(const SimulateArgs& a);

}  // namespace shardsim::cli
