// CUDA kernels of the calibration sweep: dtype conversion, the memory-bound kernels of
// memory_ops.h (fp32) and an empty kernel. All ran on an H200 (see cuda_backend.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/common/hash.h"
#include "kernels/cuda/device_kernels.h"

namespace shardsim::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < 65535 * 8 ? b : 65535 * 8);
}

template <typename T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __half from_float<__half>(float v) {
  return __float2half(v);
}
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}

template <typename T>
__global__ void to_storage(const float* in, T* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = from_float<T>(in[i]);
  }
}

// out[i] = (T) (2 uniform01(i, seed) - 1): gemm_check.h make_timing_inputs's values, on the
// device (hash.h gives the same bits on both).
template <typename T>
__global__ void random_storage(T* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = from_float<T>(2.0f * uniform01(i, seed) - 1.0f);
  }
}

template <typename T>
__global__ void to_f32(const T* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = static_cast<float>(in[i]);
  }
}

// Block-wide sum of one value per thread (kThreads threads).
__device__ float block_sum(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

__device__ float block_max(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

// One block per row. beta == nullptr: rmsnorm, else layernorm.
__global__ void norm_rows(const float* x, const float* gamma, const float* beta, float* y, int cols,
                          float eps) {
  __shared__ float shared[kThreads];
  const float* in = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  float sq = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    sum += in[c];
    sq += in[c] * in[c];
  }
  sum = block_sum(sum, shared);
  sq = block_sum(sq, shared);
  const float mean = beta != nullptr ? sum / cols : 0.0f;
  const float var = beta != nullptr ? sq / cols - mean * mean : sq / cols;
  const float inv = rsqrtf(var + eps);
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    out[c] = (in[c] - mean) * inv * gamma[c] + (beta != nullptr ? beta[c] : 0.0f);
  }
}

__global__ void softmax_rows(const float* x, float* y, int cols) {
  __shared__ float shared[kThreads];
  const float* in = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  float mx = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) mx = fmaxf(mx, in[c]);
  mx = block_max(mx, shared);
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += __expf(in[c] - mx);
  const float inv = 1.0f / block_sum(sum, shared);
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = __expf(in[c] - mx) * inv;
}

__global__ void pointwise(MemOp op, const float* a, const float* b, float* y, std::size_t n,
                          MemOpConstants k) {
  const float scale = 1.0f / (1.0f - k.dropout_p);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float x = a[i];
    if (op == MemOp::kGelu) {
      y[i] = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
    } else if (op == MemOp::kSwiglu) {
      y[i] = x / (1.0f + __expf(-x)) * b[i];
    } else {
      y[i] = b[i] + (dropout_keep(i, k.dropout_seed, k.dropout_p) ? x * scale : 0.0f);
    }
  }
}

__global__ void adam(float* p, const float* g, float* m, float* v, std::size_t n,
                     MemOpConstants k) {
  const float c1 = 1.0f / (1.0f - k.beta1);
  const float c2 = 1.0f / (1.0f - k.beta2);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float mi = k.beta1 * m[i] + (1.0f - k.beta1) * g[i];
    const float vi = k.beta2 * v[i] + (1.0f - k.beta2) * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    p[i] -= k.lr * (mi * c1) / (sqrtf(vi * c2) + k.adam_eps);
  }
}

__global__ void empty(int* flag, int value) {
  if (flag != nullptr) *flag = value;
}

}  // namespace

std::size_t storage_bytes(Storage s) {
  switch (s) {
    case Storage::kF32:
      return 4;
    case Storage::kF16:
    case Storage::kBF16:
      return 2;
    case Storage::kE4M3:
      return 1;
  }
  return 4;
}

cudaError_t convert_from_float(const float* in, void* out, std::size_t n, Storage s,
                               cudaStream_t stream) {
  const int blocks = blocks_for(n);
  switch (s) {
    case Storage::kF32:
      to_storage<<<blocks, kThreads, 0, stream>>>(in, static_cast<float*>(out), n);
      break;
    case Storage::kF16:
      to_storage<<<blocks, kThreads, 0, stream>>>(in, static_cast<__half*>(out), n);
      break;
    case Storage::kBF16:
      to_storage<<<blocks, kThreads, 0, stream>>>(in, static_cast<__nv_bfloat16*>(out), n);
      break;
    case Storage::kE4M3:
      to_storage<<<blocks, kThreads, 0, stream>>>(in, static_cast<__nv_fp8_e4m3*>(out), n);
      break;
  }
  return cudaGetLastError();
}

cudaError_t fill_random(void* out, std::size_t n, Storage s, std::uint64_t seed,
                        cudaStream_t stream) {
  const int blocks = blocks_for(n);
  switch (s) {
    case Storage::kF32:
      random_storage<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(out), n, seed);
      break;
    case Storage::kF16:
      random_storage<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(out), n, seed);
      break;
    case Storage::kBF16:
      random_storage<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(out), n, seed);
      break;
    case Storage::kE4M3:
      random_storage<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(out), n, seed);
      break;
  }
  return cudaGetLastError();
}

cudaError_t convert_to_float(const void* in, float* out, std::size_t n, Storage s,
                             cudaStream_t stream) {
  const int blocks = blocks_for(n);
  switch (s) {
    case Storage::kF32:
      to_f32<<<blocks, kThreads, 0, stream>>>(static_cast<const float*>(in), out, n);
      break;
    case Storage::kF16:
      to_f32<<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(in), out, n);
      break;
    case Storage::kBF16:
      to_f32<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(in), out, n);
      break;
    case Storage::kE4M3:
      to_f32<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_fp8_e4m3*>(in), out, n);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_mem_op(MemOp op, float* const* t, float* y, MemoryShape shape,
                          const MemOpConstants& k, cudaStream_t stream) {
  const auto rows = static_cast<unsigned>(shape.rows);
  const int cols = static_cast<int>(shape.cols);
  const std::size_t n = static_cast<std::size_t>(shape.rows) * static_cast<std::size_t>(cols);
  switch (op) {
    case MemOp::kLayernorm:
      norm_rows<<<rows, kThreads, 0, stream>>>(t[0], t[1], t[2], y, cols, k.eps);
      break;
    case MemOp::kRmsnorm:
      norm_rows<<<rows, kThreads, 0, stream>>>(t[0], t[1], nullptr, y, cols, k.eps);
      break;
    case MemOp::kSoftmax:
      softmax_rows<<<rows, kThreads, 0, stream>>>(t[0], y, cols);
      break;
    case MemOp::kGelu:
      pointwise<<<blocks_for(n), kThreads, 0, stream>>>(op, t[0], nullptr, y, n, k);
      break;
    case MemOp::kSwiglu:
    case MemOp::kDropoutResidual:
      pointwise<<<blocks_for(n), kThreads, 0, stream>>>(op, t[0], t[1], y, n, k);
      break;
    case MemOp::kAdam:
      adam<<<blocks_for(n), kThreads, 0, stream>>>(t[0], t[1], t[2], t[3], n, k);
      break;
  }
  return cudaGetLastError();
}

cudaError_t launch_empty(int count, int* flag, int value, cudaStream_t stream) {
  for (int i = 0; i < count; ++i) empty<<<1, 1, 0, stream>>>(flag, value);
  return cudaGetLastError();
}

}  // namespace shardsim::kernels::cuda
