// `shardsim search SCENARIO [--set ...] [--top K]`: the fastest plans that fit
// (simulator/evaluate/search.h, reports/search_report.h).
#pragma once

#include <string>

#include "simulator/cli/commands.h"

namespace shardsim::cli {

struct SearchArgs {
  ScenarioArgs common;
  int top = 0;      // --top K; 0: the scenario's search.top_k (default 10)
  std::string csv;  // --csv FILE
  int threads = 0;  // 0: the machine's hardware threads
};

int run_search(const SearchArgs& a);

}  // namespace shardsim::cli
