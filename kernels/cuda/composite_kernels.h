// Host launchers of the composite step's CUDA kernels (composite_kernels.cu), fp32, row-major,
// with the contracts of kernels/cpu/composite_ops.h (the same formulas). Each enqueues on
// `stream` and returns cudaGetLastError() for the caller to check. Ran on an H200 (see
// cuda_backend.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace shardsim::kernels::cuda::composite {

cudaError_t layernorm_forward(const float* x, const float* gamma, const float* beta, float* y,
                              float* mean, float* rstd, int rows, int cols, cudaStream_t stream);
// dx may be dy (in place); dgamma and dbeta are accumulated (+=) from per-chunk column sums (two
// kernels: the parameter gradients first, then dx).
cudaError_t layernorm_backward(const float* x, const float* gamma, const float* mean,
                               const float* rstd, const float* dy, float* dx, float* dgamma,
                               float* dbeta, int rows, int cols, cudaStream_t stream);
// On `count` stacked [s x s] matrices (one launch for every head of a sequence).
cudaError_t causal_softmax_forward(float* x, int count, int s, float scale, cudaStream_t stream);
cudaError_t causal_softmax_backward(const float* p, float* dp, int count, int s, float scale,
                                    cudaStream_t stream);
cudaError_t gelu_forward(const float* x, float* y, std::int64_t n, cudaStream_t stream);
// dx may be dy (in place).
cudaError_t gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n,
                          cudaStream_t stream);
cudaError_t add(const float* a, const float* b, float* y, std::int64_t n, cudaStream_t stream);
// `tokens` holds t = rows ids on the device; row i takes position i mod seq.
cudaError_t embedding_forward(const std::int32_t* tokens, int rows, const float* e, const float* p,
                              float* x, int seq, int h, cudaStream_t stream);
// Accumulates (+=, atomically) into de and dp.
cudaError_t embedding_backward(const std::int32_t* tokens, int rows, const float* dx, float* de,
                               float* dp, int seq, int h, cudaStream_t stream);
// Replaces each row of logits [t x v] by (softmax - onehot) / t and writes the row's loss,
// log sum_j exp(z_j) - z_target, to row_loss[i].
cudaError_t cross_entropy(float* logits, const std::int32_t* targets, float* row_loss, int t, int v,
                          cudaStream_t stream);
// Adam on n elements with bias corrections c1 = 1 / (1 - beta1^step), c2 = 1 / (1 - beta2^step)
// and the gradient scaled by grad_scale.
cudaError_t adam(float* p, const float* g, float* m, float* v, std::size_t n, float grad_scale,
                 float lr, float beta1, float beta2, float eps, float c1, float c2,
                 cudaStream_t stream);

}  // namespace shardsim::kernels::cuda::composite
