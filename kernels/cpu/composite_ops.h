// The kernels of the composite training step (composite.h), fp32, row-major, plain C++ and
// OpenBLAS cblas_sgemm. Each memory-bound kernel is one of the ops simulator/model/ops.h lists for
// a GPT layer (norms, softmax, GeLU, residual add, embedding, cross-entropy, Adam); the GEMM
// helper runs the weight GEMMs' forward and both backward products with the shapes op_cost uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardsim::kernels::cpu::composite {

using Vec = std::vector<float>;

// C[m x n] (ldc) = op(A) . op(B) (+ C when accumulate). Row-major cblas_sgemm.
void sgemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, const float* b,
           int ldb, float* c, int ldc, bool accumulate = false);

// Linear layer Y[t x n] = X[t x k] . W[k x n] and its backward:
//   dX[t x k] = dY . W^T   (gemm(t, k, n): the simulator's backward-input shape)
//   dW[k x n] = X^T . dY   (gemm(k, n, t): its backward-weight shape)
void linear_forward(const float* x, const float* w, float* y, int t, int n, int k);
void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, int t,
                     int n, int k);

// LayerNorm over rows of width `cols`: y = (x - mean) * rstd * gamma + beta; keeps mean and rstd
// per row for the backward pass. Backward writes dx and accumulates dgamma, dbeta.
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                       float* rstd, int rows, int cols);
void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd,
                        const float* dy, float* dx, float* dgamma, float* dbeta, int rows,
                        int cols);

// Causal softmax of scaled scores, in place on [s x s]: p = softmax(scale * x) over j <= i, 0 for
// j > i. Backward: dx = scale * p * (dp - sum_j dp p), in place on dp.
void causal_softmax_forward(float* x, int s, float scale);
void causal_softmax_backward(const float* p, float* dp, int s, float scale);

// GeLU (tanh form) and its derivative: dx = dy * gelu'(x).
void gelu_forward(const float* x, float* y, std::int64_t n);
void gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n);

// y = a + b (the residual add of a block without dropout).
void add(const float* a, const float* b, float* y, std::int64_t n);

// x[t x h] = E[token] + P[position]; backward accumulates dE[token] and dP[position].
void embedding_forward(const std::vector<std::int32_t>& tokens, const float* e, const float* p,
                       float* x, int seq, int h);
void embedding_backward(const std::vector<std::int32_t>& tokens, const float* dx, float* de,
                        float* dp, int seq, int h);

// Mean cross-entropy of logits [t x v] against `targets`; logits are replaced by
// d loss / d logits = (softmax - onehot) / t. Returns the loss.
double cross_entropy(float* logits, const std::vector<std::int32_t>& targets, int t, int v);

// Adam (bias-corrected, step `step` >= 1) on flat vectors; the gradient is scaled by
// `grad_scale` (1 / data-parallel ranks: the all-reduce sums). Reads p, g, m, v; writes p, m, v.
struct AdamConstants {
  float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};
void adam(float* p, const float* g, float* m, float* v, std::size_t n, int step, float grad_scale,
          const AdamConstants& c);
void adam(Vec& p, const Vec& g, Vec& m, Vec& v, int step, float grad_scale, const AdamConstants& c);

}  // namespace shardsim::kernels::cpu::composite
