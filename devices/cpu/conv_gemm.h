// Note [An AVX-512 kernel for the conv GEMMs]
//   conv2d's forward (y = w @ col) and input gradient (col = w^T @ gy) are
//   products of a small matrix (the weight block, at most a few hundred KB)
//   by a wide one (b*L columns) that the kernel has just written itself. The
//   scipy-openblas build may run its 256-bit (Haswell) kernels even where the
//   CPU has 512-bit FMA units (OPENBLAS_CORETYPE=Haswell, or a model it does
//   not know), at ~105 GFLOP/s a core against ~200 for PyTorch's oneDNN
//   convolutions. The AVX-512 build of the plugin therefore does these float32
//   products itself: the small operand is packed once per call in blocks of
//   8 rows ([k][8]), and each 8x32 block of the result is 16 zmm accumulators
//   over the whole inner dimension, reading the wide operand in place (row
//   stride ldb). Every element is one chain of fused multiply-adds in k order
//   (then + c when accumulating), whatever the column split over threads, so
//   results do not depend on the team; they may differ from BLAS's in the last
//   bits, so the other builds (and float64) keep BLAS. The weight gradient
//   gy_g @ col_g^T has both operands contiguous along its long inner
//   dimension: conv_gemm_nt keeps 16 partial sums per result there.
//   Measured at 1 thread (OPENBLAS_CORETYPE=Haswell, AMD family 26), 3x3
//   convolutions of 8x8-16x16 images with 32-64 channels, batch 32-64, with
//   the in-place reads and writes of kernels_conv.cpp: forward, input and
//   weight gradients from ~70-85 GFLOP/s to ~140-175 (oneDNN's: ~200-220).
#pragma once
#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>

#include <algorithm>

namespace mfcpu {

constexpr int64_t kConvMR = 8;   // rows of a result block
constexpr int64_t kConvNR = 32;  // columns of a result block (two zmm)

// ap[(i / 8) * kk * 8 + k * 8 + i % 8] = op(a)[i, k] for i < m (zero rows pad
// m up to a multiple of 8); op(a) = a [m, kk] (row stride lda), or a^T when
// `trans` (a stored [kk, m]).
inline void conv_pack_rows(bool trans, int64_t m, int64_t kk, const float* a, int64_t lda, float* ap) {
  for (int64_t i0 = 0; i0 < m; i0 += kConvMR) {
    float* dst = ap + i0 * kk;
    const int64_t rows = std::min(kConvMR, m - i0);
    for (int64_t k = 0; k < kk; ++k)
      for (int64_t r = 0; r < kConvMR; ++r)
        dst[k * kConvMR + r] = r >= rows ? 0.0f : trans ? a[k * lda + i0 + r] : a[(i0 + r) * lda + k];
  }
}

// The rows of the wide operand of conv_gemm_packed: row k at b + k * ldb,
// the block's columns under masks m0 (and m1).
struct StridedRows {
  const float* b;
  int64_t ldb;
  __mmask16 m0, m1;
  template <bool Wide>
  void next(__m512& b0, __m512& b1) {
    b0 = _mm512_maskz_loadu_ps(m0, b);
    if constexpr (Wide) b1 = _mm512_maskz_loadu_ps(m1, b + 16);
    b += ldb;
  }
};

// Note [Direct reads for shifted planes]
//   In a convolution of stride 1 whose output rows are as wide as the
//   image's (Note [Shifted planes] in kernels_conv.cpp), row (c, tap) of
//   im2col's column matrix is channel c's plane shifted by the tap's offset,
//   zero where the tap falls in the padding. The forward product reads those
//   rows straight from x instead: the load of columns [j, j + 32) of row
//   (c, tap) is x_c + shift[tap] + j under the tap's validity masks (masked
//   lanes read nothing, so addresses past the plane's ends do not fault).
//   The zeros and the order of the k loop are im2col's, so the results are
//   the same bits, without writing and re-reading a 9x copy of x.
struct ShiftedRows {
  const float* x;          // channel c's plane, plus the block's first column j
  int64_t hw;              // plane stride
  const int64_t* shift;    // per tap
  const __mmask16* valid;  // per tap, `chunks` masks of 16 columns, from column j's chunk
  int64_t chunks, taps, t = 0;
  __mmask16 m0, m1;
  template <bool Wide>
  void next(__m512& b0, __m512& b1) {
    const float* row = x + shift[t];
    const __mmask16* v = valid + t * chunks;
    b0 = _mm512_maskz_loadu_ps(__mmask16(m0 & v[0]), row);
    if constexpr (Wide) b1 = _mm512_maskz_loadu_ps(__mmask16(m1 & v[1]), row + 16);
    if (++t == taps) t = 0, x += hw;
  }
};

// One block of conv_gemm_packed: rows [i, i + 8) (those below m stored),
// columns under masks m0 (and m1 for the second 16 when Wide), the rows of
// the wide operand from `rows`: a block of at most 16 columns (a tail, or a
// row of 16 or fewer pixels) does half the work.
template <bool Wide, class Rows>
inline void conv_gemm_block(int64_t m, int64_t i, int64_t kk, const float* a, Rows rows, float* cp, int64_t ldc,
                            __mmask16 m0, __mmask16 m1, const float* bias, bool accumulate) {
  __m512 c00 = _mm512_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
         c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
  for (int64_t k = 0; k < kk; ++k, a += kConvMR) {
    __m512 b0, b1 = c00;
    rows.template next<Wide>(b0, b1);
    __m512 x;
#define MFCPU_CONV_ROW(r)                                    \
  x = _mm512_set1_ps(a[r]);                                  \
  c##r##0 = _mm512_fmadd_ps(x, b0, c##r##0);                 \
  if constexpr (Wide) c##r##1 = _mm512_fmadd_ps(x, b1, c##r##1);
    MFCPU_CONV_ROW(0) MFCPU_CONV_ROW(1) MFCPU_CONV_ROW(2) MFCPU_CONV_ROW(3)
    MFCPU_CONV_ROW(4) MFCPU_CONV_ROW(5) MFCPU_CONV_ROW(6) MFCPU_CONV_ROW(7)
#undef MFCPU_CONV_ROW
  }
  const int64_t rows_here = std::min(kConvMR, m - i);
#define MFCPU_CONV_STORE(r)                                                              \
  if (r < rows_here) {                                                                   \
    float* d = cp + r * ldc;                                                             \
    if (bias) {                                                                          \
      const __m512 bv = _mm512_set1_ps(bias[i + r]);                                     \
      c##r##0 = _mm512_add_ps(c##r##0, bv);                                              \
      if constexpr (Wide) c##r##1 = _mm512_add_ps(c##r##1, bv);                          \
    }                                                                                    \
    if (accumulate) {                                                                    \
      c##r##0 = _mm512_add_ps(c##r##0, _mm512_maskz_loadu_ps(m0, d));                    \
      if constexpr (Wide) c##r##1 = _mm512_add_ps(c##r##1, _mm512_maskz_loadu_ps(m1, d + 16)); \
    }                                                                                    \
    _mm512_mask_storeu_ps(d, m0, c##r##0);                                               \
    if constexpr (Wide) _mm512_mask_storeu_ps(d + 16, m1, c##r##1);                      \
  }
  MFCPU_CONV_STORE(0) MFCPU_CONV_STORE(1) MFCPU_CONV_STORE(2) MFCPU_CONV_STORE(3)
  MFCPU_CONV_STORE(4) MFCPU_CONV_STORE(5) MFCPU_CONV_STORE(6) MFCPU_CONV_STORE(7)
#undef MFCPU_CONV_STORE
}

// Masks of the first nj (<= 32) columns of a block, in two halves.
inline void block_masks(int64_t nj, __mmask16* m0, __mmask16* m1) {
  *m0 = nj >= 16 ? __mmask16(0xffff) : __mmask16((1u << nj) - 1);
  *m1 = nj >= 32 ? __mmask16(0xffff) : nj <= 16 ? __mmask16(0) : __mmask16((1u << (nj - 16)) - 1);
}

// c[m, n] = ap-matrix [m, kk] @ b[kk, n] (+ bias[i] on row i when bias is
// given, then + c when `accumulate`); ap from conv_pack_rows.
inline void conv_gemm_packed(int64_t m, int64_t n, int64_t kk, const float* ap, const float* b, int64_t ldb,
                             float* c, int64_t ldc, const float* bias, bool accumulate) {
  for (int64_t j = 0; j < n; j += kConvNR) {
    __mmask16 m0, m1;
    block_masks(std::min(kConvNR, n - j), &m0, &m1);
    const StridedRows rows{b + j, ldb, m0, m1};
    for (int64_t i = 0; i < m; i += kConvMR) {
      if (m1)
        conv_gemm_block<true>(m, i, kk, ap + i * kk, rows, c + i * ldc + j, ldc, m0, m1, bias, accumulate);
      else
        conv_gemm_block<false>(m, i, kk, ap + i * kk, rows, c + i * ldc + j, ldc, m0, m1, bias, accumulate);
    }
  }
}

// c[m, n] (+ bias) = ap-matrix [m, cg * taps] @ the im2col rows of the cg
// planes at x (stride hw) for output columns [j0, j0 + n), read in place
// (Note [Direct reads for shifted planes]); j0 a multiple of 16, `valid`
// [taps][chunks] the masks of every 16-column chunk of the image.
inline void conv_gemm_shifted(int64_t m, int64_t n, int64_t j0, int64_t cg, int64_t taps, const float* ap,
                              const float* x, int64_t hw, const int64_t* shift, const __mmask16* valid,
                              int64_t chunks, float* c, int64_t ldc, const float* bias) {
  const int64_t kk = cg * taps;
  for (int64_t j = 0; j < n; j += kConvNR) {
    __mmask16 m0, m1;
    block_masks(std::min(kConvNR, n - j), &m0, &m1);
    const ShiftedRows rows{x + j0 + j, hw, shift, valid + (j0 + j) / 16, chunks, taps, 0, m0, m1};
    for (int64_t i = 0; i < m; i += kConvMR) {
      if (m1)
        conv_gemm_block<true>(m, i, kk, ap + i * kk, rows, c + i * ldc + j, ldc, m0, m1, bias, false);
      else
        conv_gemm_block<false>(m, i, kk, ap + i * kk, rows, c + i * ldc + j, ldc, m0, m1, bias, false);
    }
  }
}

// The rows of conv_gemm_nt's right operand: row r at b + r * ldb.
struct NtRows {
  static constexpr bool kMasked = false;
  const float* b;
  int64_t ldb;
  const float* ptr(int64_t r) const { return b + r * ldb; }
  const __mmask16* valid(int64_t) const { return nullptr; }
};

// conv_gemm_nt's right operand as im2col rows read from x in place (Note
// [Direct reads for shifted planes]): row r = (c, tap) of the group is
// channel c's plane shifted by the tap's offset, under the tap's masks.
struct NtShiftedRows {
  static constexpr bool kMasked = true;
  const float* x;  // the group's first channel
  int64_t hw, taps, chunks;
  const int64_t* shift;
  const __mmask16* masks;  // [taps][chunks]
  const float* ptr(int64_t r) const { return x + r / taps * hw + shift[r % taps]; }
  const __mmask16* valid(int64_t r) const { return masks + r % taps * chunks; }
};

// Rows r0.. of another row source.
template <class Rows>
struct OffsetRows {
  static constexpr bool kMasked = Rows::kMasked;
  Rows rows;
  int64_t r0;
  const float* ptr(int64_t r) const { return rows.ptr(r0 + r); }
  const __mmask16* valid(int64_t r) const { return rows.valid(r0 + r); }
};

// c[m, n] += sum over images i < nimg of a_i[m, kk] @ b_i[n, kk]^T, a_i =
// a + i * a_img row-major (row stride lda) and b_i's rows from `rows`,
// moved by b_img per image: the weight gradient sum_i gy_i @ col_i^T,
// whose operands are both contiguous along the inner dimension (an image's
// L pixels), read in place. Each 4x6 block of c is 24 zmm of 16 partial
// sums over all the pixels, reduced at the end.
template <class Rows>
inline void conv_gemm_nt(int64_t m, int64_t n, int64_t kk, int64_t nimg, const float* a, int64_t lda,
                         int64_t a_img, Rows rows, int64_t b_img, float* c, int64_t ldc) {
  constexpr int RM = 4, RN = 6;
  const int64_t kfull = kk / 16 * 16;
  const __mmask16 tail = __mmask16((1u << (kk - kfull)) - 1);
  for (int64_t j0 = 0; j0 < n; j0 += RN)
    for (int64_t i0 = 0; i0 < m; i0 += RM) {
      // Rows past m or n repeat the last one (in bounds); they are not stored.
      const float* ar[RM];
      const float* br[RN];
      const __mmask16* vr[RN];
      for (int r = 0; r < RM; ++r) ar[r] = a + std::min<int64_t>(i0 + r, m - 1) * lda;
      for (int q = 0; q < RN; ++q) {
        br[q] = rows.ptr(std::min<int64_t>(j0 + q, n - 1));
        vr[q] = rows.valid(std::min<int64_t>(j0 + q, n - 1));
      }
      __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00, c10 = c00,
             c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00, c20 = c00, c21 = c00, c22 = c00, c23 = c00,
             c24 = c00, c25 = c00, c30 = c00, c31 = c00, c32 = c00, c33 = c00, c34 = c00, c35 = c00;
      // (Named accumulators, no lambda: an array whose address escapes is kept on the stack.)
#define MFCPU_NT_COL(q, mask, k)                                                                      \
  {                                                                                                   \
    const __mmask16 mq = Rows::kMasked ? __mmask16((mask) & vr[q][(k) / 16]) : __mmask16(mask);      \
    const __m512 bv = _mm512_maskz_loadu_ps(mq, br[q] + k);                                           \
    c0##q = _mm512_fmadd_ps(a0, bv, c0##q);                                                           \
    c1##q = _mm512_fmadd_ps(a1, bv, c1##q);                                                           \
    c2##q = _mm512_fmadd_ps(a2, bv, c2##q);                                                           \
    c3##q = _mm512_fmadd_ps(a3, bv, c3##q);                                                           \
  }
#define MFCPU_NT_STEP(mask, k)                                                                               \
  {                                                                                                          \
    const __m512 a0 = _mm512_maskz_loadu_ps(mask, ar[0] + k), a1 = _mm512_maskz_loadu_ps(mask, ar[1] + k);   \
    const __m512 a2 = _mm512_maskz_loadu_ps(mask, ar[2] + k), a3 = _mm512_maskz_loadu_ps(mask, ar[3] + k);   \
    MFCPU_NT_COL(0, mask, k) MFCPU_NT_COL(1, mask, k) MFCPU_NT_COL(2, mask, k)                               \
    MFCPU_NT_COL(3, mask, k) MFCPU_NT_COL(4, mask, k) MFCPU_NT_COL(5, mask, k)                               \
  }
      for (int64_t img = 0; img < nimg; ++img) {
        for (int64_t k = 0; k < kfull; k += 16) MFCPU_NT_STEP(__mmask16(0xffff), k)
        if (tail) MFCPU_NT_STEP(tail, kfull)
        for (int r = 0; r < RM; ++r) ar[r] += a_img;
        for (int q = 0; q < RN; ++q) br[q] += b_img;
      }
#undef MFCPU_NT_STEP
#undef MFCPU_NT_COL
      const __m512 acc[RM][RN] = {{c00, c01, c02, c03, c04, c05}, {c10, c11, c12, c13, c14, c15},
                                  {c20, c21, c22, c23, c24, c25}, {c30, c31, c32, c33, c34, c35}};
      const int64_t rows = std::min<int64_t>(RM, m - i0), cols = std::min<int64_t>(RN, n - j0);
      for (int r = 0; r < rows; ++r)
        for (int q = 0; q < cols; ++q) c[(i0 + r) * ldc + j0 + q] += _mm512_reduce_add_ps(acc[r][q]);
    }
}

}  // namespace mfcpu
#endif
