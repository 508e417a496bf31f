#include "kernels/sweep/run_sweep.h"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"
#include "kernels/common/errors.h"
#include "kernels/common/timing_loop.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/sweep/sweep_steps.h"
#ifdef SHARDSIM_HAVE_CUDA
#include "kernels/sweep/cuda_module.h"
#endif

namespace shardsim::kernels {
namespace {

// Index of this rank among the ranks on its node (its GPU on a multi-GPU node).
int local_rank(const Comm& world) {
  const std::vector<int> node = world.node_of_rank();
  const int mine = node[static_cast<std::size_t>(world.rank())];
  return static_cast<int>(std::count(node.begin(), node.begin() + world.rank(), mine));
}

}  // namespace

std::unique_ptr<Backend> make_backend(BackendKind kind, const Comm& world, std::string& error) {
  if (kind == BackendKind::kCpu) return cpu::make_cpu_backend(world);
#ifdef SHARDSIM_HAVE_CUDA
  // Every rank takes part in local_rank's collectives, whether or not its module loads: a rank
  // that skipped them would leave the others waiting in a different collective until the sync
  // timeout (found by review, 2026-11-29: a module missing on one node hung the job for 120 s).
  const int local = local_rank(world);
  std::string mine;
  const cuda::ModuleEntry* module = load_cuda_module(mine);
  if (module != nullptr) mine = module->select_device(local);
  if (!world.all(mine.empty())) {
    // Every rank reports one failing rank's reason, since only rank 0 prints (found by review,
    // 2026-11-29: a module missing on another node said only "another rank has no usable CUDA
    // device"): a rank whose module did not load first, as the setup error to fix before any
    // device question, then the lowest rank. Key: failing ranks rank by (module?, -rank).
    const double size = world.size();
    const double key = mine.empty() ? -1 : (module == nullptr ? size : 0) + size - 1 - world.rank();
    const double top = world.max(key);
    const int first = static_cast<int>(size - 1 - (top >= size ? top - size : top));
    const std::string why = world.broadcast(mine, first);
    error = first == world.rank() ? why : "rank " + std::to_string(first) + ": " + why;
    // How many others failed too: a module missing on every node of a job is one fix, on one
    // node another (found by review, 2026-11-29: only the first failing rank was named).
    if (const int failing = world.count(!mine.empty()); failing > 1)
      error += " (" + std::to_string(failing) + " of " + std::to_string(world.size()) +
               " ranks could not start the CUDA backend; this reason is rank " +
               std::to_string(first) + "'s)";
    return nullptr;
  }
  return module->make_backend(world);
#else
  (void)local_rank;
  error =
      "no CUDA device: this shardsim was built without CUDA (nvcc was not found when CMake "
      "configured it)";
  return nullptr;
#endif
}

std::optional<std::string> build_type_refusal(std::string_view build_type) {
  std::string lower(build_type);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "debug") return std::nullopt;
  return "refusing to calibrate from a Debug build: timings of unoptimised code would be fitted "
         "into the hardware profile; reconfigure with -DCMAKE_BUILD_TYPE=Release";
}

BuildInfo this_build() {
#if defined(__clang__)
  const std::string compiler = std::string("Clang ") + __clang_version__;
#elif defined(__GNUC__)
  const std::string compiler = std::string("GCC ") + __VERSION__;
#else
  const std::string compiler = "unknown";
#endif
  return {SHARDSIM_BUILD_TYPE, SHARDSIM_GIT_REVISION, SHARDSIM_VERSION_STRING, compiler};
}

int run_calibration_sweep(const SweepOptions& options, std::ostream& log,
                          nlohmann::json& samples_out) {
  const BuildInfo build = this_build();
  if (const auto refusal = build_type_refusal(build.build_type)) {
    log << "error: " << *refusal << "\n";
    return 2;
  }
  if (!(options.sync_timeout_s > 0)) {
    log << "error: sync timeout must be positive seconds, got " << options.sync_timeout_s << "\n";
    return 2;
  }
  std::unique_ptr<MpiScope> mpi;
  try {
    mpi = std::make_unique<MpiScope>();
  } catch (const CallError& e) {
    log << "error: " << e.what() << "\n";
    return 3;
  }
  SweepRun run(options, log, samples_out, mpi->owned());
  const int code = run.execute(build, [&](const Comm& world, std::string& error) {
    return make_backend(options.backend, world, error);
  });
  return code;
}

}  // namespace shardsim::kernels
