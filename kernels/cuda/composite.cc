// The cuda backend's kernels for the shared composite model (composite.h). Ran on an H200 at
// one rank (see cuda_backend.h).
#include "kernels/cuda/composite.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "kernels/common/composite_model.h"
#include "kernels/common/gemm_layout.h"
#include "kernels/cuda/composite_kernels.h"

namespace shardsim::kernels::cuda {
namespace {

namespace k = composite;

// A device buffer of n floats (DeviceBuffer, movable through unique_ptr).
class Floats {
 public:
  Floats() = default;
  explicit Floats(std::size_t n) : n_(n), b_(std::make_unique<DeviceBuffer>(n * sizeof(float))) {}
  float* data() { return b_ ? b_->f32() : nullptr; }
  [[nodiscard]] const float* data() const { return b_ ? b_->f32() : nullptr; }
  [[nodiscard]] std::size_t size() const { return n_; }

 private:
  std::size_t n_ = 0;
  std::unique_ptr<DeviceBuffer> b_;
};

// The all-reduce's communicator as PeerWork, so that waits on the stream poll it (wait_device).
class GradientComm final : public PeerWork {
 public:
  // Index of the world-sized group in `groups` (every rank belongs to it); -1 with one rank.
  GradientComm(NcclGroups& groups, int world_size) : groups_(groups) {
    for (std::size_t i = 0; i < groups.groups().size(); ++i)
      if (groups.groups()[i].size == world_size) index_ = int(i);
  }
  [[nodiscard]] bool needed() const { return index_ >= 0; }

  void all_reduce(float* g, std::size_t n, const DeviceContext& ctx) {
#ifdef SHARDSIM_HAVE_NCCL
    auto* comm = static_cast<ncclComm_t>(groups_.nccl(std::size_t(index_)));
    if (comm == nullptr) throw CallError("ncclAllReduce", "the world communicator was aborted");
    nccl_complete(comm, ncclAllReduce(g, g, n, ncclFloat32, ncclSum, comm, ctx.stream),
                  "ncclAllReduce", ctx.timeout_s, [this] { abort(); });
#else
    (void)g, (void)n, (void)ctx;
    throw CallError("ncclAllReduce", "this build has no NCCL: the composite needs one rank");
#endif
  }

  void poll() override {
#ifdef SHARDSIM_HAVE_NCCL
    if (index_ < 0) return;
    auto* comm = static_cast<ncclComm_t>(groups_.nccl(std::size_t(index_)));
    if (comm != nullptr) nccl_poll(comm, "ncclAllReduce", [this] { abort(); });
#endif
  }

  [[noreturn]] void give_up(const std::string& why) override {
    abort();
    throw CallError("ncclAllReduce (composite gradients)",
                    why + " (a peer rank was lost or is stuck); communicator aborted");
  }

 private:
  void abort() {
    if (index_ >= 0) groups_.abort(std::size_t(index_));
  }
  NcclGroups& groups_;
  int index_ = -1;
};

// The Ops of composite_model.h on the device.
class CudaOps {
 public:
  using Buffer = Floats;
  struct Tokens {
    std::unique_ptr<DeviceBuffer> ids;
    int count = 0;
    const std::int32_t* data() const { return static_cast<const std::int32_t*>(ids->get()); }
  };

  CudaOps(const DeviceContext& ctx, NcclGroups& groups, int world_size)
      : ctx_(ctx), comm_(groups, world_size) {
    check_cublas(cublasSetMathMode(ctx.blas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }

  Buffer zeros(std::size_t n) {
    Buffer b(n);
    check_cuda(cudaMemsetAsync(b.data(), 0, n * sizeof(float), ctx_.stream), "cudaMemsetAsync");
    return b;
  }
  Buffer from_host(const std::vector<float>& v) {
    Buffer b(v.size());
    upload(ctx_, b.data(), v);
    return b;
  }
  std::vector<float> to_host(const Buffer& b) {
    finish();
    return download(ctx_, b.data(), b.size());
  }
  Tokens tokens(const std::vector<std::int32_t>& ids) {
    Tokens t{std::make_unique<DeviceBuffer>(ids.size() * sizeof(std::int32_t)), int(ids.size())};
    check_cuda(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize");
    check_cuda(cudaMemcpy(t.ids->get(), ids.data(), ids.size() * sizeof(std::int32_t),
                          cudaMemcpyHostToDevice),
               "cudaMemcpy");
    check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");  // as upload() does
    return t;
  }

  // Row-major on column-major cuBLAS (kernels/common/gemm_layout.h, tested on the CPU).
  void sgemm(bool ta, bool tb, int m, int n, int kk, const float* a, int lda, const float* b,
             int ldb, float* c, int ldc) {
    const float one = 1.0f, zero = 0.0f;
    const ColumnMajorGemm g = column_major_gemm(ta, tb, m, n, kk, a, lda, b, ldb, c, ldc);
    check_cublas(cublasSgemm(ctx_.blas, g.trans_first ? CUBLAS_OP_T : CUBLAS_OP_N,
                             g.trans_second ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &one,
                             g.first, g.ld_first, g.second, g.ld_second, &zero, g.c, g.ldc),
                 "cublasSgemm");
  }
  // `batch` products at fixed strides (floats) between consecutive A, B and C matrices: one
  // cublasSgemmStridedBatched call, operands mapped as sgemm's.
  void sgemm_batched(bool ta, bool tb, int m, int n, int kk, const float* a, int lda,
                     long long stride_a, const float* b, int ldb, long long stride_b, float* c,
                     int ldc, long long stride_c, int batch) {
    const float one = 1.0f, zero = 0.0f;
    const ColumnMajorGemmBatched bg = column_major_gemm_batched(
        ta, tb, m, n, kk, a, lda, stride_a, b, ldb, stride_b, c, ldc, stride_c, batch);
    const ColumnMajorGemm& g = bg.gemm;
    check_cublas(
        cublasSgemmStridedBatched(ctx_.blas, g.trans_first ? CUBLAS_OP_T : CUBLAS_OP_N,
                                  g.trans_second ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &one,
                                  g.first, g.ld_first, bg.stride_first, g.second, g.ld_second,
                                  bg.stride_second, &zero, g.c, g.ldc, bg.stride_c, bg.batch),
        "cublasSgemmStridedBatched");
  }
  void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y,
                         float* mean, float* rstd, int rows, int cols) {
    check_cuda(k::layernorm_forward(x, gamma, beta, y, mean, rstd, rows, cols, ctx_.stream),
               "layernorm_forward<<<>>>");
  }
  void layernorm_backward(const float* x, const float* gamma, const float* mean, const float* rstd,
                          const float* dy, float* dx, float* dgamma, float* dbeta, int rows,
                          int cols) {
    check_cuda(
        k::layernorm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta, rows, cols, ctx_.stream),
        "layernorm_backward<<<>>>");
  }
  void causal_softmax_forward(float* x, int count, int s, float scale) {
    check_cuda(k::causal_softmax_forward(x, count, s, scale, ctx_.stream), "causal_softmax<<<>>>");
  }
  void causal_softmax_backward(const float* p, float* dp, int count, int s, float scale) {
    check_cuda(k::causal_softmax_backward(p, dp, count, s, scale, ctx_.stream),
               "causal_softmax_backward<<<>>>");
  }
  void gelu_forward(const float* x, float* y, std::int64_t n) {
    check_cuda(k::gelu_forward(x, y, n, ctx_.stream), "gelu<<<>>>");
  }
  void gelu_backward(const float* x, const float* dy, float* dx, std::int64_t n) {
    check_cuda(k::gelu_backward(x, dy, dx, n, ctx_.stream), "gelu_backward<<<>>>");
  }
  void add(const float* a, const float* b, float* y, std::int64_t n) {
    check_cuda(k::add(a, b, y, n, ctx_.stream), "add<<<>>>");
  }
  void embedding_forward(const Tokens& t, const float* e, const float* p, float* x, int seq,
                         int h) {
    check_cuda(k::embedding_forward(t.data(), t.count, e, p, x, seq, h, ctx_.stream),
               "embedding<<<>>>");
  }
  void embedding_backward(const Tokens& t, const float* dx, float* de, float* dp, int seq, int h) {
    check_cuda(k::embedding_backward(t.data(), t.count, dx, de, dp, seq, h, ctx_.stream),
               "embedding_backward<<<>>>");
  }
  // Per-row losses stay on the device (no host sync inside the forward pass); loss() reads them.
  void cross_entropy(float* logits, const Tokens& targets, int t, int v) {
    if (row_loss_.size() != std::size_t(t)) row_loss_ = Floats(std::size_t(t));
    check_cuda(k::cross_entropy(logits, targets.data(), row_loss_.data(), t, v, ctx_.stream),
               "cross_entropy<<<>>>");
  }
  // The last cross_entropy's mean loss, summed in double on the host (waits for the stream).
  double loss() {
    finish();
    double sum = 0;
    for (const float x : download(ctx_, row_loss_.data(), row_loss_.size())) sum += x;
    return row_loss_.size() ? sum / double(row_loss_.size()) : std::nan("");
  }
  void adam(float* p, const float* g, float* m, float* v, std::size_t n, int step,
            float grad_scale) {
    // The constants of kernels/cpu/composite_ops.h's AdamConstants.
    const float lr = 1e-3f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
    const float c1 = 1.0f / (1.0f - std::pow(beta1, float(step)));
    const float c2 = 1.0f / (1.0f - std::pow(beta2, float(step)));
    check_cuda(k::adam(p, g, m, v, n, grad_scale, lr, beta1, beta2, eps, c1, c2, ctx_.stream),
               "adam<<<>>>");
  }
  void zero(float* p, std::size_t n) {
    check_cuda(cudaMemsetAsync(p, 0, n * sizeof(float), ctx_.stream), "cudaMemsetAsync");
  }
  void allreduce_sum(float* g, std::size_t n) {
    if (comm_.needed()) comm_.all_reduce(g, n, ctx_);
  }
  // Waits for the stream with the backend's deadline, polling the all-reduce's communicator.
  void finish() {
    wait_device(
        ctx_, [this] { return cudaStreamQuery(ctx_.stream); }, "cudaStreamQuery",
        comm_.needed() ? &comm_ : nullptr);
  }

 private:
  const DeviceContext& ctx_;
  GradientComm comm_;
  Floats row_loss_;
};

}  // namespace

CompositeResult run_composite(const CompositeConfig& config, const Comm& world,
                              const DeviceContext& ctx, NcclGroups& groups) {
  CudaOps ops(ctx, groups, world.size());
  SteadyClockTimer timer;  // each step waits for its own device work (Model::step)
  return composite_model::run_composite_on(config, world, ops, "composite/step", timer);
}

}  // namespace shardsim::kernels::cuda
