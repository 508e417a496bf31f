// shardsim fit and shardsim calibrate: hardware profiles from measurements (calibrate/).
#pragma once

#include <string>
#include <vector>

#include "simulator/cli/fit_args.h"
#include "simulator/hardware/hardware.h"

namespace shardsim::cli {

int run_fit(const FitArgs& a);
int run_calibrate(const CalibrateArgs& a);

// A GPU preset by name, else a hardware profile JSON file (InputError naming `flag` otherwise).
GpuProfile load_profile(const std::string& spec, const std::string& flag);
// Checks `g` by reading its JSON back (exit 3 on a bug) and writes it atomically.
void write_profile(const GpuProfile& g, const std::string& path);

}  // namespace shardsim::cli
