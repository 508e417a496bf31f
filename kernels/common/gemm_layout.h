// Row-major GEMMs on a column-major library (cuBLAS). A row-major matrix X with row stride ld is,
// read column-major with the same ld, X^T. So row-major C[m x n] = op(A) op(B) is column-major
// C^T = op(B)^T op(A)^T: the library gets the operands swapped, each keeping its own transpose
// flag, and the dimensions (n, m, k); every leading dimension stays what it was.
// kernels/cuda/composite.cc calls cublasSgemm (and cublasSgemmStridedBatched) with this;
// tests/kernels check it against a row-major reference with a plain column-major GEMM, since no GPU
// runs it here.
#pragma once

namespace shardsim::kernels {

struct ColumnMajorGemm {
  bool trans_first = false, trans_second = false;  // the library's transa, transb
  int m = 0, n = 0, k = 0;
  const float* first = nullptr;  // the library's A
  int ld_first = 0;
  const float* second = nullptr;  // the library's B
  int ld_second = 0;
  float* c = nullptr;
  int ldc = 0;
};

// The column-major call that computes row-major C[m x n] = op(A)[m x k] op(B)[k x n] (op(X) = X^T
// when its flag is set; lda, ldb, ldc are the row-major row strides).
[[nodiscard]] inline ColumnMajorGemm column_major_gemm(bool trans_a, bool trans_b, int m, int n,
                                                       int k, const float* a, int lda,
                                                       const float* b, int ldb, float* c, int ldc) {
  return {trans_b, trans_a, n, m, k, b, ldb, a, lda, c, ldc};
}

// A strided batch of such products (cublasSgemmStridedBatched): product i reads A + i stride_a,
// B + i stride_b and writes C + i stride_c (row-major float strides). The operands swap as in
// column_major_gemm, and their strides with them.
struct ColumnMajorGemmBatched {
  ColumnMajorGemm gemm;  // product 0
  long long stride_first = 0, stride_second = 0, stride_c = 0;
  int batch = 0;
};

[[nodiscard]] inline ColumnMajorGemmBatched column_major_gemm_batched(
    bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda, long long stride_a,
    const float* b, int ldb, long long stride_b, float* c, int ldc, long long stride_c, int batch) {
  return {column_major_gemm(trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc), stride_b, stride_a,
          stride_c, batch};
}

}  // namespace shardsim::kernels
