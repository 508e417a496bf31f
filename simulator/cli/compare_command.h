// `shardsim compare SCENARIO --vary KEY=V1,V2,... [--vary ...]`: the scenario over the cross
// product of the varied keys, side by side (reports/compare_report.h).
#pragma once

#include <string>
#include <vector>

#include "simulator/cli/commands.h"

namespace shardsim::cli {

struct CompareArgs {
  ScenarioArgs common;
  std::vector<std::string> vary;  // KEY=V1,V2,...
  std::string mode = "des";
  std::string csv;  // --csv FILE
  int threads = 0;  // 0: the machine's hardware threads
};

int run_compare(const CompareArgs& a);

}  // namespace shardsim::cli
