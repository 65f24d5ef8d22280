// matmul: a (..., m, k) @ b (..., k, n) -> out (..., m, n), looping over the
// (already broadcast) batch dims.
//  - float32/float64: OpenBLAS gemm straight on the operands when each matrix
//    is row- or column-major with some leading dimension (transpose flags), a
//    column-major output is handled as out^T = b^T a^T, anything else is
//    packed into a contiguous scratch buffer first.
//  - float16/bfloat16: widen to float scratch, sgemm, round once on store.
//  - integers and bool: a plain i-p-j loop with wrapping accumulation.
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "gemm.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

// OpenBLAS is serial (Note [Kernel threads]): a large product is split by
// rows of c (or columns, when c is wide) into partition_width() slices, each
// a gemm call, which the team's threads share. An element's bits depend on
// where its slice starts (OpenBLAS's edge tiles round differently), so the
// cut is the nominal team's, never the current one's (Note [Results
// independent of the team] in strided.h). In row-major storage a row slice of
// a NoTrans operand starts lo rows in, of a Trans operand lo elements in.

template <class T>
void gemm_threads(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, blasint m, blasint n, blasint k, const T* a,
                  blasint lda, const T* b, blasint ldb, T* c, blasint ldc) {
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const bool by_rows = m >= n;
  const int64_t total = by_rows ? m : n;
  const int64_t parts = std::min<int64_t>(partition_width(), total);
  if (parts <= 1 || flops < kParallelGemmFlops) {
    gemm_call(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  // work_per_item large enough that parallel_range always splits the parts
  parallel_range(parts, kParallelGrain, [&](int64_t first, int64_t last) {
    for (int64_t part = first; part < last; ++part) {
      const int64_t lo = total * part / parts, hi = total * (part + 1) / parts;
      const blasint len = blasint(hi - lo);
      if (by_rows)
        gemm_call(ta, tb, len, n, k, a + (ta == CblasNoTrans ? lo * lda : lo), lda, b, ldb, c + lo * ldc, ldc);
      else
        gemm_call(ta, tb, m, len, k, a, lda, b + (tb == CblasNoTrans ? lo : lo * ldb), ldb, c + lo, ldc);
    }
  });
}

// Reusable scratch buffers, one per packed operand.
template <class T>
struct Scratch {
  std::vector<T> a, b, c;
};

// c = a @ b for T in {float, double}; m, n, k > 0 and below INT_MAX.
template <class T>
void blas_gemm(const Mat<const T>& a, const Mat<const T>& b, const Mat<T>& c, Scratch<T>& s) {
  CBLAS_TRANSPOSE tc;
  blasint ldc;
  if (!blas_view(c, &tc, &ldc)) {  // unusable output layout: compute into scratch, scatter
    s.c.resize(size_t(c.rows * c.cols));
    const Mat<T> tmp{s.c.data(), c.rows, c.cols, c.cols, 1};
    blas_gemm(a, b, tmp, s);
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.cols; ++j) c(i, j) = tmp(i, j);
    return;
  }
  if (tc == CblasTrans) {  // column-major out: out^T = b^T @ a^T is row-major
    blas_gemm(b.transposed(), a.transposed(), c.transposed(), s);
    return;
  }
  CBLAS_TRANSPOSE ta, tb;
  blasint lda, ldb;
  const T* ap = a.p;
  const T* bp = b.p;
  if (!blas_view(a, &ta, &lda)) {
    s.a.resize(size_t(a.rows * a.cols));
    pack(a, s.a.data());
    ap = s.a.data(), ta = CblasNoTrans, lda = blasint(a.cols);
  }
  if (!blas_view(b, &tb, &ldb)) {
    s.b.resize(size_t(b.rows * b.cols));
    pack(b, s.b.data());
    bp = s.b.data(), tb = CblasNoTrans, ldb = blasint(b.cols);
  }
  gemm_threads(ta, tb, blasint(c.rows), blasint(c.cols), blasint(a.cols), ap, lda, bp, ldb, c.p, ldc);
}

// Reference loop for integer/bool types (and huge float dims BLAS can't index):
// row i of c accumulates a(i, p) * b(p, :) in wrapping arithmetic.
template <class S>
void loop_gemm(const Mat<const S>& a, const Mat<const S>& b, const Mat<S>& c) {
  using A = std::conditional_t<is_floating_v<S>, double,
                               std::conditional_t<std::is_same<S, boolean>::value, uint64_t,
                                                  wrap_t<compute_t<S>>>>;
  const int64_t n = c.cols, k = a.cols;
  std::vector<A> rows(size_t(max_threads()) * size_t(n));  // per-thread accumulators
  parallel_range(c.rows, n * k, [&](int64_t lo, int64_t hi) {
#ifdef _OPENMP
    A* acc = rows.data() + size_t(omp_get_thread_num()) * size_t(n);
#else
    A* acc = rows.data();
#endif
    for (int64_t i = lo; i < hi; ++i) {
      std::fill(acc, acc + n, A(0));
      for (int64_t p = 0; p < k; ++p) {
        const A av = A(load(a(i, p)));
        if (av == A(0)) continue;
        const S* brow = &b(p, 0);
        if (b.cs == 1) {
          for (int64_t j = 0; j < n; ++j) acc[j] += av * A(load(brow[j]));
        } else {
          for (int64_t j = 0; j < n; ++j) acc[j] += av * A(load(brow[j * b.cs]));
        }
      }
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (std::is_same<S, boolean>::value) c(i, j) = boolean{uint8_t(acc[j] != 0)};
        else if constexpr (is_floating_v<S>) c(i, j) = cast<S>(acc[j]);
        else c(i, j) = S(acc[j]);  // narrowing keeps the low bits (wrap)
      }
    }
  });
}

template <class S>
void matmul_2d(const Mat<const S>& a, const Mat<const S>& b, const Mat<S>& c,
               Scratch<float>& fs, Scratch<double>& ds) {
  const bool blas_ok = c.rows <= INT_MAX && c.cols <= INT_MAX && a.cols <= INT_MAX;
  if constexpr (std::is_same<S, float>::value) {
    if (blas_ok) return blas_gemm(a, b, c, fs);
  } else if constexpr (std::is_same<S, double>::value) {
    if (blas_ok) return blas_gemm(a, b, c, ds);
  } else if constexpr (std::is_same<S, half>::value || std::is_same<S, bfloat16>::value) {
    if (blas_ok) {
      std::vector<float>& fa = fs.a;
      std::vector<float>& fb = fs.b;
      std::vector<float>& fc = fs.c;
      fa.resize(size_t(a.rows * a.cols));
      fb.resize(size_t(b.rows * b.cols));
      fc.resize(size_t(c.rows * c.cols));
      pack(a, fa.data());
      pack(b, fb.data());
      gemm_call(CblasNoTrans, CblasNoTrans, blasint(c.rows), blasint(c.cols), blasint(a.cols),
                fa.data(), blasint(a.cols), fb.data(), blasint(b.cols), fc.data(),
                blasint(c.cols));
      for (int64_t i = 0; i < c.rows; ++i) {
        const float* src = fc.data() + i * c.cols;
        S* dst = &c(i, 0);
        if (c.cs == 1) {
          for (int64_t j = 0; j < c.cols; ++j) dst[j] = store<S>(src[j]);
        } else {
          for (int64_t j = 0; j < c.cols; ++j) dst[j * c.cs] = store<S>(src[j]);
        }
      }
      return;
    }
  }
  loop_gemm(a, b, c);
}

template <class S>
void run_matmul(Task& task) {
  const Operand &out = task.ops[0], &a = task.ops[1], &b = task.ops[2];
  const int nd = out.ndim, nb = nd - 2;
  const int64_t m = out.shape[nd - 2], n = out.shape[nd - 1], k = a.shape[nd - 1];
  int64_t batches = 1;
  for (int d = 0; d < nb; ++d) batches *= out.shape[d];
  if (batches == 0 || m == 0 || n == 0) return;

  Scratch<float> fs;
  Scratch<double> ds;
  if (batches > 1 && k > 0 && m > 1 && shared_matrix(b, nb) && rows_fold(a, nb) && rows_fold(out, nb)) {
    // Note [One GEMM for a shared right operand]
    const Mat<const S> am{reinterpret_cast<const S*>(a.data), batches * m, k, a.strides[nd - 2], a.strides[nd - 1]};
    const Mat<const S> bm{reinterpret_cast<const S*>(b.data), k, n, b.strides[nd - 2], b.strides[nd - 1]};
    const Mat<S> c{reinterpret_cast<S*>(out.data), batches * m, n, out.strides[nd - 2], out.strides[nd - 1]};
    matmul_2d(am, bm, c, fs, ds);
    return;
  }
  int64_t idx[kMaxDims] = {0};
  for (int64_t t = 0; t < batches; ++t) {
    int64_t ao = 0, bo = 0, oo = 0;
    for (int d = 0; d < nb; ++d)
      ao += idx[d] * a.strides[d], bo += idx[d] * b.strides[d], oo += idx[d] * out.strides[d];
    const Mat<S> c{reinterpret_cast<S*>(out.data) + oo, m, n, out.strides[nd - 2], out.strides[nd - 1]};
    if (k == 0) {  // empty inner dim: out = 0 (BLAS may not write it)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c(i, j) = cast<S>(0);
    } else {
      const Mat<const S> am{reinterpret_cast<const S*>(a.data) + ao, m, k, a.strides[nd - 2],
                            a.strides[nd - 1]};
      const Mat<const S> bm{reinterpret_cast<const S*>(b.data) + bo, k, n, b.strides[nd - 2],
                            b.strides[nd - 1]};
      matmul_2d(am, bm, c, fs, ds);
    }
    for (int d = nb - 1; d >= 0; --d) {  // next batch index
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <class S>
MFStatus launch_matmul(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<S>, {nullptr, nullptr}};
    check_call("matmul", call, spec);
    const MFTensorDesc &a = call->inputs[0], &b = call->inputs[1], &out = call->outputs[0];
    const int32_t nd = out.ndim;
    if (nd < 2 || a.ndim != nd || b.ndim != nd) invalid("matmul", "operands must share a rank >= 2");
    for (int32_t d = 0; d < nd - 2; ++d)
      if (a.shape[d] != out.shape[d] || b.shape[d] != out.shape[d])
        invalid("matmul", "batch dims must be broadcast to out's");
    if (a.shape[nd - 2] != out.shape[nd - 2] || b.shape[nd - 1] != out.shape[nd - 1] ||
        a.shape[nd - 1] != b.shape[nd - 2])
      invalid("matmul", "matrix dims do not line up");
    enqueue_call("matmul", call, spec, &run_matmul<S>);
    return MF_OK;
  });
}

}  // namespace

void register_matmul_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("matmul", dtype_of<S>, dtype_of<S>, &launch_matmul<S>);
  });
}

}  // namespace mfcpu
