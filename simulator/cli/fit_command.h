// shardsim fit and shardsim calibrate: hardware profiles from measurements (calibrate/).
#pragma once

#include <string>
#include <vector>

#include "simulator/hardware/hardware.h"

namespace shardsim::cli {

struct FitArgs {
  std::vector<std::string> nccl_logs;  // --nccl-tests LOG (repeatable)
  std::vector<std::string> gemm_csvs;  // --gemm CSV (repeatable)
  std::vector<std::string> samples;    // --samples FILE (calibration samples, repeatable)
  std::string base;                    // --base PROFILE.json | GPU preset
  std::string gemm_device;             // --gemm-device: rows of CSVs whose device contains it
  int ranks = 0;                       // --ranks N: must agree with every log's rank count
  int gpus_per_node = 0;               // --gpus-per-node N (0: the base profile's node size)
  std::string output;                  // -o PROFILE.json (required)
  bool json = false;                   // JSON fit report on stdout
};

struct CalibrateArgs {
  std::string backend;  // cpu | cuda
  bool quick = false;
  std::string base;      // optional base profile or preset
  std::string output;    // -o PROFILE.json; samples go to PROFILE.samples.json
  std::string launcher;  // --launcher CMD: shardsim starts the ranks itself (calibrate_launch.h)
};

int run_fit(const FitArgs& a);
int run_calibrate(const CalibrateArgs& a);

// A GPU preset by name, else a hardware profile JSON file (InputError naming `flag` otherwise).
GpuProfile load_profile(const std::string& spec, const std::string& flag);
// Checks `g` by reading its JSON back (exit 3 on a bug) and writes it atomically.
void write_profile(const GpuProfile& g, const std::string& path);

}  // namespace shardsim::cli
