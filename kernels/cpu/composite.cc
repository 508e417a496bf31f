// The cpu backend's kernels for the shared composite model (composite.h): host vectors, OpenBLAS,
// the C++ kernels of composite_ops.h, MPI_Allreduce.
#include "kernels/cpu/composite.h"

#include <algorithm>
#include <utility>

#include "kernels/common/composite_model.h"
#include "kernels/cpu/composite_ops.h"

namespace shardsim::kernels::cpu {
namespace {

namespace ops = composite;

// The Ops of composite_model.h on the host.
class CpuOps {
 public:
  struct Buffer {
    std::vector<float> v;
    float* data() { return v.data(); }
  };
  using Tokens = std::vector<std::int32_t>;

  explicit CpuOps(const Comm& comm) : comm_(comm) {}

  Buffer zeros(std::size_t n) { return {std::vector<float>(n, 0.0f)}; }
  Buffer from_host(std::vector<float> v) { return {std::move(v)}; }
  std::vector<float> to_host(const Buffer& b) { return b.v; }
  Tokens tokens(const std::vector<std::int32_t>& ids) { return ids; }

  void sgemm(bool ta, bool tb, int m, int n, int k, const float* a, int lda, const float* b,
             int ldb, float* c, int ldc) {
    ops::sgemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  }
  void sgemm_batched(bool ta, bool tb, int m, int n, int k, const float* a, int lda,
                     long long stride_a, const float* b, int ldb, long long stride_b, float* c,
                     int ldc, long long stride_c, int batch) {
    for (int i = 0; i < batch; ++i)
      ops::sgemm(ta, tb, m, n, k, a + i * stride_a, lda, b + i * stride_b, ldb, c + i * stride_c,
                 ldc);
  }
  void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y,
                         float* mean, float* rstd, int rows, int cols) {
    ops::layernorm_forward(x, gamma, beta, y, mean, rstd, rows, cols);
  }
  void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd,
                          const float* dy, float* dx, float* dgamma, float* dbeta, int rows,
                          int cols) {
    ops::layernorm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta, rows, cols);
  }
  void causal_softmax_forward(float* x, int count, int s, float scale) {
    const std::size_t ss = std::size_t(s) * std::size_t(s);
    for (int i = 0; i < count; ++i) ops::causal_softmax_forward(x + i * ss, s, scale);
  }
  void causal_softmax_backward(const float* p, float* dp, int count, int s, float scale) {
    const std::size_t ss = std::size_t(s) * std::size_t(s);
    for (int i = 0; i < count; ++i) ops::causal_softmax_backward(p + i * ss, dp + i * ss, s, scale);
  }
  void gelu_forward(const float* x, float* y, std::int64_t n) { ops::gelu_forward(x, y, n); }
  void gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n) {
    ops::gelu_backward(x, dy, dx, n);
  }
  void add(const float* a, const float* b, float* y, std::int64_t n) { ops::add(a, b, y, n); }
  void embedding_forward(const Tokens& tokens, const float* e, const float* p, float* x, int seq,
                         int h) {
    ops::embedding_forward(tokens, e, p, x, seq, h);
  }
  void embedding_backward(const Tokens& tokens, const float* dx, float* de, float* dp, int seq,
                          int h) {
    ops::embedding_backward(tokens, dx, de, dp, seq, h);
  }
  void cross_entropy(float* logits, const Tokens& targets, int t, int v) {
    loss_ = ops::cross_entropy(logits, targets, t, v);
  }
  [[nodiscard]] double loss() const { return loss_; }
  void adam(float* p, const float* g, float* m, float* v, std::size_t n, int step,
            float grad_scale) {
    ops::adam(p, g, m, v, n, step, grad_scale, {});
  }
  void zero(float* p, std::size_t n) { std::fill_n(p, n, 0.0f); }
  void allreduce_sum(float* g, std::size_t n) {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, g, int(n), MPI_FLOAT, MPI_SUM, comm_.handle()),
              "MPI_Allreduce");
  }
  void finish() {}

 private:
  const Comm& comm_;
  double loss_ = 0;
};

}  // namespace

CompositeResult run_composite(const CompositeConfig& config, const Comm& world) {
  CpuOps ops(world);
  SteadyClockTimer timer;
  return composite_model::run_composite_on(config, world, ops, "composite/step", timer);
}

}  // namespace shardsim::kernels::cpu
