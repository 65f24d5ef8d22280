// Products with a few rows against a matrix stored row by row: x @ W.T.
//
// Note [Few-row products read the matrix once]
//   x @ W.T with a handful of rows (an RNN step over a small batch, a
//   small-batch Linear) reads W, the big operand, once for very little
//   arithmetic; OpenBLAS's gemm packs all of W on every call first (16 MB
//   for an LSTM's 4096 x 1024 weight at hidden 1024, each of its 30 steps)
//   and then reads the copy. With W stored (n, k) row-major, every output is
//   the dot product of two contiguous rows, so W is read straight through,
//   a few of its rows at a time against all of x's (which stay in cache):
//   a tile of x rows by W rows keeps one 16-lane accumulator per output
//   (AVX-512: 4 x 5 tiles; AVX2: 2 x 3, each accumulator two 8-lane halves),
//   fused multiply-adds along k, then the 16 lanes are summed in one fixed
//   order, then the k % 16 tail in order. The AVX2 and AVX-512 builds thus
//   give the same bits (Note [Three builds of the CPU plugin]); the baseline
//   build keeps BLAS. An output's value depends on its two rows alone, never
//   on how the product is split over threads.
#pragma once

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#include <cblas.h>

namespace mfcpu {

#define MFCPU_FEW_ROWS_GEMM 1

namespace few_rows {

#if defined(__AVX512F__) && defined(__AVX512DQ__)
struct V16 {
  __m512 v;
};
inline V16 zero16() { return {_mm512_setzero_ps()}; }
inline V16 load16(const float* p) { return {_mm512_loadu_ps(p)}; }
inline void fma16(V16& acc, const V16& a, const V16& b) { acc.v = _mm512_fmadd_ps(a.v, b.v, acc.v); }
inline __m256 fold16(const V16& x) {  // lanes i + (i + 8)
  return _mm256_add_ps(_mm512_castps512_ps256(x.v), _mm512_extractf32x8_ps(x.v, 1));
}
constexpr int kTileRows = 4, kTileCols = 5;
#else
struct V16 {
  __m256 lo, hi;
};
inline V16 zero16() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
inline V16 load16(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
inline void fma16(V16& acc, const V16& a, const V16& b) {
  acc.lo = _mm256_fmadd_ps(a.lo, b.lo, acc.lo);
  acc.hi = _mm256_fmadd_ps(a.hi, b.hi, acc.hi);
}
inline __m256 fold16(const V16& x) { return _mm256_add_ps(x.lo, x.hi); }
constexpr int kTileRows = 2, kTileCols = 3;
#endif

// The sum of the 16 lanes, in the same order in every build.
inline float lane_sum(const V16& x) {
  const __m256 s8 = fold16(x);
  __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));  // i + (i + 4)
  s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));                                       // i + (i + 2)
  s4 = _mm_add_ss(s4, _mm_shuffle_ps(s4, s4, 1));                                   // 0 + 1
  return _mm_cvtss_f32(s4);
}

// c[i][j] = a row i . b row j for a R x C tile.
template <int R, int C>
void tile(const float* a, blasint lda, const float* b, blasint ldb, float* c, blasint ldc, blasint k) {
  V16 acc[R][C];
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) acc[i][j] = zero16();
  blasint p = 0;
  for (; p + 16 <= k; p += 16) {
    V16 bv[C];
    for (int j = 0; j < C; ++j) bv[j] = load16(b + j * ldb + p);
    for (int i = 0; i < R; ++i) {
      const V16 av = load16(a + i * lda + p);
      for (int j = 0; j < C; ++j) fma16(acc[i][j], av, bv[j]);
    }
  }
  for (int i = 0; i < R; ++i)
    for (int j = 0; j < C; ++j) {
      float s = lane_sum(acc[i][j]);
      for (blasint q = p; q < k; ++q) s += a[i * lda + q] * b[j * ldb + q];
      c[i * ldc + j] = s;
    }
}

// The last r < kTileRows rows as one tile of r rows.
template <int C, int R = kTileRows - 1>
void rest_tile(int r, const float* a, blasint lda, const float* b, blasint ldb, float* c, blasint ldc, blasint k) {
  if (r == R)
    tile<R, C>(a, lda, b, ldb, c, ldc, k);
  else if constexpr (R > 1)
    rest_tile<C, R - 1>(r, a, lda, b, ldb, c, ldc, k);
}

// Rows [0, m) of a against W rows [j, j + C): full row tiles, then the rest.
template <int C>
void column_block(blasint m, blasint k, const float* a, blasint lda, const float* b, blasint ldb, float* c,
                  blasint ldc) {
  blasint i = 0;
  for (; i + kTileRows <= m; i += kTileRows) tile<kTileRows, C>(a + i * lda, lda, b, ldb, c + i * ldc, ldc, k);
  if (i < m) rest_tile<C>(int(m - i), a + i * lda, lda, b, ldb, c + i * ldc, ldc, k);
}

}  // namespace few_rows

// Where the few-row kernel serves c = a @ b: a row-major (m x k), b stored
// (n x k) row-major (the Trans flag), few rows, a k worth vectorising.
constexpr blasint kFewRowsMax = 32;
inline bool few_rows_product(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint k) {
  return ta == CblasNoTrans && tb == CblasTrans && m >= 2 && m <= kFewRowsMax && k >= 32;
}

// c (m x n, row stride ldc) = a (m x k) @ b.T, b stored (n x k).
inline void few_rows_gemm_nt(blasint m, blasint n, blasint k, const float* a, blasint lda, const float* b,
                             blasint ldb, float* c, blasint ldc) {
  using namespace few_rows;
  blasint j = 0;
  for (; j + kTileCols <= n; j += kTileCols)
    column_block<kTileCols>(m, k, a, lda, b + j * ldb, ldb, c + j, ldc);
  for (; j < n; ++j) column_block<1>(m, k, a, lda, b + j * ldb, ldb, c + j, ldc);
}

}  // namespace mfcpu
#endif
