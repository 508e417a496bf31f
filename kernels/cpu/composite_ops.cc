// Kernels of the composite step (contracts in composite_ops.h).
#include "kernels/cpu/composite_ops.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

namespace shardsim::kernels::cpu::composite {
namespace {

constexpr float kLnEps = 1e-5f;
constexpr float kSqrt2OverPi = 0.7978845608f;
constexpr float kGeluCubic = 0.044715f;

}  // namespace

void sgemm(bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, const float* b,
           int ldb, float* c, int ldc, bool accumulate) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb,
              accumulate ? 1.0f : 0.0f, c, ldc);
}

void linear_forward(const float* x, const float* w, float* y, int t, int n, int k) {
  sgemm(false, false, t, n, k, x, k, w, n, y, n);
}

void linear_backward(const float* x, const float* w, const float* dy, float* dx, float* dw, int t,
                     int n, int k) {
  sgemm(false, true, t, k, n, dy, n, w, n, dx, k);  // dX = dY . W^T
  sgemm(true, false, k, n, t, x, k, dy, n, dw, n);  // dW = X^T . dY
}

void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                       float* rstd, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + std::int64_t(r) * cols;
    float* out = y + std::int64_t(r) * cols;
    float sum = 0, sq = 0;
    for (int c = 0; c < cols; ++c) {
      sum += in[c];
      sq += in[c] * in[c];
    }
    const float mu = sum / float(cols);
    const float inv = 1.0f / std::sqrt(std::max(0.0f, sq / float(cols) - mu * mu) + kLnEps);
    for (int c = 0; c < cols; ++c) out[c] = (in[c] - mu) * inv * gamma[c] + beta[c];
    mean[r] = mu;
    rstd[r] = inv;
  }
}

// With xhat = (x - mean) rstd and g = dy gamma:
//   dx = rstd (g - mean_c(g) - xhat mean_c(g xhat)); dgamma += dy xhat; dbeta += dy.
void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd,
                        const float* dy, float* dx, float* dgamma, float* dbeta, int rows,
                        int cols) {
  for (int r = 0; r < rows; ++r) {
    const std::int64_t o = std::int64_t(r) * cols;
    float g_sum = 0, gx_sum = 0;
    for (int c = 0; c < cols; ++c) {
      const float xhat = (x[o + c] - mean[r]) * rstd[r];
      const float g = dy[o + c] * gamma[c];
      g_sum += g;
      gx_sum += g * xhat;
      dgamma[c] += dy[o + c] * xhat;
      dbeta[c] += dy[o + c];
    }
    const float g_mean = g_sum / float(cols), gx_mean = gx_sum / float(cols);
    for (int c = 0; c < cols; ++c) {
      const float xhat = (x[o + c] - mean[r]) * rstd[r];
      dx[o + c] = rstd[r] * (dy[o + c] * gamma[c] - g_mean - xhat * gx_mean);
    }
  }
}

void causal_softmax_forward(float* x, int s, float scale) {
  for (int i = 0; i < s; ++i) {
    float* row = x + std::int64_t(i) * s;
    float mx = row[0] * scale;
    for (int j = 1; j <= i; ++j) mx = std::max(mx, row[j] * scale);
    float sum = 0;
    for (int j = 0; j <= i; ++j) sum += (row[j] = std::exp(row[j] * scale - mx));
    const float inv = 1.0f / sum;
    for (int j = 0; j <= i; ++j) row[j] *= inv;
    for (int j = i + 1; j < s; ++j) row[j] = 0.0f;
  }
}

void causal_softmax_backward(const float* p, float* dp, int s, float scale) {
  for (int i = 0; i < s; ++i) {
    const float* pr = p + std::int64_t(i) * s;
    float* dr = dp + std::int64_t(i) * s;
    float dot = 0;
    for (int j = 0; j <= i; ++j) dot += pr[j] * dr[j];
    for (int j = 0; j <= i; ++j) dr[j] = scale * pr[j] * (dr[j] - dot);
    for (int j = i + 1; j < s; ++j) dr[j] = 0.0f;
  }
}

// gelu(x) = 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed with one exp as
// x / (1 + exp(-2u)) (1 + tanh u = 2 / (1 + exp(-2u))), a loop the compiler vectorises.
void gelu_forward(const float* x, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = v / (1.0f + std::exp(-2.0f * kSqrt2OverPi * (v + kGeluCubic * v * v * v)));
  }
}

// gelu'(x) = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) sqrt(2/pi) (1 + 3 * 0.044715 x^2), with
// tanh u = 2 / (1 + exp(-2u)) - 1.
void gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    const float th =
        2.0f / (1.0f + std::exp(-2.0f * kSqrt2OverPi * (v + kGeluCubic * v * v * v))) - 1.0f;
    const float du = kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * v * v);
    dx[i] = dy[i] * (0.5f * (1.0f + th) + 0.5f * v * (1.0f - th * th) * du);
  }
}

void add(const float* a, const float* b, float* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

void embedding_forward(const std::vector<std::int32_t>& tokens, const float* e, const float* p,
                       float* x, int seq, int h) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const float* er = e + std::int64_t(tokens[i]) * h;
    const float* pr = p + std::int64_t(i % std::size_t(seq)) * h;
    float* xr = x + std::int64_t(i) * h;
    for (int c = 0; c < h; ++c) xr[c] = er[c] + pr[c];
  }
}

void embedding_backward(const std::vector<std::int32_t>& tokens, const float* dx, float* de,
                        float* dp, int seq, int h) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    float* er = de + std::int64_t(tokens[i]) * h;
    float* pr = dp + std::int64_t(i % std::size_t(seq)) * h;
    const float* dr = dx + std::int64_t(i) * h;
    for (int c = 0; c < h; ++c) {
      er[c] += dr[c];
      pr[c] += dr[c];
    }
  }
}

// loss = mean_i (log sum_j exp(z_ij) - z_i,target); d/dz = (softmax - onehot) / t.
double cross_entropy(float* logits, const std::vector<std::int32_t>& targets, int t, int v) {
  double loss = 0;
  const float inv_t = 1.0f / float(t);
  for (int i = 0; i < t; ++i) {
    float* row = logits + std::int64_t(i) * v;
    const float mx = *std::max_element(row, row + v);
    float sum = 0;
    for (int j = 0; j < v; ++j) sum += (row[j] = std::exp(row[j] - mx));
    const int y = targets[std::size_t(i)];
    loss += -std::log(double(row[y]) / double(sum));
    const float scale = inv_t / sum;
    for (int j = 0; j < v; ++j) row[j] *= scale;
    row[y] -= inv_t;
  }
  return loss / t;
}

// m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps).
void adam(float* p, const float* g, float* m, float* v, std::size_t n, int step, float grad_scale,
          const AdamConstants& c) {
  const float c1 = 1.0f / (1.0f - std::pow(c.beta1, float(step)));
  const float c2 = 1.0f / (1.0f - std::pow(c.beta2, float(step)));
  for (std::size_t i = 0; i < n; ++i) {
    const float gi = g[i] * grad_scale;
    m[i] = c.beta1 * m[i] + (1.0f - c.beta1) * gi;
    v[i] = c.beta2 * v[i] + (1.0f - c.beta2) * gi * gi;
    p[i] -= c.lr * (m[i] * c1) / (std::sqrt(v[i] * c2) + c.eps);
  }
}

void adam(Vec& p, const Vec& g, Vec& m, Vec& v, int step, float grad_scale,
          const AdamConstants& c) {
  adam(p.data(), g.data(), m.data(), v.data(), p.size(), step, grad_scale, c);
}

}  // namespace shardsim::kernels::cpu::composite
