// shardsim suite: the validation suite against published runs and closed-form memory cases
// (simulator/suite), as a text table, JSON and CSV.
#pragma once

#include <string>
#include <vector>

namespace shardsim::cli {

struct SuiteArgs {
  std::vector<std::string> groups;  // --group (repeatable); empty = every group
  std::string mode = "des";         // des | analytic
  bool json = false;
  std::string output;          // -o FILE; empty = stdout
  std::string csv;             // --csv FILE: every case, one row each
  std::string html;            // --html FILE: predicted-vs-measured charts
  bool check_targets = false;  // exit 1 when a group misses its target
  // --fit-framework FILE: fit a framework preset on the vTrain calibration rows and write it to
  // FILE (its name is FILE's stem) instead of running the suite.
  std::string fit_framework;
};

// Exit codes: 0 the suite ran (whatever its errors), 1 --check-targets and a target not met,
// 2 bad input (unknown group, unwritable output).
int run_suite(const SuiteArgs& a);

}  // namespace shardsim::cli
