// shardsim calibrate: runs the kernel sweep (kernels/sweep/run_sweep.h), fits a profile from its
// samples (calibrate/profile_fit.h) and writes it. Under mpirun/srun every rank measures; the
// first rank writes the samples and the profile.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "calibrate/profile_fit.h"
#include "calibrate/samples_network.h"
#include "kernels/common/comm.h"
#include "kernels/sweep/run_sweep.h"
#include "reports/output.h"
#include "simulator/cli/calibrate_launch.h"
#include "simulator/cli/fit_command.h"
#include "simulator/cli/fit_network.h"
#include "simulator/cli/progress.h"
#include "simulator/core/diagnostics.h"
#include "simulator/core/strings.h"

namespace shardsim::cli {
namespace {

// PROFILE.json -> PROFILE.samples.json (PROFILE -> PROFILE.samples.json without an extension).
std::string samples_path(const std::string& profile) {
  std::filesystem::path p(profile);
  if (p.extension() == ".json") p.replace_extension();
  return p.string() + ".samples.json";
}

// This process's rank as the launcher states it (Open MPI, PMI/PMIx launchers, Slurm); 0 for a
// plain launch. MPI itself is finalised by the sweep before the fit runs.
int launcher_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

// A stop request (the launcher's SIGTERM, ^C, a hang-up) after the sweep, while the profile is
// fitted and written. The sweep's own handlers (kernels/sweep/rank_signals.h) cover the
// measuring; once it returns every item is measured and the samples are written, so the request
// is recorded and the profile finished rather than the process ended in the middle with no word
// and a temporary file (found by review, 2026-11-27). A second request ends it as by default.
volatile std::sig_atomic_t g_stop_after_sweep = 0;

extern "C" void on_stop_after_sweep(int signal) {
  if (g_stop_after_sweep != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_stop_after_sweep = signal;
}

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};

// Installs on_stop_after_sweep for its lifetime, from the sweep's return on; restores the
// previous handlers on destruction.
class StopAfterSweep {
 public:
  StopAfterSweep() {
    g_stop_after_sweep = 0;
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
      struct sigaction act = {};
      act.sa_handler = on_stop_after_sweep;
      sigemptyset(&act.sa_mask);
      sigaction(kStopSignals[i], &act, &previous_[i]);
    }
  }
  ~StopAfterSweep() {
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
      sigaction(kStopSignals[i], &previous_[i], nullptr);
  }
  StopAfterSweep(const StopAfterSweep&) = delete;
  StopAfterSweep& operator=(const StopAfterSweep&) = delete;

 private:
  struct sigaction previous_[std::size(kStopSignals)] = {};
};

}  // namespace

int run_calibrate(const CalibrateArgs& a) {
  if (a.output.empty()) throw InputError("-o", "is required (the profile JSON to write)");
  if (a.output == "-")
    throw InputError("-o",
                     "must be a file: calibrate writes the profile and, beside it, "
                     "PROFILE.samples.json");
  // The samples file beside -o is an output as much as -o (found by review, 2026-11-28: it
  // skipped these checks, so `--base z.samples.json -o z.json` overwrote the base, and
  // `-o /dev/full` left a 63 KB /dev/full.samples.json). A device or FIFO cannot have a file
  // beside it, so -o is a regular file (or a new one), symbolic links followed.
  std::error_code ec;
  if (const auto st = std::filesystem::status(a.output, ec);
      std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw InputError("-o", fmt::format("\"{}\" is not a regular file: calibrate writes the "
                                       "profile there and PROFILE.samples.json beside it",
                                       a.output));
  // The samples path goes into the profile's provenance, whose strings refuse control
  // characters: refused now, not after measuring as an internal failure (found by review,
  // 2026-11-29).
  if (!terminal_safe_already(a.output))
    throw InputError("-o", fmt::format("\"{}\" contains a control character: the samples file "
                                       "beside it is named in the profile's provenance",
                                       terminal_safe(a.output)));
  // And so is the sweep's in-progress copy beside it (found by review, 2026-11-28: a directory
  // there failed the run at its first item, exit 3 after measuring, a temporary file left).
  check_outputs({{"-o", a.output},
                 {"-o's samples file", samples_path(a.output)},
                 {"-o's in-progress samples file", samples_path(a.output) + ".partial"}},
                {{"--base", a.base}});
  GpuProfile base = a.base.empty() ? GpuProfile{} : load_profile(a.base, "--base");
  // The line rates that bound the measured collectives: resolved before the sweep, so a base
  // naming an unknown network preset is refused before anything is measured.
  const NetworkConfig lines = a.base.empty() ? NetworkConfig{} : base_network(base, "");
  // A CPU sweep onto a GPU profile (or the reverse) would mix two devices in one profile: the
  // CPU's peaks beside the GPU's attention rates and network (found by review, 2026-11-27).
  if (!a.base.empty() && calibrate::is_cpu_profile(base) != (a.backend == "cpu"))
    throw InputError("--base",
                     fmt::format("'{}' describes {}, but --backend {} measures {}; "
                                 "calibrate onto a profile of the same backend, or "
                                 "without --base",
                                 a.base, calibrate::is_cpu_profile(base) ? "a CPU" : "a GPU",
                                 a.backend, a.backend == "cpu" ? "the CPU" : "a GPU"));
  kernels::SweepOptions options;
  options.backend = a.backend == "cuda" ? kernels::BackendKind::kCuda : kernels::BackendKind::kCpu;
  options.quick = a.quick;
  options.samples_path = samples_path(a.output);
  options.item_lines = a.verbose || progress_wanted();
  if (!a.launcher.empty()) return run_launched_calibration(a, options.samples_path);
  nlohmann::json samples;
  const int rc = kernels::run_calibration_sweep(options, std::cerr, samples);
  // Only now: installed before the sweep, it took a stop request sent while MPI started (before
  // the sweep's own handlers) and the whole sweep ran on (found by review, 2026-11-27).
  const StopAfterSweep stop;
  // Test hook: a stop request right after the sweep (see "Calibrating a cluster").
  if (const char* hook = std::getenv("SHARDSIM_TEST_STOP_AFTER_SWEEP"); hook && *hook == '1')
    std::raise(SIGTERM);
  if (rc != kExitOk) {
    if (rc == kExitCheckFailed)
      std::cerr << "error: some kernels failed verification (see " << options.samples_path
                << "); no profile written\n";
    return rc;
  }
  if (launcher_rank() != 0) return kExitOk;
  const double memory = calibrate::samples_memory_bytes(samples);
  // What the base refuses of the measurements (a collective above its network's line rate) is
  // bad input, as `fit --samples --base` says it: exit 2 naming --base. Measurements that cannot
  // be fitted (a stalled row) are a failed run: exit 3 saying so. Both keep the samples for a
  // refit (found by review, 2026-11-29: either was "internal failure", exit 3).
  GpuProfile g;
  try {
    // A row its own fit does not represent is a stall of this machine (found 2026-11-29: 1 of 12
    // quick runs on a loaded 2-core VM had a 256 KiB reduce-scatter at 8 ms): warned about, and
    // the profile written, rather than failing the run.
    calibrate::SamplesProfile fitted = calibrate::profile_from_samples(
        {{&samples, options.samples_path, memory}}, a.base.empty() ? nullptr : &base, &lines,
        nullptr, "", true);
    for (const std::string& w : fitted.warnings)
      std::cerr << "warning: " << w << " (fitted anyway: rerun calibrate for a clean sweep)\n";
    g = std::move(fitted.profile);
  } catch (const calibrate::BaseNetworkError& e) {
    throw InputError("--base", fmt::format("{}; no profile written (the samples are kept: fit "
                                           "them with `shardsim fit --samples {}` and another "
                                           "--base)",
                                           e.what(), options.samples_path));
  } catch (const std::invalid_argument& e) {
    std::cerr << fmt::format(
        "error: the measurements cannot be fitted: {}; no profile written (the samples are kept "
        "in {}: rerun calibrate, or fit them with `shardsim fit --samples`)\n",
        e.what(), options.samples_path);
    return kExitRuntime;
  }
  write_profile(g, a.output);
  std::cerr << fmt::format("calibrate: wrote {} (samples: {})\n", a.output, options.samples_path);
  if (const int signal = g_stop_after_sweep; signal != 0)
    std::cerr << fmt::format(
        "calibrate: {} arrived after every item was measured; the profile was "
        "finished first, so both files are complete\n",
        kernels::signal_name(signal));
  if (!g.network && g.default_network.empty())
    std::cerr << "warning: no collective was measured (one rank), so the profile has no network; "
                 "run under mpirun -np N (N >= 2) to measure the collectives\n";
  return kExitOk;
}

}  // namespace shardsim::cli
