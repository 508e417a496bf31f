// GEMMs on the device: cublasGemmEx for fp32, tf32, fp16, bf16 (fp32 accumulation) and
// cublasLtMatmul for fp8 (e4m3 inputs, bf16 output, TN layout as cuBLASLt requires).
// Row-major C (m x n) = op(A) op(B) is computed as column-major C^T = op(B)^T op(A)^T, so the
// cuBLAS call takes B first. Ran on an H200 (see cuda_backend.h); the random timing data of
// verify() in the second run.
#include <map>
#include <memory>
#include <string>

#include "kernels/common/gemm_check.h"
#include "kernels/cuda/descriptors.h"
#include "kernels/cuda/device_kernels.h"

namespace shardsim::kernels::cuda {
namespace {

struct DtypeInfo {
  Storage in;
  Storage out;
  cudaDataType_t in_type;
  cudaDataType_t out_type;
  cublasComputeType_t compute;
  double rtol;  // output rounding: fp32 exact inputs and sums; fp16 2^-11; bf16 2^-8
  // Unit roundoff of the output dtype for partial sums added in it (gemm_check.h): 0 for fp32.
  double partial_rounding = 0;
};

DtypeInfo dtype_info(const std::string& d) {
  if (d == "tf32")
    return {Storage::kF32, Storage::kF32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32,
            1e-5};
  if (d == "fp16")
    return {Storage::kF16,      Storage::kF16, CUDA_R_16F, CUDA_R_16F,
            CUBLAS_COMPUTE_32F, 1e-3,          0x1p-11};
  if (d == "bf16")
    return {Storage::kBF16,     Storage::kBF16, CUDA_R_16BF, CUDA_R_16BF,
            CUBLAS_COMPUTE_32F, 8e-3,           0x1p-8};
  if (d == "fp8")
    return {Storage::kE4M3,     Storage::kBF16, CUDA_R_8F_E4M3, CUDA_R_16BF,
            CUBLAS_COMPUTE_32F, 8e-3,           0x1p-8};
  return {Storage::kF32, Storage::kF32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1e-5};
}

class GemmInstance final : public Instance {
 public:
  GemmInstance(const GemmShape& s, const std::string& dtype, const DeviceContext& ctx)
      : s_(s),
        fp8_(dtype == "fp8"),
        t_(dtype_info(dtype)),
        ctx_(ctx),
        in_(make_gemm_inputs(s)),
        a_(in_.a.size() * storage_bytes(t_.in)),
        b_(in_.b.size() * storage_bytes(t_.in)),
        c_(static_cast<std::size_t>(s.m * s.n) * storage_bytes(t_.out)) {
    stage(in_.a, a_);
    stage(in_.b, b_);
    if (fp8_) prepare_lt();
  }
  ~GemmInstance() override {
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
    for (auto* l : {la_, lb_, lc_}) {
      if (l != nullptr) cublasLtMatrixLayoutDestroy(l);
    }
  }

  void run(int times) override {
    const float one = 1.0f;
    const float zero = 0.0f;
    for (int t = 0; t < times; ++t) {
      if (fp8_) {
        check_cublas(cublasLtMatmul(ctx_.lt, desc_, &one, b_.get(), la_, a_.get(), lb_, &zero,
                                    c_.get(), lc_, c_.get(), lc_, &algo_, ctx_.workspace,
                                    ctx_.workspace_bytes, ctx_.stream),
                     "cublasLtMatmul");
      } else {
        check_cublas(
            cublasGemmEx(ctx_.blas, s_.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                         s_.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, dim(s_.n), dim(s_.m), dim(s_.k),
                         &one, b_.get(), t_.in_type, ldb(), a_.get(), t_.in_type, lda(), &zero,
                         c_.get(), t_.out_type, dim(s_.n), t_.compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
      }
    }
  }

  Verification verify() override {
    const std::size_t n = static_cast<std::size_t>(s_.m * s_.n);
    DeviceBuffer as_float(n * sizeof(float));
    check_cuda(convert_to_float(c_.get(), as_float.f32(), n, t_.out, ctx_.stream),
               "convert_to_float launch");
    const std::vector<float> c = download(ctx_, as_float.f32(), n);
    const auto at = [&](std::int64_t i, std::int64_t j) {
      return c[static_cast<std::size_t>(i * s_.n + j)];
    };
    const Verification v = check_gemm(s_, in_, at, t_.rtol, t_.partial_rounding);
    // Timed on random data from here on: make_timing_inputs's values (gemm_check.h), generated
    // on the device (filling them on the host would about double a GPU sweep's time), and the
    // host copies of the verified inputs released.
    in_ = GemmInputs{};
    check_cuda(
        fill_random(a_.get(), a_.bytes() / storage_bytes(t_.in), t_.in, kTimingSeedA, ctx_.stream),
        "fill_random launch");
    check_cuda(
        fill_random(b_.get(), b_.bytes() / storage_bytes(t_.in), t_.in, kTimingSeedB, ctx_.stream),
        "fill_random launch");
    check_cuda(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize");
    return v;
  }

 private:
  static int dim(std::int64_t v) { return static_cast<int>(v); }
  [[nodiscard]] int lda() const { return dim(s_.trans_a ? s_.m : s_.k); }
  [[nodiscard]] int ldb() const { return dim(s_.trans_b ? s_.k : s_.n); }

  void stage(const std::vector<float>& host, DeviceBuffer& out) {
    DeviceBuffer tmp(host.size() * sizeof(float));
    upload(ctx_, tmp.f32(), host);
    check_cuda(convert_from_float(tmp.f32(), out.get(), host.size(), t_.in, ctx_.stream),
               "convert_from_float launch");
    check_cuda(cudaStreamSynchronize(ctx_.stream), "cudaStreamSynchronize");
  }

  // fp8: cuBLASLt TN (cuBLAS A = our B stored n x k, transposed; cuBLAS B = our A stored m x k).
  void prepare_lt() {
    check_cublas(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F),
                 "cublasLtMatmulDescCreate");
    const cublasOperation_t tr = CUBLAS_OP_T;
    const cublasOperation_t nt = CUBLAS_OP_N;
    check_cublas(
        cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof(tr)),
        "cublasLtMatmulDescSetAttribute");
    check_cublas(
        cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof(nt)),
        "cublasLtMatmulDescSetAttribute");
    const auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
    check_cublas(cublasLtMatrixLayoutCreate(&la_, t_.in_type, u(s_.k), u(s_.n), s_.k),
                 "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatrixLayoutCreate(&lb_, t_.in_type, u(s_.k), u(s_.m), s_.k),
                 "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatrixLayoutCreate(&lc_, t_.out_type, u(s_.n), u(s_.m), s_.n),
                 "cublasLtMatrixLayoutCreate");
    cublasLtMatmulPreference_t pref = nullptr;
    check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    std::size_t ws = ctx_.workspace_bytes;
    const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
    if (set != CUBLAS_STATUS_SUCCESS) {
      cublasLtMatmulPreferenceDestroy(pref);
      check_cublas(set, "cublasLtMatmulPreferenceSetAttribute");
    }
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(ctx_.lt, desc_, la_, lb_, lc_, lc_,
                                                             pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    check_cublas(st, "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) throw CallError("cublasLtMatmulAlgoGetHeuristic", "no fp8 algorithm");
    algo_ = result.algo;
  }

  GemmShape s_;
  bool fp8_;
  DtypeInfo t_;
  const DeviceContext& ctx_;
  GemmInputs in_;
  DeviceBuffer a_;
  DeviceBuffer b_;
  DeviceBuffer c_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr;
  cublasLtMatrixLayout_t lb_ = nullptr;
  cublasLtMatrixLayout_t lc_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace

std::vector<Descriptor> gemm_descriptors(const SweepPlan& plan, const DeviceContext& ctx) {
  // fp8 needs compute capability 8.9 (Ada) or newer.
  const bool has_fp8 = ctx.cc_major * 10 + ctx.cc_minor >= 89;
  std::vector<Descriptor> out;
  std::map<std::string, std::size_t> index;  // descriptor name -> position in `out`
  for (const std::string& dtype : plan.gemm_dtypes) {
    if (dtype == "fp8" && !has_fp8) continue;
    for (GemmShape s : plan.gemm_shapes) {
      if (dtype == "fp8") s.trans_a = false, s.trans_b = true;  // the layout cuBLASLt fp8 takes
      Descriptor d;
      d.kind = Kind::kGemm;
      d.name = "gemm/" + dtype + "/" + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
               std::to_string(s.k) + "/" + (s.trans_a ? "t" : "n") + (s.trans_b ? "t" : "n");
      d.params = {{"m", s.m},
                  {"n", s.n},
                  {"k", s.k},
                  {"dtype", dtype},
                  {"trans_a", s.trans_a},
                  {"trans_b", s.trans_b},
                  {"uses", s.uses},
                  {"library", dtype == "fp8" ? "cublasLt" : "cublas"}};
      // fp8 forces layout nt, so shapes differing only in layout share a name: keep the first
      // descriptor of a name and add the later shape's uses to it.
      if (const auto [it, fresh] = index.emplace(d.name, out.size()); !fresh) {
        for (const std::string& use : s.uses) out[it->second].params["uses"].push_back(use);
        continue;
      }
      d.work.flops =
          2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
      const DeviceContext* c = &ctx;
      d.setup = [s, dtype, c] { return std::make_unique<GemmInstance>(s, dtype, *c); };
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace shardsim::kernels::cuda
