// The cuda backend: cuBLAS / cuBLASLt GEMMs, CUDA memory-bound kernels, pinned and device copies,
// empty-kernel launches and NCCL collectives, timed with CUDA events.
//
// STATUS: run on one H200, one rank (2026-11-27; scenarios/measurements/calibrate/
// h200-sxm-2026-11-27): every GEMM dtype (cuBLAS, cuBLASLt fp8), the memory-bound kernels,
// copies, launches and the composite step ran and verified. NCCL (nccl.cc) has compiled but not
// run: one GPU makes no group of two. GEMMs timed on random data (gemm.cc verify) came after
// that run.
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
