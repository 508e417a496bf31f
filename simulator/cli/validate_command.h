// `shardsim validate --profile PROFILE.json --backend cpu|cuda [--quick] [--json] [-o FILE]`:
// measures the composite training step and single kernels, predicts them with the profile and
// reports the errors (calibrate/validate.h). Run under mpirun for data parallelism over ranks.
#pragma once

#include <string>

namespace shardsim::cli {

struct ValidateArgs {
  std::string profile;  // hardware profile JSON (a `calibrate` / `fit` output)
  std::string backend;  // cpu | cuda
  bool quick = false;
  bool json = false;
  std::string output;  // -o FILE; empty = stdout (rank 0 writes)
};

// Exit codes: 0 ok; 1 the composite step failed its check (loss did not fall or the replicas
// differ); 2 bad input (a missing or invalid profile, naming the file and field), or a Debug
// build; 3 runtime failure (cuda: the composite workload is not implemented for it; a failed MPI
// or BLAS call, naming it; a lost rank's deadline).
int run_validate(const ValidateArgs& a);

}  // namespace shardsim::cli
