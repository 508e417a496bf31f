// shardsim-calibrate-sweep: the calibration sweep without the fitting, for tests and for looking
// at raw samples. `shardsim calibrate` calls the same run_calibration_sweep().
//
// Usage: [mpirun -np N] shardsim-calibrate-sweep --backend cpu|cuda [--quick] -o SAMPLES.json
//                                               [--filter SUBSTRING] [--sync-timeout SECONDS]
// Exit codes: see run_calibration_sweep (0 ok, 1 verification failed, 2 bad input, 3 runtime).
#include <cstdio>
#include <iostream>
#include <string_view>

#include <CLI/CLI.hpp>

#include "kernels/sweep/run_sweep.h"

namespace {

// The index of the first byte of `arg` a terminal acts on (C0 other than tab, DEL, or a C1 control
// in UTF-8: 0xC2 0x80-0x9F), or npos. CLI11 echoes a bad value and the sweep echoes its paths on
// stderr, so an escape sequence in an argument reached the terminal raw; `shardsim` spells such
// bytes out (it links simulator/core, which this binary does not), and refuses them in `-o`.
std::size_t control_at(std::string_view arg) {
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const auto c = static_cast<unsigned char>(arg[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return i;
    if (c == 0xc2 && i + 1 < arg.size() && static_cast<unsigned char>(arg[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(arg[i + 1]) <= 0x9f)
      return i;
  }
  return std::string_view::npos;
}

}  // namespace

int main(int argc, char** argv) {
  namespace sk = shardsim::kernels;
  // Refused before parsing, naming the argument by position and the byte, not echoing it.
  for (int a = 1; a < argc; ++a)
    if (const std::size_t at = control_at(argv[a]); at != std::string_view::npos) {
      // A C1 control is two bytes in UTF-8 (0xc2 0x80-0x9f): both are named.
      const auto byte = [&](std::size_t i) {
        return static_cast<unsigned>(static_cast<unsigned char>(argv[a][i]));
      };
      if (byte(at) == 0xc2)
        std::fprintf(stderr,
                     "argument %d holds the C1 control character 0xc2 0x%02x at byte %zu: give "
                     "names and paths without control characters\n",
                     a, byte(at + 1), at);
      else
        std::fprintf(stderr,
                     "argument %d holds the control character 0x%02x at byte %zu: give names and "
                     "paths without control characters\n",
                     a, byte(at), at);
      return 2;
    }
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
