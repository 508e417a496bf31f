// `shardsim calibrate --launcher CMD`: shardsim runs `CMD <this binary> calibrate <the same
// options>` through sh, waits, and maps the outcome to its own exit codes, whatever the launcher
// returns: 0 when the launcher exited 0 and this run wrote the profile; 1 when this run wrote its
// samples and some kernel failed verification; 2 passed on (a refusal, or a launcher string sh
// could not run); anything else (a rank lost to SIGKILL makes Open MPI's mpirun exit 137, a
// failed call 3, a launcher's own failure, an exit 0 without a new profile) is 3, with the
// failing call the ranks recorded (PROFILE.samples.json.partial's `error` and every
// PROFILE.samples.json.rank<N>.error) and the number of items kept. Error files and the .partial
// of an earlier run are removed before the launch.
#pragma once

#include <string>

#include "simulator/cli/fit_command.h"

namespace shardsim::cli {

// The shell command: `launcher` (as given, e.g. "mpirun -np 8" or "srun -N 2
// --ntasks-per-node=8"), then `self` and the calibrate options, each quoted for sh.
[[nodiscard]] std::string launch_command(const std::string& launcher, const std::string& self,
                                         const CalibrateArgs& a);

// A std::system status as a shell would report it: the exit code, or 128 + the signal.
[[nodiscard]] int launcher_exit_code(int wait_status);

// Runs the launched calibration (above) and returns shardsim's exit code. `samples` is
// PROFILE.samples.json.
[[nodiscard]] int run_launched_calibration(const CalibrateArgs& a, const std::string& samples);

}  // namespace shardsim::cli
