// Checks for CUDA runtime, cuBLAS and NCCL status codes: each throws CallError naming the call.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/common/errors.h"

#ifdef SHARDSIM_HAVE_NCCL
#include <nccl.h>
#endif

namespace shardsim::kernels::cuda {

inline void check_cuda(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    throw CallError(call, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e));
  }
}

inline void check_cublas(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw CallError(call, std::string(cublasGetStatusName(s)) + ": " + cublasGetStatusString(s));
  }
}

#ifdef SHARDSIM_HAVE_NCCL
inline void check_nccl(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw CallError(call, ncclGetErrorString(r));
}
#endif

// One device allocation, freed on scope exit.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    check_cuda(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), "cudaMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }
  [[nodiscard]] void* get() const { return ptr_; }
  [[nodiscard]] float* f32() const { return static_cast<float*>(ptr_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_;
};

// Shared by every descriptor of the backend (owned by it).
struct DeviceContext {
  int device = 0;
  int cc_major = 0;
  int cc_minor = 0;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;  // cuBLAS / cuBLASLt workspace
  std::size_t workspace_bytes = 0;
  double timeout_s = 120.0;  // deadline of every host wait for device work (the sync timeout)
};

// Copies a device float buffer to the host (synchronous on ctx.stream).
std::vector<float> download(const DeviceContext& ctx, const float* device, std::size_t n);
void upload(const DeviceContext& ctx, float* device, const std::vector<float>& host);

}  // namespace shardsim::kernels::cuda
