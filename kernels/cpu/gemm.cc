// OpenBLAS cblas_sgemm over the plan's shapes (row-major). cblas has no status return: invalid
// arguments go to xerbla, which OpenBLAS reports on stderr and then returns; so the arguments are
// checked here before the call and every result is verified (gemm_check.h).
#include <cblas.h>

#include "kernels/common/errors.h"
#include "kernels/common/gemm_check.h"
#include "kernels/cpu/descriptors.h"

namespace shardsim::kernels::cpu {
namespace {

class SgemmInstance final : public Instance {
 public:
  explicit SgemmInstance(const GemmShape& s)
      : s_(s), in_(make_gemm_inputs(s)), c_(static_cast<std::size_t>(s.m * s.n)) {
    if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.m > kMaxDim || s.n > kMaxDim || s.k > kMaxDim) {
      throw CallError("cblas_sgemm",
                      "dimensions out of range for a 32-bit BLAS: m=" + std::to_string(s.m) +
                          " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
    }
  }

  void run(int times) override {
    const int m = static_cast<int>(s_.m);
    const int n = static_cast<int>(s_.n);
    const int k = static_cast<int>(s_.k);
    const int lda = s_.trans_a ? m : k;  // A stored k x m when transposed, else m x k
    const int ldb = s_.trans_b ? k : n;  // B stored n x k when transposed, else k x n
    for (int t = 0; t < times; ++t) {
      cblas_sgemm(CblasRowMajor, s_.trans_a ? CblasTrans : CblasNoTrans,
                  s_.trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, in_.a.data(), lda,
                  in_.b.data(), ldb, 0.0f, c_.data(), n);
    }
  }

  Verification verify() override {
    const auto at = [this](std::int64_t i, std::int64_t j) {
      return c_[static_cast<std::size_t>(i * s_.n + j)];
    };
    // Inputs are multiples of 1/8 and fp32 accumulation of their products is exact (gemm_check.h),
    // so only the summation order could differ: 1e-5 relative is ample.
    const Verification v = check_gemm(s_, in_, at, 1e-5);
    in_ = make_timing_inputs(s_);  // timed on random data, as the cuda backend (gemm_check.h)
    return v;
  }

 private:
  static constexpr std::int64_t kMaxDim = 1 << 30;
  GemmShape s_;
  GemmInputs in_;
  std::vector<float> c_;
};

std::string shape_name(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + "/" +
         (s.trans_a ? "t" : "n") + (s.trans_b ? "t" : "n");
}

}  // namespace

std::vector<Descriptor> gemm_descriptors(const SweepPlan& plan) {
  std::vector<Descriptor> out;
  for (const GemmShape& s : plan.gemm_shapes) {
    Descriptor d;
    d.kind = Kind::kGemm;
    d.name = "gemm/fp32/" + shape_name(s);
    d.params = {{"m", s.m},
                {"n", s.n},
                {"k", s.k},
                {"dtype", "fp32"},
                {"trans_a", s.trans_a},
                {"trans_b", s.trans_b},
                {"uses", s.uses},
                {"library", "openblas cblas_sgemm"}};
    // 2 m n k: one multiply and one add per (i, j, p).
    d.work.flops =
        2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
    d.setup = [s] { return std::make_unique<SgemmInstance>(s); };
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace shardsim::kernels::cpu
