// The cuda backend: cuBLAS / cuBLASLt GEMMs, CUDA memory-bound kernels, pinned and device copies,
// empty-kernel launches and NCCL collectives, timed with CUDA events.
//
// STATUS: run on one H200, one rank (2026-11-27; scenarios/measurements/calibrate/
// h200-sxm-2026-11-27 and its -run2): every GEMM dtype (cuBLAS, cuBLASLt fp8; timed on random
// data in the second run), the memory-bound kernels, copies, launches and the composite step ran
// and verified. NCCL (nccl.cc) has run only as far as ncclCommInitRankConfig: two ranks on the
// one GPU, which NCCL refuses ("Duplicate GPU detected"), and the sweep exited 3 naming that
// call. No collective has been measured on a GPU.
// Plain C++ header: callable from code compiled without nvcc.
#pragma once

#include <csignal>
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

// The backend is built as a loadable module, libshardsim_cuda_backend.so beside the shardsim
// binary (kernels/cuda/module.cc), so that commands which never touch a GPU do not load cuBLAS:
// linked in, it made every process start in ~70 ms with ~230 MB resident (cuBLASLt's load), against
// ~5 ms and ~10 MB without (README, "Calibrating a cluster"). The module's one exported C function,
// kModuleSymbol, returns this table; kernels/sweep/cuda_module.h loads it.
// A module is used only by the build that made it: `abi` (raise it when this table changes
// shape) and then `build`, SHARDSIM_MODULE_BUILD_ID (kernels/CMakeLists.txt: the git revision
// when CMake configured, and the build folder), must both match the loading binary's. That tells
// apart modules of other build folders or configured revisions, which could disagree with the
// binary on Backend's or Comm's layout; within one folder the build rebuilds the module with the
// binaries that load it (add_dependencies), which the id cannot check.
inline constexpr int kModuleAbi = 2;
inline constexpr const char* kModuleSymbol = "shardsim_cuda_backend_module";
inline constexpr const char* kModuleFile = "libshardsim_cuda_backend.so";
struct ModuleEntry {
  int abi;
  const char* build;
  std::string (*select_device)(int local_rank);
  std::unique_ptr<Backend> (*make_backend)(const Comm& world);
  void (*share_termination_signal)(volatile std::sig_atomic_t* slot);  // comm.h
  int (*termination_signal)();  // the module's comm.h copy: what its waits see
};

}  // namespace shardsim::kernels::cuda
