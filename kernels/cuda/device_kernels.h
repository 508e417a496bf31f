// Host launchers of the CUDA kernels in device_kernels.cu (plain C++ signatures). Each enqueues on
// `stream` and returns cudaGetLastError() for the caller to check.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/common/memory_ops.h"

namespace shardsim::kernels::cuda {

// Element storage of GEMM operands.
enum class Storage { kF32, kF16, kBF16, kE4M3 };
[[nodiscard]] std::size_t storage_bytes(Storage s);

// out[i] = (Storage) in[i]; and back to float.
cudaError_t convert_from_float(const float* in, void* out, std::size_t n, Storage s,
                               cudaStream_t stream);
cudaError_t convert_to_float(const void* in, float* out, std::size_t n, Storage s,
                             cudaStream_t stream);
// out[i] = (Storage) (2 uniform01(i, seed) - 1) (hash.h): the values of gemm_check.h
// make_timing_inputs, generated on the device (ran on the H200, second run).
cudaError_t fill_random(void* out, std::size_t n, Storage s, std::uint64_t seed,
                        cudaStream_t stream);

// The memory-bound kernels of memory_ops.h. `t` holds the device tensors in the order of
// MemOpData::inputs; `y` the output (unused by adam, which updates t[0], t[2], t[3] in place).
cudaError_t launch_mem_op(MemOp op, float* const* t, float* y, MemoryShape shape,
                          const MemOpConstants& k, cudaStream_t stream);

// `count` launches of a kernel that only stores `value` to *flag (one thread).
cudaError_t launch_empty(int count, int* flag, int value, cudaStream_t stream);

}  // namespace shardsim::kernels::cuda
