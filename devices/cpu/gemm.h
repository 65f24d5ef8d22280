// The GEMM building blocks of kernels_matmul.cpp, shared with the graph's
// fused matmul_epilogue kernel (kernels_graph_fused.cpp) so that both call
// BLAS the very same way (Note [Fused kernels are the unfused chain]).
#pragma once
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "dtype.h"
#include "gemm_few_rows.h"
#include "stream.h"

namespace mfcpu {

// A (rows x cols) matrix view; strides in elements.
template <class T>
struct Mat {
  T* p;
  int64_t rows, cols, rs, cs;
  T& operator()(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
  Mat transposed() const { return {p, cols, rows, cs, rs}; }
};

// Can BLAS read `m` in place (row-major storage, possibly transposed)?
template <class T>
bool blas_view(const Mat<T>& m, CBLAS_TRANSPOSE* trans, blasint* ld) {
  auto fits = [](int64_t v, int64_t min) { return v >= std::max<int64_t>(min, 1) && v <= INT_MAX; };
  if (m.cs == 1 || m.cols == 1) {  // row-major; a size-1 dim's stride is irrelevant
    const int64_t l = m.rows == 1 ? std::max<int64_t>(m.cols, 1) : m.rs;
    if (fits(l, m.cols)) {
      *trans = CblasNoTrans;
      *ld = blasint(l);
      return true;
    }
  }
  if (m.rs == 1 || m.rows == 1) {  // column-major = transposed row-major
    const int64_t l = m.cols == 1 ? std::max<int64_t>(m.rows, 1) : m.cs;
    if (fits(l, m.rows)) {
      *trans = CblasTrans;
      *ld = blasint(l);
      return true;
    }
  }
  return false;
}

// Copies (and converts) a strided matrix into contiguous row-major `dst`.
template <class TD, class TS>
void pack(const Mat<TS>& src, TD* dst) {
  for (int64_t i = 0; i < src.rows; ++i) {
    TD* d = dst + i * src.cols;
    const TS* s = &src(i, 0);
    if (src.cs == 1) {  // vectorisable (matters for the float16 -> float widening)
      for (int64_t j = 0; j < src.cols; ++j) d[j] = TD(load(s[j]));
    } else {
      for (int64_t j = 0; j < src.cols; ++j) d[j] = TD(load(s[j * src.cs]));
    }
  }
}

// Note [Vector products go to gemv]
//   A product with one row (x @ W.T for a single sample: an RNN step, a
//   decoding step) or one column is a matrix-vector product. OpenBLAS's gemm
//   packs the whole matrix for it on every call (1x185 @ 185x128: ~8 us);
//   gemv reads it once (~1 us). Eager and fused kernels both come here, so
//   they still call BLAS alike.
template <class T, class Gemm, class Gemv>
void gemm_or_gemv(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const T* a, blasint lda,
                  const T* b, blasint ldb, T* c, blasint ldc, Gemm gemm, Gemv gemv) {
  if (m == 1) {  // c (1 x n) = a (1 x k) b: a's elements are 1 (or lda) apart
    const blasint inca = ta == CblasNoTrans ? 1 : lda;
    if (tb == CblasNoTrans)
      gemv(CblasTrans, k, n, b, ldb, a, inca, c, 1);  // b stored k x n
    else
      gemv(CblasNoTrans, n, k, b, ldb, a, inca, c, 1);  // b stored n x k
  } else if (n == 1) {  // c (m x 1) = a b (k x 1): c's elements are ldc apart
    const blasint incb = tb == CblasNoTrans ? ldb : 1;
    if (ta == CblasNoTrans)
      gemv(CblasNoTrans, m, k, a, lda, b, incb, c, ldc);  // a stored m x k
    else
      gemv(CblasTrans, k, m, a, lda, b, incb, c, ldc);  // a stored k x m
  } else {
    gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  }
}

inline void gemm_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                      const float* a, blasint lda, const float* b, blasint ldb, float* c, blasint ldc) {
#ifdef MFCPU_FEW_ROWS_GEMM
  if (few_rows_product(ta, tb, m, k)) {  // Note [Few-row products read the matrix once]
    few_rows_gemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
#endif
  gemm_or_gemv(
      ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
      [](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const float* a, blasint lda,
         const float* b, blasint ldb, float* c, blasint ldc) {
        scipy_cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
      },
      [](CBLAS_TRANSPOSE t, blasint rows, blasint cols, const float* mat, blasint ld, const float* x, blasint incx,
         float* y, blasint incy) {
        scipy_cblas_sgemv(CblasRowMajor, t, rows, cols, 1.0f, mat, ld, x, incx, 0.0f, y, incy);
      });
}
inline void gemm_call(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k,
                      const double* a, blasint lda, const double* b, blasint ldb, double* c,
                      blasint ldc) {
  gemm_or_gemv(
      ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
      [](CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const double* a, blasint lda,
         const double* b, blasint ldb, double* c, blasint ldc) {
        scipy_cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
      },
      [](CBLAS_TRANSPOSE t, blasint rows, blasint cols, const double* mat, blasint ld, const double* x,
         blasint incx, double* y, blasint incy) {
        scipy_cblas_dgemv(CblasRowMajor, t, rows, cols, 1.0, mat, ld, x, incx, 0.0, y, incy);
      });
}

// Below this many flops a product runs on one thread (splitting costs more).
constexpr double kParallelGemmFlops = 1 << 21;

// Note [One GEMM for a shared right operand]
//   x (B, T, k) @ w (k, n), linear's product over leading dims, arrives with
//   w expanded over the batch (stride 0). When the batch dims of x and out
//   are evenly strided continuations of their row dim, the B products are
//   one (B*T, k) @ (k, n) GEMM: BLAS then packs w once instead of B times
//   and blocks over all B*T rows (35 x (20x200 @ 200x10000): 2.5x faster). The graph's matmul_epilogue
//   folds the same way, so that eager and graph call BLAS alike.
//   Each element is the same k-term dot product as in the batched loop.

// Is `b` the same matrix in every batch (stride 0 over each batch dim)?
inline bool shared_matrix(const Operand& b, int nb) {
  for (int d = 0; d < nb; ++d)
    if (b.shape[d] != 1 && b.strides[d] != 0) return false;
  return true;
}

// Do the batch dims of `t` continue its row dim with even strides, so that
// (batch..., m, cols) reads as one (batch*m, cols) matrix of row stride rs?
inline bool rows_fold(const Operand& t, int nb) {
  int64_t expect = t.shape[nb] * t.strides[nb];
  for (int d = nb - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

}  // namespace mfcpu
