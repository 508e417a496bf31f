// The cuda backend: cuBLAS / cuBLASLt GEMMs, CUDA memory-bound kernels, pinned and device copies,
// empty-kernel launches and NCCL collectives, timed with CUDA events.
//
// STATUS: compiled only. No GPU was available where this was written, so none of this has run;
// treat the first run on a GPU as its test (every item is verified against a host reference).
// Plain C++ header: callable from code compiled without nvcc.
#pragma once

#include <memory>
#include <string>

#include "kernels/common/backend.h"
#include "kernels/common/comm.h"

namespace shardsim::kernels::cuda {

// Selects device (local_rank mod device count) for this process. Returns "" on success, or a
// message starting with "no CUDA device" (the CUDA error in parentheses) when none is usable.
[[nodiscard]] std::string select_device(int local_rank);

// REQUIRES: select_device() succeeded on every rank; `world` outlives the backend.
// Collective over `world` (creates one NCCL communicator per group size; the NCCL unique id is
// broadcast with MPI). Throws CallError naming the failing CUDA / cuBLAS / NCCL / MPI call.
[[nodiscard]] std::unique_ptr<Backend> make_cuda_backend(const Comm& world);

}  // namespace shardsim::kernels::cuda
