// shardsim validate (validate_command.h): argument checks, profile loading, MPI set-up, report.
#include "simulator/cli/validate_command.h"

#include <fmt/format.h>
#include <mpi.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/profile_fit.h"
#include "calibrate/validate.h"
#include "kernels/common/comm.h"
#include "kernels/common/errors.h"
#include "kernels/sweep/rank_signals.h"
#include "kernels/sweep/run_sweep.h"
#include "reports/build_info.h"
#include "reports/output.h"
#include "simulator/core/diagnostics.h"
#include "simulator/hardware/hardware.h"
#include "simulator/scenario/load.h"
#include "simulator/scenario/presets.h"

namespace shardsim::cli {
namespace {

constexpr int kValidationSchemaVersion = 1;
constexpr double kSyncTimeoutS = 120;  // a lost rank turns into an error after this long

// The profile named by --profile, every problem prefixed with the flag and the file.
GpuProfile load_profile(const std::string& path) {
  if (path.empty()) throw InputError("--profile", "is required (a hardware profile JSON)");
  nlohmann::json j;
  try {
    j = read_json_file(path);
  } catch (const InputError& e) {
    throw InputError("--profile " + path, e.items().front().message);
  }
  Diagnostics d;
  GpuProfile g;
  read_gpu_profile(j, "", d, g);
  // No network section: the profile's node.network preset prices the collectives, as the
  // scenario loader does for the composite step.
  if (!g.network && !g.default_network.empty())
    if (const auto preset = find_preset(PresetKind::kCluster, g.default_network)) {
      NetworkConfig net;
      read_network_config(*preset, "/node/network", d, net);
      g.network = net;
    }
  if (!d.empty()) {
    std::vector<Diagnostic> items;
    for (const auto& e : d.items())
      items.push_back({"--profile " + path + ": " + e.path, e.message});
    throw InputError(items);
  }
  return g;
}

std::string report(const calibrate::ValidationResult& r, const GpuProfile& g, bool json) {
  if (!json) return calibrate::validation_text(r, g);
  nlohmann::json j = {{"schema_version", kValidationSchemaVersion},
                      {"tool_version", tool_version()},
                      {"build", build_json()}};
  j.update(calibrate::validation_json(r, g));
  return j.dump(2) + "\n";
}

// "rank 1 lost during <phase>: " when a rank on this host is gone, else "<phase>: " (a lost rank
// on another host cannot be seen from here; the launcher names it).
std::string failure_context(const std::vector<kernels::Peer>& peers, const std::string& phase,
                            const std::string& what) {
  const std::vector<int> lost = kernels::lost_ranks(peers);
  if (lost.empty()) return phase.empty() || what.rfind(phase, 0) == 0 ? "" : phase + ": ";
  std::string ranks;
  for (const int r : lost) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return (lost.size() > 1 ? "ranks " : "rank ") + ranks + " lost during " +
         (phase.empty() ? "validate" : phase) + ": ";
}

// Measures and predicts on every rank; rank 0 writes the report. Returns the exit code.
// A lost rank (kernels/sweep/rank_signals.h): the launcher sends the survivors SIGTERM; a survivor
// in a deadline-bounded wait throws and reports the lost rank and the phase below, one blocked in
// a blocking collective (the composite's gradient all-reduce) reports the same from its signal
// handler on stderr. No report is written (rank 0 writes it only at the end).
int measure_and_report(const ValidateArgs& a, const GpuProfile& g) {
  kernels::MpiScope mpi;
  const kernels::Comm world = kernels::Comm::world(kSyncTimeoutS);
  kernels::RankSignals signals(world.rank(), "");  // "": a stop record goes to stderr
  std::vector<kernels::Peer> peers;
  std::string phase;
  try {
    peers = kernels::gather_peers(world);
    kernels::RankSignals::set_peers(peers, world.rank());
    phase = "setup";  // the profile check and the backend, before the first item
    kernels::RankSignals::set_item(phase);
    const auto kind =
        a.backend == "cuda" ? kernels::BackendKind::kCuda : kernels::BackendKind::kCpu;
    // Collectives across ranks need a network to be predicted (found by review, 2026-11-27: a
    // profile from a one-rank calibrate has none, and its all-reduces were predicted as inf).
    if (world.size() > 1 && !g.network)
      throw InputError("--profile " + a.profile,
                       "has no network section and no node.network preset, so the all-reduces "
                       "across the " +
                           std::to_string(world.size()) +
                           " ranks cannot be predicted: calibrate with as many ranks (mpirun -np " +
                           std::to_string(world.size()) + " shardsim calibrate ...) or add one");
    calibrate::check_composite_scenario(a.quick, kind, g, world);  // before minutes of measuring
    std::string no_backend;
    const auto backend = kernels::make_backend(kind, world, no_backend);
    if (!backend) {  // every rank agrees (make_backend): no CUDA device or module, or no CUDA build
      if (world.rank() == 0)
        std::cerr << "error: validate --backend " << a.backend << ": " << no_backend << "\n";
      return kExitRuntime;
    }
    const auto on_phase = [&](const std::string& name, std::size_t done) {
      phase = name;
      kernels::RankSignals::set_item(name);
      kernels::test_hook_maybe_die(done, world);
      if (name == "composite step") kernels::test_hook_maybe_die_at("composite", world);
    };
    const calibrate::ValidationResult r =
        calibrate::run_validation(a.quick, g, *backend, world, on_phase);
    // A stop signal after the last cross-rank wait: the launcher is ending the job, so no report.
    if (const int signal = kernels::termination_signal(); signal != 0)
      throw std::runtime_error(std::string("interrupted by ") + kernels::signal_name(signal) +
                               " after the measurements; no report written");
    kernels::RankSignals::stop_recording();  // measured: a late signal has nothing to report
    phase = "writing the report";
    if (world.rank() == 0) write_output(a.output, report(r, g, a.json));
    return r.step.verified ? kExitOk : kExitCheckFailed;
  } catch (const InputError&) {
    throw;  // a profile the composite scenario cannot use: bad input, exit 2
  } catch (const std::exception& e) {
    // A failed MPI / BLAS / CUDA / NCCL call, a lost rank, or a kernel that failed verification:
    // say which, and end every rank rather than leave one waiting in MPI_Finalize.
    kernels::RankSignals::stop_recording();  // this message is the record; none from MPI_Abort
    std::cerr << "error: rank " << world.rank() << ": " << failure_context(peers, phase, e.what())
              << e.what() << "\n";
    if (world.size() > 1) MPI_Abort(MPI_COMM_WORLD, kExitRuntime);
    return kExitRuntime;
  }
}

}  // namespace

int run_validate(const ValidateArgs& a) {
  check_outputs({{"-o", a.output}}, {{"--profile", a.profile}});
  if (const auto refusal = kernels::build_type_refusal(kernels::this_build().build_type)) {
    std::cerr << "error: " << *refusal << "\n";
    return kExitBadInput;
  }
  const GpuProfile g = load_profile(a.profile);
  // The CPU's measurements predicted from a GPU's profile (or the reverse) compare two devices:
  // refused as calibrate --base refuses it (found by review, 2026-11-27: a 99 % held-out error,
  // exit 0).
  if (calibrate::is_cpu_profile(g) != (a.backend == "cpu"))
    throw InputError("--profile",
                     fmt::format("'{}' describes {}, but --backend {} measures {}; validate a "
                                 "profile of the device the backend runs on",
                                 a.profile, calibrate::is_cpu_profile(g) ? "a CPU" : "a GPU",
                                 a.backend, a.backend == "cpu" ? "the CPU" : "a GPU"));
  try {
    return measure_and_report(a, g);
  } catch (const kernels::CallError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitRuntime;
  }
}

}  // namespace shardsim::cli
