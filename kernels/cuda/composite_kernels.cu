// The composite step's CUDA kernels (contracts in composite_kernels.h). One block per row for the
// row reductions (LayerNorm, softmax, cross-entropy), grid-stride loops for elementwise work.
// Ran on an H200 (see cuda_backend.h).
#include "kernels/cuda/composite_kernels.h"

namespace shardsim::kernels::cuda::composite {
namespace {

constexpr int kThreads = 256;  // threads per block (a multiple of 32)
constexpr float kLnEps = 1e-5f;
constexpr float kSqrt2OverPi = 0.7978845608f;
constexpr float kGeluCubic = 0.044715f;

// Sum (or max) of one value per thread over the block; every thread gets the result.
// REQUIRES: blockDim.x == kThreads; called by every thread of the block.
__device__ float block_sum(float v) {
  __shared__ float part[kThreads / 32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int w = 0; w < kThreads / 32; ++w) s += part[w];
    total = s;
  }
  __syncthreads();
  const float out = total;
  __syncthreads();  // part and total are reused by the next call
  return out;
}

__device__ float block_max(float v) {
  __shared__ float part[kThreads / 32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = part[0];
    for (int w = 1; w < kThreads / 32; ++w) s = fmaxf(s, part[w]);
    total = s;
  }
  __syncthreads();
  const float out = total;
  __syncthreads();
  return out;
}

__global__ void layernorm_forward_kernel(const float* x, const float* gamma, const float* beta,
                                         float* y, float* mean, float* rstd, int cols) {
  const long long o = static_cast<long long>(blockIdx.x) * cols;
  float s = 0, sq = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float v = x[o + c];
    s += v;
    sq += v * v;
  }
  s = block_sum(s);
  sq = block_sum(sq);
  const float mu = s / cols;
  const float inv = rsqrtf(fmaxf(0.0f, sq / cols - mu * mu) + kLnEps);
  for (int c = threadIdx.x; c < cols; c += kThreads)
    y[o + c] = (x[o + c] - mu) * inv * gamma[c] + beta[c];
  if (threadIdx.x == 0) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = inv;
  }
}

// dgamma[c] += sum_r dy[r][c] xhat[r][c], dbeta[c] += sum_r dy[r][c]: one thread per column of
// a chunk of kLnRowsPerBlock rows (coalesced reads along the row), one atomic per chunk and
// column (rows / 64 per address rather than one per row). Runs before the dx kernel, which may
// overwrite dy.
constexpr int kLnRowsPerBlock = 64;

__global__ void layernorm_param_grads_kernel(const float* x, const float* mean, const float* rstd,
                                             const float* dy, float* dgamma, float* dbeta, int rows,
                                             int cols) {
  const int c = blockIdx.x * kThreads + threadIdx.x;
  if (c >= cols) return;
  const int first = blockIdx.y * kLnRowsPerBlock;
  const int last = min(rows, first + kLnRowsPerBlock);
  float dg = 0, db = 0;
  for (int r = first; r < last; ++r) {
    const long long i = static_cast<long long>(r) * cols + c;
    dg += dy[i] * (x[i] - mean[r]) * rstd[r];
    db += dy[i];
  }
  atomicAdd(&dgamma[c], dg);
  atomicAdd(&dbeta[c], db);
}

__global__ void layernorm_backward_kernel(const float* x, const float* gamma, const float* mean,
                                          const float* rstd, const float* dy, float* dx, int cols) {
  const long long o = static_cast<long long>(blockIdx.x) * cols;
  const float mu = mean[blockIdx.x], inv = rstd[blockIdx.x];
  float g_sum = 0, gx_sum = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float xhat = (x[o + c] - mu) * inv;
    const float g = dy[o + c] * gamma[c];
    g_sum += g;
    gx_sum += g * xhat;
  }
  const float g_mean = block_sum(g_sum) / cols, gx_mean = block_sum(gx_sum) / cols;
  // Each element is read (dy) and then written (dx) by the same thread: in place is safe.
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    const float xhat = (x[o + c] - mu) * inv;
    dx[o + c] = inv * (dy[o + c] * gamma[c] - g_mean - xhat * gx_mean);
  }
}

// One block per row of `count` stacked [s x s] matrices: global row blockIdx.x is row
// blockIdx.x % s (its causal limit) of matrix blockIdx.x / s.
__global__ void causal_softmax_forward_kernel(float* x, int s, float scale) {
  const int i = blockIdx.x % s;
  float* row = x + static_cast<long long>(blockIdx.x) * s;
  float mx = -3.402823466e38f;
  for (int j = threadIdx.x; j <= i; j += kThreads) mx = fmaxf(mx, row[j] * scale);
  mx = block_max(mx);
  float sum = 0;
  for (int j = threadIdx.x; j <= i; j += kThreads) {
    const float e = expf(row[j] * scale - mx);
    row[j] = e;
    sum += e;
  }
  const float inv = 1.0f / block_sum(sum);
  for (int j = threadIdx.x; j < s; j += kThreads) row[j] = j <= i ? row[j] * inv : 0.0f;
}

__global__ void causal_softmax_backward_kernel(const float* p, float* dp, int s, float scale) {
  const int i = blockIdx.x % s;
  const float* pr = p + static_cast<long long>(blockIdx.x) * s;
  float* dr = dp + static_cast<long long>(blockIdx.x) * s;
  float dot = 0;
  for (int j = threadIdx.x; j <= i; j += kThreads) dot += pr[j] * dr[j];
  dot = block_sum(dot);
  for (int j = threadIdx.x; j < s; j += kThreads)
    dr[j] = j <= i ? scale * pr[j] * (dr[j] - dot) : 0.0f;
}

__device__ float gelu_tanh(float v) {  // tanh u = 2 / (1 + exp(-2u)) - 1
  return 2.0f / (1.0f + expf(-2.0f * kSqrt2OverPi * (v + kGeluCubic * v * v * v))) - 1.0f;
}

__global__ void gelu_forward_kernel(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = 0.5f * x[i] * (1.0f + gelu_tanh(x[i]));
}

__global__ void gelu_backward_kernel(const float* x, const float* dy, float* dx, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float v = x[i], th = gelu_tanh(v);
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du);
  }
}

__global__ void add_kernel(const float* a, const float* b, float* y, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = a[i] + b[i];
}

__global__ void embedding_forward_kernel(const int* tokens, const float* e, const float* p,
                                         float* x, int seq, int h) {
  const int i = blockIdx.x;
  const float* er = e + static_cast<long long>(tokens[i]) * h;
  const float* pr = p + static_cast<long long>(i % seq) * h;
  float* xr = x + static_cast<long long>(i) * h;
  for (int c = threadIdx.x; c < h; c += kThreads) xr[c] = er[c] + pr[c];
}

__global__ void embedding_backward_kernel(const int* tokens, const float* dx, float* de, float* dp,
                                          int seq, int h) {
  const int i = blockIdx.x;
  float* er = de + static_cast<long long>(tokens[i]) * h;
  float* pr = dp + static_cast<long long>(i % seq) * h;
  const float* dr = dx + static_cast<long long>(i) * h;
  for (int c = threadIdx.x; c < h; c += kThreads) {
    atomicAdd(&er[c], dr[c]);
    atomicAdd(&pr[c], dr[c]);
  }
}

__global__ void cross_entropy_kernel(float* logits, const int* targets, float* row_loss, int t,
                                     int v) {
  const int i = blockIdx.x;
  float* row = logits + static_cast<long long>(i) * v;
  float mx = -3.402823466e38f;
  for (int j = threadIdx.x; j < v; j += kThreads) mx = fmaxf(mx, row[j]);
  mx = block_max(mx);
  const int y = targets[i];
  const float target = row[y] - mx;  // read before the row is overwritten
  __syncthreads();
  float sum = 0;
  for (int j = threadIdx.x; j < v; j += kThreads) {
    const float e = expf(row[j] - mx);
    row[j] = e;
    sum += e;
  }
  sum = block_sum(sum);
  const float scale = 1.0f / (static_cast<float>(t) * sum);
  for (int j = threadIdx.x; j < v; j += kThreads) row[j] *= scale;
  __syncthreads();
  if (threadIdx.x == 0) {
    row[y] -= 1.0f / static_cast<float>(t);
    row_loss[i] = logf(sum) - target;
  }
}

__global__ void adam_kernel(float* p, const float* g, float* m, float* v, long long n,
                            float grad_scale, float lr, float beta1, float beta2, float eps,
                            float c1, float c2) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float gi = g[i] * grad_scale;
    m[i] = beta1 * m[i] + (1.0f - beta1) * gi;
    v[i] = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    p[i] -= lr * (m[i] * c1) / (sqrtf(v[i] * c2) + eps);
  }
}

// Blocks for a grid-stride loop over n elements (at most 65535 x 4 waves' worth).
unsigned int blocks_for(long long n) {
  const long long b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned int>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

}  // namespace

cudaError_t layernorm_forward(const float* x, const float* gamma, const float* beta, float* y,
                              float* mean, float* rstd, int rows, int cols, cudaStream_t stream) {
  layernorm_forward_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols);
  return cudaGetLastError();
}

cudaError_t layernorm_backward(const float* x, const float* gamma, const float* mean,
                               const float* rstd, const float* dy, float* dx, float* dgamma,
                               float* dbeta, int rows, int cols, cudaStream_t stream) {
  const dim3 grid((cols + kThreads - 1) / kThreads, (rows + kLnRowsPerBlock - 1) / kLnRowsPerBlock);
  layernorm_param_grads_kernel<<<grid, kThreads, 0, stream>>>(x, mean, rstd, dy, dgamma, dbeta,
                                                              rows, cols);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  layernorm_backward_kernel<<<rows, kThreads, 0, stream>>>(x, gamma, mean, rstd, dy, dx, cols);
  return cudaGetLastError();
}

cudaError_t causal_softmax_forward(float* x, int count, int s, float scale, cudaStream_t stream) {
  causal_softmax_forward_kernel<<<count * s, kThreads, 0, stream>>>(x, s, scale);
  return cudaGetLastError();
}

cudaError_t causal_softmax_backward(const float* p, float* dp, int count, int s, float scale,
                                    cudaStream_t stream) {
  causal_softmax_backward_kernel<<<count * s, kThreads, 0, stream>>>(p, dp, s, scale);
  return cudaGetLastError();
}

cudaError_t gelu_forward(const float* x, float* y, std::int64_t n, cudaStream_t stream) {
  gelu_forward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, y, n);
  return cudaGetLastError();
}

cudaError_t gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n,
                          cudaStream_t stream) {
  gelu_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, dy, dx, n);
  return cudaGetLastError();
}

cudaError_t add(const float* a, const float* b, float* y, std::int64_t n, cudaStream_t stream) {
  add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, y, n);
  return cudaGetLastError();
}

cudaError_t embedding_forward(const std::int32_t* tokens, int rows, const float* e, const float* p,
                              float* x, int seq, int h, cudaStream_t stream) {
  embedding_forward_kernel<<<rows, kThreads, 0, stream>>>(tokens, e, p, x, seq, h);
  return cudaGetLastError();
}

cudaError_t embedding_backward(const std::int32_t* tokens, int rows, const float* dx, float* de,
                               float* dp, int seq, int h, cudaStream_t stream) {
  embedding_backward_kernel<<<rows, kThreads, 0, stream>>>(tokens, dx, de, dp, seq, h);
  return cudaGetLastError();
}

cudaError_t cross_entropy(float* logits, const std::int32_t* targets, float* row_loss, int t, int v,
                          cudaStream_t stream) {
  cross_entropy_kernel<<<t, kThreads, 0, stream>>>(logits, targets, row_loss, t, v);
  return cudaGetLastError();
}

cudaError_t adam(float* p, const float* g, float* m, float* v, std::size_t n, float grad_scale,
                 float lr, float beta1, float beta2, float eps, float c1, float c2,
                 cudaStream_t stream) {
  const long long count = static_cast<long long>(n);
  adam_kernel<<<blocks_for(count), kThreads, 0, stream>>>(p, g, m, v, count, grad_scale, lr, beta1,
                                                          beta2, eps, c1, c2);
  return cudaGetLastError();
}

}  // namespace shardsim::kernels::cuda::composite
