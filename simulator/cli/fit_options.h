// The options of `shardsim calibrate` and `shardsim fit` (CLI11), split from main.cc.
#pragma once

#include <CLI/CLI.hpp>

#include "simulator/cli/fit_command.h"

namespace shardsim::cli {

void add_calibrate_options(CLI::App* cmd, CalibrateArgs& a);
void add_fit_options(CLI::App* cmd, FitArgs& a);

}  // namespace shardsim::cli
