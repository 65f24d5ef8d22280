// 2-D convolution kernels (conventions: docs/kernels/nn.md): conv2d,
// conv_transpose2d (which is also conv2d's input gradient) and
// conv2d_weight_grad, for float32 and float64 on contiguous NCHW operands.
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
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

// Task::ival carries 4 scalars; the kernels need 7, so pairs share a slot.
inline int64_t pack2(int64_t a, int64_t b) { return (a << 32) | (b & 0xffffffff); }
inline int64_t hi32(int64_t v) { return v >> 32; }
inline int64_t lo32(int64_t v) { return int64_t(int32_t(uint32_t(v & 0xffffffff))); }

// Geometry of a convolution seen from its "input" side x[N,C,H,W] and its
// "output" side y[N,O,OH,OW] with weight [O, C/groups, kh, kw].
struct Geom {
  int64_t N, C, H, W, O, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  int64_t Cg() const { return C / groups; }
  int64_t Og() const { return O / groups; }
  int64_t Kg() const { return Cg() * kh * kw; }
  int64_t K() const { return C * kh * kw; }
  int64_t L() const { return OH * OW; }
  int64_t HW() const { return H * W; }
  // A 1x1 convolution whose image is its own column matrix (no im2col): the
  // spatial sizes must match too (conv_transpose2d's output_padding grows them).
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && ph == 0 && pw == 0 && OH == H && OW == W;
  }
};

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

// Rows (c, ki, kj) of col for images [0, b) of x (image i at column i*L).
template <class T>
void im2col(const Geom& g, const T* x, int64_t b, T* col) {
  const int64_t L = g.L(), ld = b * L, kk = g.kh * g.kw;
  parallel_range(b * g.C, kk * L, [&](int64_t lo_item, int64_t hi_item) {
    for (int64_t item = lo_item; item < hi_item; ++item) {
      const int64_t i = item / g.C, c = item % g.C;
      const T* src = x + (i * g.C + c) * g.HW();
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          T* dst = col + ((c * g.kh + ki) * g.kw + kj) * ld + i * L;
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
            std::fill(d, d + lo, T(0));
            const T* s = src + iy * g.W + offx;
            if (g.sw == 1) {
              std::memcpy(d + lo, s + lo, size_t(hi - lo) * sizeof(T));
            } else {
              for (int64_t ox = lo; ox < hi; ++ox) d[ox] = s[ox * g.sw];
            }
            std::fill(d + hi, d + g.OW, T(0));
          }
        }
    }
  });
}

// The adjoint of im2col: adds col's entries into the images x (which the
// caller has initialised). Items are (image, channel) planes, so no races.
template <class T>
void col2im(const Geom& g, const T* col, int64_t b, T* x) {
  const int64_t L = g.L(), ld = b * L, kk = g.kh * g.kw;
  parallel_range(b * g.C, kk * L, [&](int64_t lo_item, int64_t hi_item) {
    for (int64_t item = lo_item; item < hi_item; ++item) {
      const int64_t i = item / g.C, c = item % g.C;
      T* dst = x + (i * g.C + c) * g.HW();
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const T* src = col + ((c * g.kh + ki) * g.kw + kj) * ld + i * L;
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

// Note [Threads over chunks]
//   OpenBLAS is serial (Note [Kernel threads] in threads.h), so the
//   convolution kernels do all their threading with OpenMP. With several
//   chunks, each thread takes whole chunks (im2col, GEMM, col2im);
//   a single chunk (one big image) splits its GEMMs' columns over the
//   threads instead (par_gemm). body(n0, b, tid) handles images [n0, n0 + b).

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
  const int64_t chunks = ceil_div(N, B);
#ifdef _OPENMP
  if (chunks > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
    const int nt = int(std::min<int64_t>(chunks, omp_get_max_threads()));
#pragma omp parallel num_threads(nt)
    {
      const int64_t tid = omp_get_thread_num(), step = omp_get_num_threads();
      for (int64_t c = tid; c < chunks; c += step) body(c * B, std::min(B, N - c * B), tid);
    }
    return;
  }
#endif
  for (int64_t c = 0; c < chunks; ++c) body(c * B, std::min(B, N - c * B), int64_t(0));
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

// Chunk size: big enough GEMMs, and at least one chunk per thread when N allows.
int64_t pick_chunk(const Geom& g, int64_t min_cols) {
  if (g.pointwise()) return 1;
  int64_t B = chunk_images(g, min_cols, kMaxColElems);
  const int64_t per_thread = ceil_div(g.N, std::max(1, max_threads()));
  return std::max<int64_t>(1, std::min(B, per_thread));
}

// ops: out y[N,O,OH,OW]; x[N,C,H,W], w[O,Cg,kh,kw], (bias[O])
template <class T>
void run_conv2d(Task& t) {
  const Operand &y = t.ops[0], &x = t.ops[1], &w = t.ops[2];
  const T* bias = t.num_operands > 3 ? reinterpret_cast<const T*>(t.ops[3].data) : nullptr;
  const Geom g = make_geom(t, x, y, w);
  const T* xp = reinterpret_cast<const T*>(x.data);
  const T* wp = reinterpret_cast<const T*>(w.data);
  T* yp = reinterpret_cast<T*>(y.data);
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg();
  const bool pw = g.pointwise();
  const int64_t B = pick_chunk(g, kMinCols);
  Scratch<T> sc;
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid) {
    const int64_t cols = b * L;
    const T* cp = xp + n0 * g.C * g.HW();
    if (!pw) {
      T* col = sc.first(tid, g.K() * cols);
      im2col(g, cp, b, col);
      cp = col;
    }
    T* dst = b == 1 ? yp + n0 * g.O * L : sc.second(tid, g.O * cols);
    if (bias) init_rows(dst, g.O, cols, bias);
    for (int64_t gi = 0; gi < g.groups; ++gi)
      par_gemm(CblasNoTrans, CblasNoTrans, Og, cols, Kg, wp + gi * Og * Kg, Kg, cp + gi * Kg * cols, cols,
           bias ? T(1) : T(0), dst + gi * Og * cols, cols);
    if (b > 1) unpack_images(dst, b, g.O, L, yp + n0 * g.O * L);
  });
}

// The adjoint of conv2d in x: ops: out x[N,C,H,W]; y[N,O,OH,OW], w[O,Cg,kh,kw], (bias[C])
template <class T>
void run_conv_transpose2d(Task& t) {
  const Operand &x = t.ops[0], &y = t.ops[1], &w = t.ops[2];
  const T* bias = t.num_operands > 3 ? reinterpret_cast<const T*>(t.ops[3].data) : nullptr;
  const Geom g = make_geom(t, x, y, w);
  T* xp = reinterpret_cast<T*>(x.data);
  const T* wp = reinterpret_cast<const T*>(w.data);
  const T* yp = reinterpret_cast<const T*>(y.data);
  const int64_t L = g.L(), Og = g.Og(), Kg = g.Kg();
  const bool pw = g.pointwise();
  const int64_t B = pick_chunk(g, kMinCols);
  Scratch<T> sc;
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid) {
    const int64_t cols = b * L;
    const T* gp = yp + n0 * g.O * L;
    if (b > 1) {
      T* packed = sc.second(tid, g.O * cols);
      pack_images(gp, b, g.O, L, packed);
      gp = packed;
    }
    T* xi = xp + n0 * g.C * g.HW();
    for (int64_t i = 0; i < b; ++i) init_rows(xi + i * g.C * g.HW(), g.C, g.HW(), bias);
    T* cp = pw ? xi : sc.first(tid, g.K() * cols);
    for (int64_t gi = 0; gi < g.groups; ++gi)
      par_gemm(CblasTrans, CblasNoTrans, Kg, cols, Og, wp + gi * Og * Kg, Kg, gp + gi * Og * cols, cols,
           pw ? T(1) : T(0), cp + gi * Kg * cols, cols);
    if (!pw) col2im(g, cp, b, xi);
  });
}

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
  const bool pw = g.pointwise();
  // The GEMM's inner dim is b*L here: bigger chunks make fewer, deeper GEMMs.
  const int64_t B = pick_chunk(g, 4 * kMinCols);
  std::vector<std::vector<T>> partial(size_t(std::max(1, max_threads())));
  Scratch<T> sc;
  over_chunks(g.N, B, [&](int64_t n0, int64_t b, int64_t tid) {
    std::vector<T>& acc = partial[size_t(tid)];
    if (tid > 0 && acc.empty()) acc.assign(size_t(WN), T(0));
    T* dst = tid == 0 ? wp : acc.data();
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
    int64_t st[2], pd[2], dl[2], groups;
    read_ints(op, call, "stride", 2, st);
    read_ints(op, call, "padding", 2, pd);
    read_ints(op, call, "dilation", 2, dl);
    read_ints(op, call, "groups", 1, &groups);
    for (int k = 0; k < 2; ++k)
      if (st[k] < 1 || pd[k] < 0 || dl[k] < 1 || st[k] > INT_MAX || pd[k] > INT_MAX || dl[k] > INT_MAX)
        invalid(op, "stride and dilation must be positive, padding non-negative");
    // Name the operands by role: x (conv input side), y (conv output side), w.
    const MFTensorDesc *x, *y, *w;
    if (K == Which::Forward) x = &call->inputs[0], w = &call->inputs[1], y = &call->outputs[0];
    else if (K == Which::Transpose) y = &call->inputs[0], w = &call->inputs[1], x = &call->outputs[0];
    else x = &call->inputs[0], y = &call->inputs[1], w = &call->outputs[0];
    if (x->ndim != 4 || y->ndim != 4 || w->ndim != 4) invalid(op, "operands must be 4-D");
    for (int i = 0; i < call->num_inputs; ++i)
      if (!contiguous(call->inputs[i])) invalid(op, "operands must be contiguous");
    if (!contiguous(call->outputs[0])) invalid(op, "operands must be contiguous");
    const int64_t C = x->shape[1], O = y->shape[1];
    if (groups < 1 || C % groups || O % groups || w->shape[0] != O || w->shape[1] * groups != C ||
        x->shape[0] != y->shape[0])
      invalid(op, "channels, groups and weight do not line up");
    // y may be smaller than the convolution of x (conv_transpose2d's
    // output_padding rows); every read of x is bounds-checked anyway.
    for (int k = 0; k < 2; ++k) {
      const int64_t span = dl[k] * (w->shape[2 + k] - 1) + 1;
      const int64_t in = x->shape[2 + k] + 2 * pd[k];
      if (in < span || (in - span) / st[k] + 1 < y->shape[2 + k]) invalid(op, "spatial sizes do not line up");
    }
    if (has_bias && (call->inputs[2].ndim != 1 || call->inputs[2].shape[0] != (K == Which::Forward ? O : C)))
      invalid(op, "bias must be 1-D with one value per output channel");
    // GEMM dims must fit BLAS's int: the column count is bounded by the chunking.
    if (C * w->shape[2] * w->shape[3] > INT_MAX / 4 || y->shape[2] * y->shape[3] > INT_MAX / 4)
      invalid(op, "too large for BLAS");
    Task::Fn fn = K == Which::Forward     ? &run_conv2d<T>
                  : K == Which::Transpose ? &run_conv_transpose2d<T>
                                          : &run_conv2d_weight_grad<T>;
    stream_from_handle(call->stream)->enqueue([&](Task& task) {
      task.fn = fn;
      task.set_operands(call->outputs, call->num_outputs, call->inputs, call->num_inputs);
      task.ival[0] = pack2(st[0], st[1]);
      task.ival[1] = pack2(pd[0], pd[1]);
      task.ival[2] = pack2(dl[0], dl[1]);
      task.ival[3] = groups;
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

void register_conv_kernels(Registrar& r) {
  add_all<float>(r);
  add_all<double>(r);
}

}  // namespace mfcpu
