// shardsim-calibrate-sweep: the calibration sweep without the fitting, for tests and for looking
// at raw samples. `shardsim calibrate` calls the same run_calibration_sweep().
//
// Usage: [mpirun -np N] shardsim-calibrate-sweep --backend cpu|cuda [--quick] -o SAMPLES.json
//                                               [--filter SUBSTRING] [--sync-timeout SECONDS]
// Exit codes: see run_calibration_sweep (0 ok, 1 verification failed, 2 bad input, 3 runtime).
#include <iostream>

#include <CLI/CLI.hpp>

#include "kernels/sweep/run_sweep.h"

int main(int argc, char** argv) {
  namespace sk = shardsim::kernels;
  sk::SweepOptions options;
  std::string backend;
  CLI::App app{"Runs the shardsim calibration kernel sweep and writes the raw samples (JSON)."};
  app.add_option("--backend", backend, "cpu or cuda")
      ->required()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_flag("--quick", options.quick, "the short sweep");
  // Required: a sweep that measured for minutes and wrote nothing was exit 0 (found by review,
  // 2026-11-28).
  app.add_option("-o,--output", options.samples_path, "samples JSON (rank 0 writes it)")
      ->required();
  // An empty filter matches every item: refused, as shardsim refuses empty values (found by
  // review, 2026-11-29: --filter '' ran the whole sweep).
  app.add_option("--filter", options.name_filter, "only items whose name contains this")
      ->check([](const std::string& v) {
        return v.empty() ? std::string(
                               "empty value; give part of an item's name, or leave "
                               "--filter out")
                         : std::string();
      });
  app.add_option("--sync-timeout", options.sync_timeout_s,
                 "seconds a rank waits for the others before giving up (default 120)")
      ->check(CLI::Range(1e-3, 86400.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    (void)app.exit(e);
    return 2;
  }
  options.backend = backend == "cuda" ? sk::BackendKind::kCuda : sk::BackendKind::kCpu;
  nlohmann::json samples;
  return sk::run_calibration_sweep(options, std::cerr, samples);
}
