// The cpu backend: OpenBLAS cblas_sgemm, C++ memory-bound kernels, memcpy, empty-task dispatch
// and MPI collectives, all timed with std::chrono::steady_clock.
#pragma once

#include <memory>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"

namespace shardsim::kernels::cpu {

// Sets OpenBLAS to (logical CPUs / ranks on this node) threads, at least 1, so ranks sharing a
// node do not oversubscribe it. Collective over `world` (builds the collective groups).
// REQUIRES: `world` outlives the backend.
[[nodiscard]] std::unique_ptr<Backend> make_cpu_backend(const Comm& world);

}  // namespace shardsim::kernels::cpu
