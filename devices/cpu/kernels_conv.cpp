// 2-D convolution kernels (conventions: docs/kernels/nn.md): conv2d,
// conv_transpose2d (which is also conv2d's input gradient) and
// conv2d_weight_grad, for float32 and float64 on contiguous NCHW operands.
// conv2d's and conv_transpose2d's loops are also the graph's conv_epilogue
// kernel (conv.h, Note [Conv epilogues]).
//
// Note [im2col + GEMM in chunks of images]
//   Each kernel unrolls the receptive fields of a chunk of images into a
//   column matrix col[C*kh*kw, b*L] (L = output pixels per image, image i in
//   columns i*L..), so that a group's convolution is one GEMM with a weight
//   block (rows g*Kg.. of col are exactly group g's channels, so groups are
//   pointer offsets). One image per chunk when L is large (the GEMM writes
//   NCHW output in place); several when L is small, so that the GEMMs stay big
//   enough for BLAS to be efficient, at the price of one packing copy between
//   [O, b*L] and b x [O, L]. A 1x1, stride 1, unpadded kernel needs no col at
//   all: the image itself is the column matrix. Threads: Note [Threads over chunks].
//   The float32 products of the AVX-512 build run in conv_gemm.h's kernels
//   (Note [An AVX-512 kernel for the conv GEMMs]), the others in BLAS; that
//   build's forward of a stride-1 convolution with full-width output rows
//   reads x in place, with no col (Note [Direct reads for shifted planes]),
//   and so do its gradients on small images (kDirectImageElems, kDirectPlaneElems).
#include <cblas.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "conv.h"
#include "conv_gemm.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

using Geom = ConvGeom;  // conv.h

// The geometry of a convolution from its image x, its output y (or y's
// gradient) and its weight (or the weight's gradient), plus the task's
// stride/padding/dilation/groups attributes.
Geom make_geom(const Task& t, const Operand& x, const Operand& y, const Operand& w) {
  return Geom{x.shape[0],     x.shape[1],      x.shape[2],      x.shape[3],
              y.shape[1],     y.shape[2],      y.shape[3],      w.shape[2],
              w.shape[3],     hi32(t.ival[0]), lo32(t.ival[0]), hi32(t.ival[1]),
              lo32(t.ival[1]), hi32(t.ival[2]), lo32(t.ival[2]), t.ival[3]};
}

inline void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), 1.0f, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}
inline void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const double* a,
                 int64_t lda, const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta, tb, blasint(m), blasint(n), blasint(k), 1.0, a, blasint(lda), b,
                    blasint(ldb), beta, c, blasint(ldc));
}

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Output columns [lo, hi) of kernel column kj read inside the image row.
inline void valid_range(int64_t off, int64_t stride, int64_t in, int64_t out, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : std::min(out, ceil_div(-off, stride));
  *hi = in - off <= 0 ? 0 : std::min(out, ceil_div(in - off, stride));
  if (*hi < *lo) *hi = *lo;
}

// Note [Shifted planes]
//   With stride 1 and output rows as wide as the image's (a "same" padded
//   convolution, the common case), row (c, ki, kj) of an image's col is its
//   plane shifted by a fixed offset: one copy from the first valid pixel to
//   the last, then zeros over the padding (the columns that wrapped around
//   between rows, the rows above and below), instead of a copy and two fills
//   per output row (8-32 pixels each in small convnets). col2im adds the
//   same way, after zeroing the wrapped columns of its (scratch) col rows:
//   the added zeros leave x as it was (but for the sign of a zero), and each
//   pixel still receives its terms in the same order.
struct Shifted {
  int64_t ylo, yhi, xlo, xhi;  // valid output rows and columns
  int64_t shift;               // image offset of output pixel 0
  bool empty() const { return ylo >= yhi || xlo >= xhi; }
  int64_t first(int64_t ow) const { return ylo * ow + xlo; }
  int64_t end(int64_t ow) const { return (yhi - 1) * ow + xhi; }
};
inline bool shifted_planes(const Geom& g) { return g.sh == 1 && g.sw == 1 && g.OW == g.W; }
inline Shifted shifted(const Geom& g, int64_t ki, int64_t kj) {
  Shifted p;
  const int64_t offy = ki * g.dh - g.ph, offx = kj * g.dw - g.pw;
  valid_range(offy, 1, g.H, g.OH, &p.ylo, &p.yhi);
  valid_range(offx, 1, g.W, g.OW, &p.xlo, &p.xhi);
  p.shift = offy * g.W + offx;
  return p;
}

// d[0, n) = s[0, n) for the short runs of im2col's rows (4-32 pixels):
// two overlapping vector copies instead of a library call.
template <class T>
inline void copy_run(T* d, const T* s, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (n >= 16 && n <= 32) {
      const __m512 a = _mm512_loadu_ps(s), e = _mm512_loadu_ps(s + n - 16);
      _mm512_storeu_ps(d, a);
      _mm512_storeu_ps(d + n - 16, e);
      return;
    }
    if (n >= 8 && n < 16) {
      const __m256 a = _mm256_loadu_ps(s), e = _mm256_loadu_ps(s + n - 8);
      _mm256_storeu_ps(d, a);
      _mm256_storeu_ps(d + n - 8, e);
      return;
    }
  }
#endif
  std::memcpy(d, s, size_t(n) * sizeof(T));
}

// d[0, n) = s[0, 2n - 1) at even offsets, for stride-2 rows: 16 outputs from
// two (masked) loads and one permute rather than 16 scalar moves, which cost
// as much as a third of a stride-2 convolution's time.
template <class T>
inline void copy_run_stride2(T* d, const T* s, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t i = 0; i < n; i += 16) {
      const int64_t m = std::min<int64_t>(16, n - i), need = 2 * m - 1;  // elements read
      const __mmask16 lo = need >= 16 ? __mmask16(0xffff) : __mmask16((1u << need) - 1);
      const __mmask16 hi = need > 16 ? __mmask16((1u << (need - 16)) - 1) : __mmask16(0);
      const __m512 a = _mm512_maskz_loadu_ps(lo, s + 2 * i), b = _mm512_maskz_loadu_ps(hi, s + 2 * i + 16);
      _mm512_mask_storeu_ps(d + i, __mmask16((1u << m) - 1), _mm512_permutex2var_ps(a, even, b));
    }
    return;
  }
#endif
  for (int64_t i = 0; i < n; ++i) d[i] = s[2 * i];
}

// Rows (c, ki, kj) of col for images [0, b) of x (image i at column i*L).
template <class T>
void im2col(const Geom& g, const T* x, int64_t b, T* col) {
  const int64_t L = g.L(), ld = b * L, kk = g.kh * g.kw;
  const bool shift = shifted_planes(g);
  parallel_range(b * g.C, kk * L, [&](int64_t lo_item, int64_t hi_item) {
    for (int64_t item = lo_item; item < hi_item; ++item) {
      const int64_t i = item / g.C, c = item % g.C;
      const T* src = x + (i * g.C + c) * g.HW();
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          T* dst = col + ((c * g.kh + ki) * g.kw + kj) * ld + i * L;
          if (shift) {  // Note [Shifted planes]
            const Shifted p = shifted(g, ki, kj);
            if (p.empty()) {
              std::fill(dst, dst + L, T(0));
              continue;
            }
            const int64_t p0 = p.first(g.OW), p1 = p.end(g.OW);
            std::fill(dst, dst + p0, T(0));
            std::memcpy(dst + p0, src + p0 + p.shift, size_t(p1 - p0) * sizeof(T));
            std::fill(dst + p1, dst + L, T(0));
            for (int64_t oy = p.ylo; oy + 1 < p.yhi; ++oy)
              std::fill(dst + oy * g.OW + p.xhi, dst + (oy + 1) * g.OW + p.xlo, T(0));
            continue;
          }
          const int64_t offx = kj * g.dw - g.pw;
          int64_t lo, hi;
          valid_range(offx, g.sw, g.W, g.OW, &lo, &hi);
          for (int64_t oy = 0; oy < g.OH; ++oy) {
            T* d = dst + oy * g.OW;
            const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
            if (iy < 0 || iy >= g.H) {
              std::fill(d, d + g.OW, T(0));
              continue;
            }
            if (lo > 0) std::fill(d, d + lo, T(0));
            const T* s = src + iy * g.W + offx;
            if (g.sw == 1) {
              copy_run(d + lo, s + lo, hi - lo);
            } else if (g.sw == 2) {
              copy_run_stride2(d + lo, s + 2 * lo, hi - lo);
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) d[ox] = s[ox * g.sw];
            }
            if (hi < g.OW) std::fill(d + hi, d + g.OW, T(0));
          }
        }
    }
  });
}

// The adjoint of im2col: adds col's entries into the images x (which the
// caller has initialised). Items are (image, channel) planes, so no races.
// col is scratch: Note [Shifted planes] zeroes some of its entries.
template <class T>
void col2im(const Geom& g, T* col, int64_t b, T* x) {
  const int64_t L = g.L(), ld = b * L, kk = g.kh * g.kw;
  const bool shift = shifted_planes(g);
  parallel_range(b * g.C, kk * L, [&](int64_t lo_item, int64_t hi_item) {
    for (int64_t item = lo_item; item < hi_item; ++item) {
      const int64_t i = item / g.C, c = item % g.C;
      T* dst = x + (i * g.C + c) * g.HW();
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          T* src = col + ((c * g.kh + ki) * g.kw + kj) * ld + i * L;
          if (shift) {  // Note [Shifted planes]
            const Shifted p = shifted(g, ki, kj);
            if (p.empty()) continue;
            for (int64_t oy = p.ylo; oy + 1 < p.yhi; ++oy)
              std::fill(src + oy * g.OW + p.xhi, src + (oy + 1) * g.OW + p.xlo, T(0));
            const int64_t p1 = p.end(g.OW);
#pragma omp simd
            for (int64_t q = p.first(g.OW); q < p1; ++q) dst[q + p.shift] += src[q];
            continue;
          }
          const int64_t offx = kj * g.dw - g.pw;
          int64_t lo, hi;
          valid_range(offx, g.sw, g.W, g.OW, &lo, &hi);
          for (int64_t oy = 0; oy < g.OH; ++oy) {
            const int64_t iy = oy * g.sh - g.ph + ki * g.dh;
            if (iy < 0 || iy >= g.H) continue;
            const T* s = src + oy * g.OW;
            T* d = dst + iy * g.W + offx;
            if (g.sw == 1) {
#pragma omp simd
              for (int64_t ox = lo; ox < hi; ++ox) d[ox] += s[ox];
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) d[ox * g.sw] += s[ox];
            }
          }
        }
    }
  });
}

// [b, R, L] images <-> one [R, b*L] matrix.
template <class T>
void pack_images(const T* src, int64_t b, int64_t R, int64_t L, T* dst) {
  parallel_range(b * R, L, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t i = t / R, r = t % R;
      std::memcpy(dst + r * b * L + i * L, src + t * L, size_t(L) * sizeof(T));
    }
  });
}
template <class T>
void unpack_images(const T* src, int64_t b, int64_t R, int64_t L, T* dst) {
  parallel_range(b * R, L, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t i = t / R, r = t % R;
      std::memcpy(dst + t * L, src + r * b * L + i * L, size_t(L) * sizeof(T));
    }
  });
}

// Rows of an [R, n] matrix set to bias[r] (or 0).
template <class T>
void init_rows(T* dst, int64_t R, int64_t n, const T* bias) {
  parallel_range(R, n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) std::fill(dst + r * n, dst + (r + 1) * n, bias ? bias[r] : T(0));
  });
}

// Images per chunk: see Note [im2col + GEMM in chunks of images].
int64_t chunk_images(const Geom& g, int64_t min_cols, int64_t max_elems) {
  const int64_t L = std::max<int64_t>(g.L(), 1);
  if (L >= min_cols) return 1;
  const int64_t by_cols = ceil_div(min_cols, L);
  const int64_t by_mem = std::max<int64_t>(1, max_elems / std::max<int64_t>(1, g.K() * L));
  return std::max<int64_t>(1, std::min({g.N, by_cols, by_mem}));
}

constexpr int64_t kMinCols = 1024;        // GEMM width below which images are batched
constexpr int64_t kMaxColElems = 1 << 22;  // col scratch cap (elements) when batching
constexpr int64_t kCacheColElems = 1 << 16;  // col elements the AVX-512 forward keeps per chunk (256 KB of float)
constexpr int64_t kDirectImageElems = 4096;  // largest image (C*H*W) the weight gradient reads in place
constexpr int64_t kDirectPlaneElems = 256;   // largest plane (H*W) the input gradient reads in place

// Note [Threads over chunks]
//   OpenBLAS is serial (Note [Kernel threads] in threads.h), so the
//   convolution kernels do all their threading with OpenMP. With several
//   chunks, each thread takes whole chunks (im2col, GEMM, col2im);
//   a single chunk (one big image) splits its GEMMs' columns over the
//   threads instead (par_gemm). body(n0, b, tid, slot) handles images [n0, n0 + b).

// Per-thread scratch that survives the chunks of one call (grown, never shrunk).
template <class T>
struct Scratch {
  std::vector<std::vector<T>> a, b;
  Scratch() : a(size_t(std::max(1, max_threads()))), b(size_t(std::max(1, max_threads()))) {}
  T* first(int64_t tid, int64_t n) { return grow(a[size_t(tid)], n); }
  T* second(int64_t tid, int64_t n) { return grow(b[size_t(tid)], n); }
  static T* grow(std::vector<T>& v, int64_t n) {
    if (v.size() < size_t(n)) v.resize(size_t(n));
    return v.data();
  }
};

template <class Body>
void over_chunks(int64_t N, int64_t B, Body&& body) {
  // Chunk c goes to slot c % slots, a fixed count (Note [Results independent
  // of the team] in strided.h): a slot's chunks run in order on one thread,
  // so what a slot accumulates does not depend on the team.
  const int64_t chunks = ceil_div(N, B);
  const int64_t slots = std::max<int64_t>(1, std::min<int64_t>(chunks, partition_width()));
  auto run_slot = [&](int64_t slot, int64_t tid) {
    for (int64_t c = slot; c < chunks; c += slots) body(c * B, std::min(B, N - c * B), tid, slot);
  };
#ifdef _OPENMP
  if (slots > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
    const int nt = int(std::min<int64_t>(slots, omp_get_max_threads()));
    before_parallel_region();
#pragma omp parallel num_threads(nt)
    {
      const int64_t tid = omp_get_thread_num(), step = omp_get_num_threads();
      for (int64_t slot = tid; slot < slots; slot += step) run_slot(slot, tid);
    }
    return;
  }
#endif
  for (int64_t slot = 0; slot < slots; ++slot) run_slot(slot, 0);
}

// c[m, n] = op(a) op(b) + beta c, the n columns split over OpenMP threads
// when not already inside a parallel region (op(b)'s columns are b's columns,
// or b's rows when transposed).
template <class T>
void par_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const int64_t block = 64;  // keeps column blocks aligned to cache lines
  parallel_range(ceil_div(n, block), block * m * k / 64 + 1, [&](int64_t lo, int64_t hi) {
    const int64_t j0 = lo * block, j1 = std::min(n, hi * block);
    const T* bj = tb == CblasNoTrans ? b + j0 : b + j0 * ldb;
    gemm(ta, tb, m, j1 - j0, k, a, lda, bj, ldb, beta, c + j0, ldc);
  });
}

// The weight blocks of every group packed for conv_gemm_packed (Note [An
// AVX-512 kernel for the conv GEMMs]), as the left operand w_g [Og, Kg] or,
// when `trans`, w_g^T [Kg, Og]; empty where BLAS runs the products.
template <class T>
struct PackedWeight {
  std::vector<float> data;
  int64_t stride = 0;  // per group
  PackedWeight(const Geom& g, const T* w, bool trans) {
#if defined(__AVX512F__)
    if constexpr (std::is_same_v<T, float>) {
      const int64_t m = trans ? g.Kg() : g.Og(), kk = trans ? g.Og() : g.Kg();
      stride = ceil_div(m, kConvMR) * kConvMR * kk;
      data.resize(size_t(stride * g.groups));
      for (int64_t gi = 0; gi < g.groups; ++gi)
        conv_pack_rows(trans, m, kk, w + gi * g.Og() * g.Kg(), g.Kg(), data.data() + gi * stride);
    }
#else
    (void)g, (void)w, (void)trans;
#endif
  }
};

// For images i in [0, nimg) of a chunk: c_i [m, L] = op(w_g) @ b_i [k, L]
// (+ bias rows, + c_i when accumulating) with group gi's packed weight, b_i
// at b + i * b_step (row stride ldb) and c_i at c + i * c_step (row stride
// ldc), so that the result lands in NCHW images without a copy. Blocks of
// columns of every image are split over the threads. The AVX-512 float32
// path only (pw.data not empty).
template <class T>
void packed_gemm_images(const PackedWeight<T>& pw, int64_t gi, int64_t m, int64_t k, int64_t nimg, int64_t L,
                        const T* b, int64_t ldb, int64_t b_step, T* c, int64_t ldc, int64_t c_step, const T* bias,
                        bool accumulate) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    const float* ap = pw.data.data() + gi * pw.stride;
    const int64_t block = 64, nb = ceil_div(L, block);
    parallel_range(nimg * nb, block * m * k / 64 + 1, [&](int64_t lo, int64_t hi) {
      for (int64_t t = lo; t < hi; ++t) {
        const int64_t i = t / nb, j0 = t % nb * block;
        conv_gemm_packed(m, std::min(block, L - j0), k, ap, b + i * b_step + j0, ldb, c + i * c_step + j0, ldc,
                         bias, accumulate);
      }
    });
  }
#else
  (void)pw, (void)gi, (void)m, (void)k, (void)nimg, (void)L, (void)b, (void)ldb, (void)b_step, (void)c, (void)ldc,
      (void)c_step, (void)bias, (void)accumulate;
#endif
}

#if defined(__AVX512F__)
// The tap offsets and per-16-column validity masks of a stride-1 convolution
// with full-width output rows (Note [Direct reads for shifted planes] in
// conv_gemm.h): valid[t * chunks + q / 16] bit q % 16 is whether tap t of
// pixel q takes part. Forward: q is an output pixel, the tap reads x at
// q + shift. Transposed (input gradient, from y's side): q is x's pixel,
// reading y at q + shift with the opposite shift.
struct ShiftedTaps {
  std::vector<int64_t> shift;
  std::vector<__mmask16> valid;
  int64_t chunks = 0;
  ShiftedTaps() = default;
  ShiftedTaps(const Geom& g, bool transposed) : chunks(ceil_div(transposed ? g.HW() : g.L(), 16)) {
    const int64_t taps = g.kh * g.kw;
    shift.resize(size_t(taps));
    valid.assign(size_t(taps * chunks), __mmask16(0));
    for (int64_t ki = 0; ki < g.kh; ++ki)
      for (int64_t kj = 0; kj < g.kw; ++kj) {
        const int64_t t = ki * g.kw + kj;
        const Shifted p = shifted(g, ki, kj);
        shift[size_t(t)] = transposed ? -p.shift : p.shift;
        for (int64_t oy = p.ylo; oy < p.yhi; ++oy)
          for (int64_t ox = p.xlo; ox < p.xhi; ++ox) {
            const int64_t q = oy * g.OW + ox + (transposed ? p.shift : 0);
            valid[size_t(t * chunks + q / 16)] |= __mmask16(1u << (q % 16));
          }
      }
  }
};

// conv2d's forward for images [0, nimg) of a chunk from x's planes in place
// (the AVX-512 float32 path, shifted planes): y_i [Og, L] of group gi =
// packed w_g @ the im2col rows of x_i's group channels, + bias. Blocks of
// columns of every image are split over the threads, as packed_gemm_images.
void shifted_gemm_images(const Geom& g, const PackedWeight<float>& pw, const ShiftedTaps& st, int64_t gi,
                         int64_t nimg, const float* x, float* y, const float* bias) {
  const float* ap = pw.data.data() + gi * pw.stride;
  const int64_t L = g.L(), Og = g.Og(), Cg = g.Cg(), taps = g.kh * g.kw;
  const int64_t block = 64, nb = ceil_div(L, block);
  parallel_range(nimg * nb, block * Og * g.Kg() / 64 + 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t i = t / nb, j0 = t % nb * block;
      conv_gemm_shifted(Og, std::min(block, L - j0), j0, Cg, taps, ap, x + (i * g.C + gi * Cg) * g.HW(), g.HW(),
                        st.shift.data(), st.valid.data(), st.chunks, y + (i * g.O + gi * Og) * L + j0, L, bias);
    }
  });
}

// The transpose (input gradient) of a shifted-plane convolution is one
// too, from y's side: x_i[c, p] = sum over (o, tap) of w[o, c, tap] *
// y_i[o, p - shift[tap]], the term present where output pixel p - shift is
// one of the tap's valid pixels. Rows of y are read in place under masks
// over x's pixels (16 per chunk), the weight packed as [Cg, Og * taps]
// rows; each x value is one chain of fused multiply-adds in (o, tap) order
// (im2col's transpose summed over o first, then col2im over the taps).
// Group gi's weight as the [Cg, Og * taps] left operand, packed for conv_gemm_block.
std::vector<float> pack_transposed_weight(const Geom& g, const float* w, int64_t gi) {
  const int64_t Cg = g.Cg(), Og = g.Og(), taps = g.kh * g.kw, kk = Og * taps;
  std::vector<float> ap(size_t(ceil_div(Cg, kConvMR) * kConvMR * kk), 0.0f);
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t o = 0; o < Og; ++o)
      for (int64_t t = 0; t < taps; ++t)
        ap[size_t(c / kConvMR * kk * kConvMR + (o * taps + t) * kConvMR + c % kConvMR)] =
            w[((gi * Og + o) * Cg + c) * taps + t];
  return ap;
}

// x_i (+ bias) for images [0, nimg) of a chunk and group gi: blocks of
// x's columns of every image split over the threads.
void transposed_gemm_images(const Geom& g, const std::vector<float>& ap, const ShiftedTaps& tt, int64_t gi,
                            int64_t nimg, const float* y, float* x, const float* bias) {
  const int64_t HW = g.HW(), L = g.L(), Og = g.Og(), Cg = g.Cg(), taps = g.kh * g.kw;
  const int64_t block = 64, nb = ceil_div(HW, block);
  parallel_range(nimg * nb, block * Cg * Og * taps / 64 + 1, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t i = t / nb, j0 = t % nb * block;
      conv_gemm_shifted(Cg, std::min(block, HW - j0), j0, Og, taps, ap.data(), y + (i * g.O + gi * Og) * L, L,
                        tt.shift.data(), tt.valid.data(), tt.chunks, x + (i * g.C + gi * Cg) * HW + j0, HW, bias);
    }
  });
}
#endif

// Chunk size: big enough GEMMs, and at least one chunk per thread when N allows.
int64_t pick_chunk(const Geom& g, int64_t min_cols) {
  if (g.pointwise()) return 1;
  int64_t B = chunk_images(g, min_cols, kMaxColElems);
  const int64_t per_thread = ceil_div(g.N, partition_width());
  return std::max<int64_t>(1, std::min(B, per_thread));
}

// ops: out y[N,O,OH,OW]; x[N,C,H,W], w[O,Cg,kh,kw], (bias[O])
template <class T>
void run_conv2d(Task& t) {
  const Operand &y = t.ops[0], &x = t.ops[1], &w = t.ops[2];
  const T* bias = t.num_operands > 3 ? reinterpret_cast<const T*>(t.ops[3].data) : nullptr;
  conv2d_forward<T>(make_geom(t, x, y, w), reinterpret_cast<const T*>(x.data), reinterpret_cast<const T*>(w.data),
                    bias, reinterpret_cast<T*>(y.data), nullptr);
}

// The adjoint of conv2d in x: ops: out x[N,C,H,W]; y[N,O,OH,OW], w[O,Cg,kh,kw], (bias[C])
template <class T>
void run_conv_transpose2d(Task& t) {
  const Operand &x = t.ops[0], &y = t.ops[1], &w = t.ops[2];
  const T* bias = t.num_operands > 3 ? reinterpret_cast<const T*>(t.ops[3].data) : nullptr;
  conv_transpose2d_forward<T>(make_geom(t, x, y, w), reinterpret_cast<const T*>(y.data),
                              reinterpret_cast<const T*>(w.data), bias, reinterpret_cast<T*>(x.data), nullptr);
}

#if defined(__AVX512F__)
// conv2d_weight_grad's float32 loop in the AVX-512 build (Note [An AVX-512
// kernel for the conv GEMMs]): per chunk of images and group,
// gw_g += sum_i gy_g,i [Og, L] @ col_g,i^T (conv_gemm_nt, gy read in place);
// slots accumulate as in run_conv2d_weight_grad. wp is zero on entry.
void weight_grad_avx512(const Geom& g, const float* xp, const float* gyp, float* wp) {
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg(), WN = g.O * Kg;
  const bool pw = g.pointwise();
  // Shifted planes are read in place too (Note [Direct reads for shifted planes]),
  // where an image is small: the 4x6 blocks step from image to image, C*H*W
  // apart in x (im2col's col keeps them adjacent); at 64 KB per image (16x16,
  // 64 channels) the in-place reads were 15% slower than im2col.
  const bool direct = !pw && shifted_planes(g) && g.C * g.HW() <= kDirectImageElems;
  const ShiftedTaps st = direct ? ShiftedTaps(g, false) : ShiftedTaps();
  // A 1x1 kernel reads the images in place, so a chunk needs no scratch: one per slot.
  const int64_t B = pw || direct ? ceil_div(g.N, partition_width()) : pick_chunk(g, kMinCols);
  std::vector<std::vector<float>> partial(static_cast<size_t>(partition_width()));  // one per slot, merged in order
  Scratch<float> sc;
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid, int64_t slot) {
    std::vector<float>& acc = partial[size_t(slot)];
    if (slot > 0 && acc.empty()) acc.assign(size_t(WN), 0.0f);
    float* dst = slot == 0 ? wp : acc.data();
    // Row r of image i: col + r * ld + i * L (im2col), or x's image i, channel r.
    const float* cp = xp + n0 * g.C * L;
    int64_t ld = L, img = g.C * L;
    if (!pw && !direct) {
      float* col = sc.first(tid, g.K() * b * L);
      im2col(g, xp + n0 * g.C * g.HW(), b, col);
      cp = col, ld = b * L, img = L;
    }
    const float* gp = gyp + n0 * g.O * L;
    const int64_t taps = g.kh * g.kw;
    for (int64_t gi = 0; gi < g.groups; ++gi)
      // The Kg rows of col split over the threads (a single chunk only).
      parallel_range(ceil_div(Kg, 6), 6 * Og * b * L / 64 + 1, [&](int64_t lo, int64_t hi) {
        const int64_t j0 = lo * 6, j1 = std::min(Kg, hi * 6);
        const float* a = gp + gi * Og * L;
        float* c = dst + gi * Og * Kg + j0;
        if (direct) {
          // rows j0.. of the group's (channel, tap) rows; j0 is a multiple of 6, not of taps
          const NtShiftedRows rows{xp + (n0 * g.C + gi * g.Cg()) * g.HW(), g.HW(), taps, st.chunks,
                                   st.shift.data(), st.valid.data()};
          conv_gemm_nt(Og, j1 - j0, L, b, a, L, g.O * L, OffsetRows<NtShiftedRows>{rows, j0}, g.C * g.HW(), c, Kg);
        } else {
          conv_gemm_nt(Og, j1 - j0, L, b, a, L, g.O * L, NtRows{cp + (gi * Kg + j0) * ld, ld}, img, c, Kg);
        }
      });
  });
  for (size_t k = 1; k < partial.size(); ++k)
    if (!partial[k].empty())
      for (int64_t i = 0; i < WN; ++i) wp[i] += partial[k][size_t(i)];
}
#endif

// ops: out gw[O,Cg,kh,kw]; x[N,C,H,W], gy[N,O,OH,OW]. Each thread sums its
// chunks into its own buffer; the buffers are added at the end.
template <class T>
void run_conv2d_weight_grad(Task& t) {
  const Operand &gw = t.ops[0], &x = t.ops[1], &gy = t.ops[2];
  const Geom g = make_geom(t, x, gy, gw);
  const T* xp = reinterpret_cast<const T*>(x.data);
  const T* gyp = reinterpret_cast<const T*>(gy.data);
  T* wp = reinterpret_cast<T*>(gw.data);
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg(), WN = g.O * Kg;
  std::fill(wp, wp + WN, T(0));
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    weight_grad_avx512(g, xp, gyp, wp);
    return;
  }
#endif
  const bool pw = g.pointwise();
  // The GEMM's inner dim is b*L here: bigger chunks make fewer, deeper GEMMs.
  const int64_t B = pick_chunk(g, 4 * kMinCols);
  std::vector<std::vector<T>> partial(static_cast<size_t>(partition_width()));  // one per slot, merged in order
  Scratch<T> sc;
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid, int64_t slot) {
    std::vector<T>& acc = partial[size_t(slot)];
    if (slot > 0 && acc.empty()) acc.assign(size_t(WN), T(0));
    T* dst = slot == 0 ? wp : acc.data();
    const int64_t cols = b * L;
    const T* cp = xp + n0 * g.C * g.HW();
    if (!pw) {
      T* col = sc.first(tid, g.K() * cols);
      im2col(g, cp, b, col);
      cp = col;
    }
    const T* gp = gyp + n0 * g.O * L;
    if (b > 1) {
      T* packed = sc.second(tid, g.O * cols);
      pack_images(gp, b, g.O, L, packed);
      gp = packed;
    }
    for (int64_t gi = 0; gi < g.groups; ++gi)
      par_gemm(CblasNoTrans, CblasTrans, Og, Kg, cols, gp + gi * Og * cols, cols, cp + gi * Kg * cols, cols, T(1),
           dst + gi * Og * Kg, Kg);
  });
  for (size_t k = 1; k < partial.size(); ++k)
    if (!partial[k].empty())
      for (int64_t i = 0; i < WN; ++i) wp[i] += partial[k][size_t(i)];
}



enum class Which { Forward, Transpose, WeightGrad };

// Validates everything the task relies on to stay in bounds, then enqueues.
template <class T, Which K>
MFStatus launch_conv(const MFKernelCall* call) {
  static constexpr const char* names[] = {"conv2d", "conv_transpose2d", "conv2d_weight_grad"};
  const char* op = names[int(K)];
  return guarded([&] {
    const bool has_bias = K != Which::WeightGrad && call && call->num_inputs == 3;
    const LaunchSpec spec{has_bias ? 3 : 2, 1, dtype_of<T>, dtype_of<T>, {nullptr, nullptr}};
    check_call(op, call, spec);
    const ConvAttrs a = read_conv_attrs(op, call);
    // Name the operands by role: x (conv input side), y (conv output side), w.
    const MFTensorDesc *x, *y, *w;
    if (K == Which::Forward) x = &call->inputs[0], w = &call->inputs[1], y = &call->outputs[0];
    else if (K == Which::Transpose) y = &call->inputs[0], w = &call->inputs[1], x = &call->outputs[0];
    else x = &call->inputs[0], y = &call->inputs[1], w = &call->outputs[0];
    const int64_t bias_len = K == Which::Forward ? y->shape[1] : x->shape[1];
    check_conv_operands(op, a, *x, *y, *w, has_bias ? &call->inputs[2] : nullptr, bias_len);
    Task::Fn fn = K == Which::Forward     ? &run_conv2d<T>
                  : K == Which::Transpose ? &run_conv_transpose2d<T>
                                          : &run_conv2d_weight_grad<T>;
    stream_from_handle(call->stream)->enqueue([&](Task& task) {
      task.fn = fn;
      task.set_kernel_call(call);
      task.ival[0] = pack2(a.stride[0], a.stride[1]);
      task.ival[1] = pack2(a.padding[0], a.padding[1]);
      task.ival[2] = pack2(a.dilation[0], a.dilation[1]);
      task.ival[3] = a.groups;
    });
    return MF_OK;
  });
}

template <class T>
void add_all(Registrar& r) {
  r.add("conv2d", dtype_of<T>, dtype_of<T>, &launch_conv<T, Which::Forward>);
  r.add("conv_transpose2d", dtype_of<T>, dtype_of<T>, &launch_conv<T, Which::Transpose>);
  r.add("conv2d_weight_grad", dtype_of<T>, dtype_of<T>, &launch_conv<T, Which::WeightGrad>);
}

}  // namespace

ConvAttrs read_conv_attrs(const char* op, const MFKernelCall* call) {
  ConvAttrs a;
  read_ints(op, call, "stride", 2, a.stride);
  read_ints(op, call, "padding", 2, a.padding);
  read_ints(op, call, "dilation", 2, a.dilation);
  read_ints(op, call, "groups", 1, &a.groups);
  for (int k = 0; k < 2; ++k)
    if (a.stride[k] < 1 || a.padding[k] < 0 || a.dilation[k] < 1 || a.stride[k] > INT_MAX ||
        a.padding[k] > INT_MAX || a.dilation[k] > INT_MAX)
      invalid(op, "stride and dilation must be positive, padding non-negative");
  if (a.groups < 1 || a.groups > INT_MAX) invalid(op, "channels, groups and weight do not line up");
  return a;
}

void check_conv_operands(const char* op, const ConvAttrs& a, const MFTensorDesc& x, const MFTensorDesc& y,
                         const MFTensorDesc& w, const MFTensorDesc* bias, int64_t bias_len) {
  if (x.ndim != 4 || y.ndim != 4 || w.ndim != 4) invalid(op, "operands must be 4-D");
  if (!contiguous(x) || !contiguous(y) || !contiguous(w) || (bias && !contiguous(*bias)))
    invalid(op, "operands must be contiguous");
  const int64_t C = x.shape[1], O = y.shape[1], groups = a.groups;
  if (groups < 1 || C % groups || O % groups || w.shape[0] != O || w.shape[1] * groups != C ||
      x.shape[0] != y.shape[0])
    invalid(op, "channels, groups and weight do not line up");
  // y may be smaller than the convolution of x (conv_transpose2d's
  // output_padding rows); every read of x is bounds-checked anyway.
  for (int k = 0; k < 2; ++k) {
    const int64_t span = a.dilation[k] * (w.shape[2 + k] - 1) + 1;
    const int64_t in = x.shape[2 + k] + 2 * a.padding[k];
    if (in < span || (in - span) / a.stride[k] + 1 < y.shape[2 + k]) invalid(op, "spatial sizes do not line up");
  }
  if (bias && (bias->ndim != 1 || bias->shape[0] != bias_len))
    invalid(op, "bias must be 1-D with one value per output channel");
  // GEMM dims must fit BLAS's int: the column count is bounded by the chunking.
  if (C * w.shape[2] * w.shape[3] > INT_MAX / 4 || y.shape[2] * y.shape[3] > INT_MAX / 4)
    invalid(op, "too large for BLAS");
}

ConvGeom conv_geom(const ConvAttrs& a, const int64_t* xs, const int64_t* ys, const int64_t* ws) {
  return ConvGeom{xs[0], xs[1], xs[2], xs[3], ys[1], ys[2], ys[3], ws[2], ws[3], a.stride[0], a.stride[1],
                  a.padding[0], a.padding[1], a.dilation[0], a.dilation[1], a.groups};
}

ConvGeom forward_geom(const ConvAttrs& a, const int64_t* xs, const int64_t* ws) {
  ConvGeom g{xs[0], xs[1], xs[2], xs[3], ws[0], 0, 0, ws[2], ws[3], a.stride[0], a.stride[1],
             a.padding[0], a.padding[1], a.dilation[0], a.dilation[1], a.groups};
  g.OH = std::max<int64_t>(0, (g.H + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1);
  g.OW = std::max<int64_t>(0, (g.W + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1);
  return g;
}

// Note [Conv epilogues]
//   The graph's conv_epilogue node (kernels_graph_fused.cpp) runs this very
//   loop (or conv_transpose2d_forward's, below) and post-processes each chunk of images right after its GEMMs (and
//   the unpacking copy) wrote them: the chunk is what one thread just
//   produced, so it is still in cache, and no other thread touches it. A
//   single chunk (one big image, its GEMM columns split over the team) gets
//   its epilogue after the whole chunk, outside any parallel region, so the
//   epilogue can split the work itself.
template <class T>
void conv2d_forward(const ConvGeom& g, const T* xp, const T* wp, const T* bias, T* yp, const ConvEpilogue* epilogue) {
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg();
  const bool pw = g.pointwise();
  Scratch<T> sc;
  const PackedWeight<T> pwt(g, wp, false);
  const bool direct = !pwt.data.empty();  // the AVX-512 kernel writes the images in place, bias included
  // The AVX-512 kernel blocks its columns itself: chunks only need to keep col
  // in the L2 cache between im2col and the product (a stride-2 32x32 layer's
  // 1 MB col of 4 images spent a third of its time in im2col's stores).
  const int64_t B = direct ? std::max<int64_t>(1, std::min(pick_chunk(g, kMinCols), kCacheColElems / std::max<int64_t>(1, g.K() * L)))
                           : pick_chunk(g, kMinCols);
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (direct && !pw && shifted_planes(g)) {  // no im2col: Note [Direct reads for shifted planes]
      const ShiftedTaps st(g, false);
      over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t, int64_t) {
        for (int64_t gi = 0; gi < g.groups; ++gi)
          shifted_gemm_images(g, pwt, st, gi, b, xp + n0 * g.C * g.HW(), yp + n0 * g.O * L,
                              bias ? bias + gi * Og : nullptr);
        if (epilogue) epilogue->apply(epilogue->ctx, n0, b);
      });
      return;
    }
  }
#endif
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid, int64_t) {
    const int64_t cols = b * L;
    const T* cp = xp + n0 * g.C * g.HW();
    if (!pw) {
      T* col = sc.first(tid, g.K() * cols);
      im2col(g, cp, b, col);
      cp = col;
    }
    if (direct) {
      for (int64_t gi = 0; gi < g.groups; ++gi)
        packed_gemm_images(pwt, gi, Og, Kg, b, L, cp + gi * Kg * cols, cols, L, yp + (n0 * g.O + gi * Og) * L, L,
                           g.O * L, bias ? bias + gi * Og : static_cast<const T*>(nullptr), false);
    } else {
      T* dst = b == 1 ? yp + n0 * g.O * L : sc.second(tid, g.O * cols);
      if (bias) init_rows(dst, g.O, cols, bias);
      for (int64_t gi = 0; gi < g.groups; ++gi)
        par_gemm(CblasNoTrans, CblasNoTrans, Og, cols, Kg, wp + gi * Og * Kg, Kg, cp + gi * Kg * cols, cols,
                 bias ? T(1) : T(0), dst + gi * Og * cols, cols);
      if (b > 1) unpack_images(dst, b, g.O, L, yp + n0 * g.O * L);
    }
    if (epilogue) epilogue->apply(epilogue->ctx, n0, b);
  });
}

// Each chunk's images of x are finished after its col2im (nothing else
// writes them): Note [Conv epilogues] applies here too.
template <class T>
void conv_transpose2d_forward(const ConvGeom& g, const T* yp, const T* wp, const T* bias, T* xp,
                              const ConvEpilogue* epilogue) {
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg();
  const bool pw = g.pointwise();
  const int64_t B = pick_chunk(g, kMinCols);
  Scratch<T> sc;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    // No col, no col2im (ShiftedTaps, transposed); its result rows are x's Cg channels,
    // so fewer than a block of 8 would waste most of the kernel's lanes. Its
    // k loop reads Og planes at the same offsets: planes of 4 KB (32x32) alias
    // in the L1 cache's sets and ran 1.7x slower than the col path.
    if (!pw && shifted_planes(g) && g.Cg() >= kConvMR && g.HW() <= kDirectPlaneElems) {
      const ShiftedTaps tt(g, true);
      std::vector<std::vector<float>> ap;
      for (int64_t gi = 0; gi < g.groups; ++gi) ap.push_back(pack_transposed_weight(g, wp, gi));
      over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t, int64_t) {
        for (int64_t gi = 0; gi < g.groups; ++gi)
          transposed_gemm_images(g, ap[size_t(gi)], tt, gi, b, yp + n0 * g.O * L, xp + n0 * g.C * g.HW(),
                                 bias ? bias + gi * g.Cg() : nullptr);
        if (epilogue) epilogue->apply(epilogue->ctx, n0, b);
      });
      return;
    }
  }
#endif
  const PackedWeight<T> pwt(g, wp, true);
  const bool direct = !pwt.data.empty();  // the AVX-512 kernel reads the images of y in place
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid, int64_t) {
    const int64_t cols = b * L;
    T* xi = xp + n0 * g.C * g.HW();
    if (direct) {
      const T* yi = yp + n0 * g.O * L;
      if (pw) {  // x's images are their own column matrices
        for (int64_t gi = 0; gi < g.groups; ++gi)
          packed_gemm_images(pwt, gi, Kg, Og, b, L, yi + gi * Og * L, L, g.O * L, xi + gi * Kg * L, L, g.C * L,
                             bias ? bias + gi * Kg : static_cast<const T*>(nullptr), false);
      } else {
        for (int64_t i = 0; i < b; ++i) init_rows(xi + i * g.C * g.HW(), g.C, g.HW(), bias);
        T* cp = sc.first(tid, g.K() * cols);
        for (int64_t gi = 0; gi < g.groups; ++gi)
          packed_gemm_images(pwt, gi, Kg, Og, b, L, yi + gi * Og * L, L, g.O * L, cp + gi * Kg * cols, cols, L,
                             static_cast<const T*>(nullptr), false);
        col2im(g, cp, b, xi);
      }
      if (epilogue) epilogue->apply(epilogue->ctx, n0, b);
      return;
    }
    const T* gp = yp + n0 * g.O * L;
    if (b > 1) {
      T* packed = sc.second(tid, g.O * cols);
      pack_images(gp, b, g.O, L, packed);
      gp = packed;
    }
    for (int64_t i = 0; i < b; ++i) init_rows(xi + i * g.C * g.HW(), g.C, g.HW(), bias);
    T* cp = pw ? xi : sc.first(tid, g.K() * cols);
    for (int64_t gi = 0; gi < g.groups; ++gi)
      par_gemm(CblasTrans, CblasNoTrans, Kg, cols, Og, wp + gi * Og * Kg, Kg, gp + gi * Og * cols, cols,
               pw ? T(1) : T(0), cp + gi * Kg * cols, cols);
    if (!pw) col2im(g, cp, b, xi);
    if (epilogue) epilogue->apply(epilogue->ctx, n0, b);
  });
}

template void conv2d_forward<float>(const ConvGeom&, const float*, const float*, const float*, float*,
                                    const ConvEpilogue*);
template void conv2d_forward<double>(const ConvGeom&, const double*, const double*, const double*, double*,
                                     const ConvEpilogue*);
template void conv_transpose2d_forward<float>(const ConvGeom&, const float*, const float*, const float*, float*,
                                              const ConvEpilogue*);
template void conv_transpose2d_forward<double>(const ConvGeom&, const double*, const double*, const double*,
                                               double*, const ConvEpilogue*);

void register_conv_kernels(Registrar& r) {
  add_all<float>(r);
  add_all<double>(r);
}

}  // namespace mfcpu
