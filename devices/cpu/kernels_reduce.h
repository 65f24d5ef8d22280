// The reduce family's shared machinery: a generic strided reduction engine
// (used by sum, mean, prod, amax, max, var, norms, logsumexp, all/any), a
// row iterator for dim-wise ops (scans, softmax, sort, top-k) and explicit
// SIMD helpers (the float row primitives live in kernels_reduce_simd.cpp).
//
// Reduction engine. x's non-trivial dims split into kept (K) and reduced (R)
// groups, each ordered by decreasing x stride (memory order) so that
// neighbours coalesce. Then one of two strategies, by which kind of dim is
// closest to contiguous in x:
//  - inner: the fastest-varying dim is reduced -> each output folds runs
//    along that dim (Reducer::run, the place for SIMD lanes); parallel over
//    outputs, or over the reduction itself when there are too few outputs.
//  - outer: the fastest-varying dim is kept -> rows of x are folded into an
//    accumulator row of output columns (Reducer::row); parallel over column
//    chunks (and over the reduction when there are too few chunks).
// Partial accumulators are merged in index order, so order-sensitive
// reducers (argmax's "first index") see their inputs in order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {

void register_reduce_minmax_kernels(Registrar& r);
void register_reduce_stats_kernels(Registrar& r);
void register_scan_kernels(Registrar& r);
void register_sort_kernels(Registrar& r);

namespace red {

// A group of dims (kept or reduced), outermost first; strides in elements.
struct DimGroup {
  int n = 0;
  int64_t size[kMaxDims];
  int64_t xs[kMaxDims];  // x strides
  int64_t os[kMaxDims];  // output strides

  int64_t count() const {
    int64_t c = 1;
    for (int i = 0; i < n; ++i) c *= size[i];
    return c;
  }
  int64_t inner_xs() const { return n ? xs[n - 1] : 0; }
  int64_t inner_os() const { return n ? os[n - 1] : 0; }

  // Appends a dim (inner to the previous ones), merged into the previous dim
  // when the pair is linear in both x and out.
  void push(int64_t sz, int64_t x_stride, int64_t o_stride) {
    if (n > 0 && xs[n - 1] == x_stride * sz && os[n - 1] == o_stride * sz) {
      size[n - 1] *= sz;
      xs[n - 1] = x_stride;
      os[n - 1] = o_stride;
      return;
    }
    size[n] = sz;
    xs[n] = x_stride;
    os[n] = o_stride;
    ++n;
  }
};

// Element offsets (x, out) of linear index `lin` within `d`.
inline void offsets_of(const DimGroup& d, int64_t lin, int64_t* xo, int64_t* oo) {
  *xo = *oo = 0;
  for (int i = d.n - 1; i >= 0; --i) {
    const int64_t idx = lin % d.size[i];
    lin /= d.size[i];
    *xo += idx * d.xs[i];
    *oo += idx * d.os[i];
  }
}

// Calls f(x_offset, out_offset, n) for each run along the innermost dim of `d`
// covering linear indices [lo, hi), in order. An empty group is one element.
template <class F>
void for_each_run(const DimGroup& d, int64_t lo, int64_t hi, F&& f) {
  if (lo >= hi) return;
  if (d.n == 0) {
    f(int64_t(0), int64_t(0), int64_t(1));
    return;
  }
  const int last = d.n - 1;
  int64_t idx[kMaxDims];
  int64_t rem = lo;
  for (int i = last; i >= 0; --i) {
    idx[i] = rem % d.size[i];
    rem /= d.size[i];
  }
  int64_t xrow = 0, orow = 0;  // offsets with idx[last] = 0
  for (int i = 0; i < last; ++i) xrow += idx[i] * d.xs[i], orow += idx[i] * d.os[i];
  int64_t left = hi - lo, start = idx[last];
  for (;;) {
    const int64_t n = std::min(d.size[last] - start, left);
    f(xrow + start * d.xs[last], orow + start * d.os[last], n);
    left -= n;
    if (left == 0) return;
    start = 0;
    for (int i = last - 1; i >= 0; --i) {
      xrow += d.xs[i], orow += d.os[i];
      if (++idx[i] < d.size[i]) break;
      xrow -= d.size[i] * d.xs[i], orow -= d.size[i] * d.os[i];
      idx[i] = 0;
    }
  }
}

// Runs body(part, lo, hi) over [0, n) split across threads, when worth it.
// Returns the number of parts (partial results are indexed by part, in order).
// Compiled once (strided.cpp's Note [One copy of each loop body]).
using PartBody = FnRef<int, int64_t, int64_t>;
int split_reduction(int64_t n, int max_parts, PartBody body);

template <class Body>
int split_reduction(int64_t n, int max_parts, Body&& body) {
  return split_reduction(n, max_parts, PartBody::to(body));
}

inline int thread_num() {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Base of a reduction policy D over storage type S with accumulator A.
// D provides:
//   A init() const;                          the empty reduction
//   void add(A&, S x, int64_t i) const;      fold element i (index along R)
//   void merge(A& a, const A& b) const;      b covers indices after a's
//   O finish(const A&, int64_t count) const; the output value (count = |R|)
// and may override the bulk forms below with vectorisable ones, or store()
// for several outputs.
template <class D, class S, class A>
struct ReducerBase {
  using In = S;
  using Acc = A;
  static constexpr int kOutputs = 1;

  const D& self() const { return static_cast<const D&>(*this); }
  // The fold of n elements at `stride` whose first has index i0.
  A run(const S* p, int64_t stride, int64_t n, int64_t i0) const {
    A acc = self().init();
    for (int64_t j = 0; j < n; ++j) self().add(acc, p[j * stride], i0 + j);
    return acc;
  }
  // acc[j] folds p[j * stride] (j < n), all elements at index i.
  void row(A* acc, const S* p, int64_t stride, int64_t n, int64_t i) const {
    for (int64_t j = 0; j < n; ++j) self().add(acc[j], p[j * stride], i);
  }
  void store(char* const* outs, int64_t oo, const A& acc, int64_t count) const {
    using O = decltype(self().finish(acc, count));
    reinterpret_cast<O*>(outs[0])[oo] = self().finish(acc, count);
  }
};

// The fold bodies below are reached from a parallel and a split path; one
// out-of-line copy each keeps the code (and compile time) per reducer small.
#if defined(__GNUC__)
#define MFCPU_NOINLINE __attribute__((noinline))
#else
#define MFCPU_NOINLINE
#endif

template <class Red>
void reduce_inner(const Red& red, const typename Red::In* x, char* const* outs, const DimGroup& K,
                  const DimGroup& R) {
  using A = typename Red::Acc;
  const int64_t nK = K.count(), nR = R.count();
  const int64_t rs = R.inner_xs();
  auto fold = [&](int64_t xbase, int64_t lo, int64_t hi) MFCPU_NOINLINE {
    A acc = red.init();
    int64_t i = lo;
    for_each_run(R, lo, hi, [&](int64_t xo, int64_t, int64_t n) {
      red.merge(acc, red.run(x + xbase + xo, rs, n, i));
      i += n;
    });
    return acc;
  };
  const int threads = partition_width();
  if (nK >= threads || nK * nR < kParallelGrain) {  // parallel over outputs
    parallel_range(nK, nR, [&](int64_t lo, int64_t hi) {
      for_each_run(K, lo, hi, [&](int64_t xo, int64_t oo, int64_t n) {
        for (int64_t j = 0; j < n; ++j) red.store(outs, oo + j * K.inner_os(), fold(xo + j * K.inner_xs(), 0, nR), nR);
      });
    });
    return;
  }
  // Few long reductions (e.g. a full one): split each across threads and
  // merge the partials in order.
  std::vector<A> partial(size_t(threads), red.init());
  for (int64_t k = 0; k < nK; ++k) {
    int64_t xo, oo;
    offsets_of(K, k, &xo, &oo);
    const int parts = split_reduction(nR, threads, [&](int t, int64_t lo, int64_t hi) {
      partial[size_t(t)] = fold(xo, lo, hi);
    });
    A total = partial[0];
    for (int t = 1; t < parts; ++t) red.merge(total, partial[size_t(t)]);
    red.store(outs, oo, total, nR);
  }
}

template <class Red>
void reduce_outer(const Red& red, const typename Red::In* x, char* const* outs, const DimGroup& K,
                  const DimGroup& R) {
  using A = typename Red::Acc;
  DimGroup Ko = K;  // kept dims except the innermost (the columns)
  --Ko.n;
  const int64_t ncols = K.size[K.n - 1], cxs = K.xs[K.n - 1], cos = K.os[K.n - 1];
  const int threads = partition_width();
  // Column chunk per work item: wide enough that each row segment read is
  // long (prefetch/TLB friendly), small enough for the accumulators to stay
  // in L1/L2, and split so that every thread gets a chunk.
  const int64_t per_thread = (ncols + threads - 1) / threads;
  const int64_t max_chunk = std::max<int64_t>(64, int64_t(32768 / sizeof(A)));
  const int64_t chunk = std::min<int64_t>(ncols, std::max<int64_t>(std::min<int64_t>(256, max_chunk),
                                                                   std::min<int64_t>(max_chunk, per_thread)));
  const int64_t nchunks = (ncols + chunk - 1) / chunk;
  const int64_t items = Ko.count() * nchunks, nR = R.count();
  const int64_t rs = R.inner_xs();
  std::vector<A> buffers(size_t(threads) * size_t(chunk));  // one accumulator row per thread

  // acc[0..cn) = fold over reduction indices [lo, hi) of the item's columns.
  auto accumulate = [&](int64_t item, A* acc, int64_t lo, int64_t hi, int64_t* oo, int64_t* cn) MFCPU_NOINLINE {
    int64_t xo;
    offsets_of(Ko, item / nchunks, &xo, oo);
    const int64_t c0 = (item % nchunks) * chunk;
    *cn = std::min(chunk, ncols - c0);
    xo += c0 * cxs;
    *oo += c0 * cos;
    std::fill(acc, acc + *cn, red.init());
    int64_t i = lo;
    for_each_run(R, lo, hi, [&](int64_t xr, int64_t, int64_t n) {
      for (int64_t r = 0; r < n; ++r, ++i) red.row(acc, x + xo + xr + r * rs, cxs, *cn, i);
    });
  };
  auto write = [&](const A* acc, int64_t oo, int64_t cn) {
    for (int64_t j = 0; j < cn; ++j) red.store(outs, oo + j * cos, acc[j], nR);
  };

  if (items >= threads || items * nR * chunk < kParallelGrain) {
    parallel_range(items, nR * chunk, [&](int64_t lo, int64_t hi) {
      A* acc = buffers.data() + size_t(thread_num()) * size_t(chunk);
      for (int64_t item = lo; item < hi; ++item) {
        int64_t oo, cn;
        accumulate(item, acc, 0, nR, &oo, &cn);
        write(acc, oo, cn);
      }
    });
    return;
  }
  // Fewer column chunks than threads but a long reduction: every thread
  // folds a slice of the rows into its own accumulator row; merge in order.
  for (int64_t item = 0; item < items; ++item) {
    int64_t oo = 0, cn = 0;
    const int parts = split_reduction(nR, threads, [&](int t, int64_t lo, int64_t hi) {
      int64_t oo_t, cn_t;
      accumulate(item, buffers.data() + size_t(t) * size_t(chunk), lo, hi, &oo_t, &cn_t);
      if (t == 0) oo = oo_t, cn = cn_t;
    });
    for (int t = 1; t < parts; ++t)
      for (int64_t j = 0; j < cn; ++j) red.merge(buffers[size_t(j)], buffers[size_t(t) * size_t(chunk) + size_t(j)]);
    write(buffers.data(), oo, cn);
  }
}

// The engine's parts that do not depend on the reducer (reduce_engine.cpp).
// split_dims: x's dims of size > 1 into kept (K) and reduced (R) groups, each
// in memory order, neighbours coalesced. output_dims: out's dims of size > 1.
void split_dims(const Operand& x, const Operand& out, DimGroup* K, DimGroup* R);
void output_dims(const Operand& out, DimGroup* K);

// The task of a reduce kernel: ops = outputs (Red::kOutputs, x's rank, 1 on
// reduced dims, equal strides), then x.
template <class Red>
void run_reduce(const Red& red, Task& task) {
  constexpr int NO = Red::kOutputs;
  const Operand& out = task.ops[0];
  const Operand& x = task.ops[NO];
  char* outs[NO];
  for (int k = 0; k < NO; ++k) outs[k] = task.ops[k].data;
  if (numel(x) == 0) {  // every output is the empty reduction
    DimGroup K;
    output_dims(out, &K);
    for_each_run(K, 0, K.count(), [&](int64_t, int64_t oo, int64_t n) {
      for (int64_t j = 0; j < n; ++j) red.store(outs, oo + j * K.inner_os(), red.init(), 0);
    });
    return;
  }
  DimGroup K, R;
  split_dims(x, out, &K, &R);
  const auto* xp = reinterpret_cast<const typename Red::In*>(x.data);
  if (K.n > 0 && (R.n == 0 || K.inner_xs() < R.inner_xs())) reduce_outer(red, xp, outs, K, R);
  else reduce_inner(red, xp, outs, K, R);
}

// Launch-time checks of a reduce call: one input, `outputs` outputs of x's
// rank, each dim equal to x's or 1, all outputs laid out alike; and (when
// single_dim) at most one dim actually reduced, so indices along it are
// well defined.
inline void check_reduce_call(const char* op, const MFKernelCall* call, const LaunchSpec& spec, bool single_dim) {
  check_call(op, call, spec);
  const MFTensorDesc& x = call->inputs[0];
  const MFTensorDesc& out = call->outputs[0];
  if (x.ndim != out.ndim) invalid(op, "outputs must have x's rank");
  int reduced = 0;
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (out.shape[d] != x.shape[d] && out.shape[d] != 1) invalid(op, "outputs must match x or be 1 on every dim");
    reduced += out.shape[d] == 1 && x.shape[d] != 1;
  }
  if (single_dim && reduced > 1) invalid(op, "expected at most one reduced dim");
  for (int k = 1; k < call->num_outputs; ++k) {
    const MFTensorDesc& o = call->outputs[k];
    if (!same_shape(o, out)) invalid(op, "outputs differ in shape");
    for (int32_t d = 0; d < o.ndim; ++d)
      if (o.strides[d] != out.strides[d] && o.shape[d] != 1) invalid(op, "outputs differ in strides");
  }
}

// ------------------------------------------------------------ dim-wise rows

// Rows of dim-wise operands: every operand has the same leading dims; the
// last dim is the op's dim (its length may differ per operand, e.g. top-k).
template <int N>
struct Rows {
  int nd = 0;  // leading dims of size > 1
  int64_t shape[kMaxDims];
  int64_t bstrides[N][kMaxDims];  // bytes
  char* data[N];
  int64_t len[N];     // last-dim length
  int64_t stride[N];  // last-dim stride (elements)
  int64_t count = 1;  // number of rows

  Rows(const Operand* ops, const size_t (&elem_size)[N]) {
    const int lead = ops[0].ndim - 1;
    for (int k = 0; k < N; ++k) {
      data[k] = ops[k].data;
      len[k] = ops[k].shape[lead];
      stride[k] = ops[k].strides[lead];
    }
    for (int d = 0; d < lead; ++d) {
      if (ops[0].shape[d] == 1) continue;
      shape[nd] = ops[0].shape[d];
      for (int k = 0; k < N; ++k) bstrides[k][nd] = ops[k].strides[d] * int64_t(elem_size[k]);
      count *= shape[nd];
      ++nd;
    }
  }

  // Calls f(ptrs) for rows [lo, hi) in order, ptrs[k] pointing at the first
  // element of the row in operand k.
  template <class F>
  void for_rows(int64_t lo, int64_t hi, F&& f) const {
    if (lo >= hi) return;
    int64_t idx[kMaxDims];
    int64_t rem = lo;
    for (int d = nd - 1; d >= 0; --d) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
    }
    char* p[N];
    for (int k = 0; k < N; ++k) {
      p[k] = data[k];
      for (int d = 0; d < nd; ++d) p[k] += idx[d] * bstrides[k][d];
    }
    for (int64_t r = lo; r < hi; ++r) {
      f(static_cast<char* const*>(p));
      for (int d = nd - 1; d >= 0; --d) {  // next row, with carry
        for (int k = 0; k < N; ++k) p[k] += bstrides[k][d];
        if (++idx[d] < shape[d]) break;
        for (int k = 0; k < N; ++k) p[k] -= shape[d] * bstrides[k][d];
        idx[d] = 0;
      }
    }
  }
};

// Launch-time checks of a dim-wise call: every operand has x's rank and its
// leading dims (the last may differ only where `same_last` is false).
inline void check_rows_call(const char* op, const MFKernelCall* call, const LaunchSpec& spec, bool same_last) {
  check_call(op, call, spec);
  const MFTensorDesc& x = call->inputs[0];
  if (x.ndim < 1) invalid(op, "operands must have at least one dim (the op's dim last)");
  for (int k = 0; k < call->num_outputs; ++k) {
    const MFTensorDesc& o = call->outputs[k];
    if (o.ndim != x.ndim) invalid(op, "outputs must have x's rank");
    for (int32_t d = 0; d + 1 < x.ndim; ++d)
      if (o.shape[d] != x.shape[d]) invalid(op, "outputs must match x on the leading dims");
    if (same_last && o.shape[x.ndim - 1] != x.shape[x.ndim - 1]) invalid(op, "outputs must have x's shape");
    if (o.shape[x.ndim - 1] > x.shape[x.ndim - 1]) invalid(op, "outputs longer than x along the dim");
  }
}

// ------------------------------------------------------------ explicit SIMD

// GCC/Clang vector extensions for loops that select on float comparisons
// (max, NaN checks) and for exp: under the default -ftrapping-math the
// auto-vectoriser leaves such loops scalar (an ordered comparison may raise
// FE_INVALID, so it is not if-converted); explicit vectors compare lane-wise
// without branches. 4 floats / 2 doubles is one register of the x86-64
// baseline (SSE2).
namespace simd {
typedef float f4 __attribute__((vector_size(16)));
typedef double d2 __attribute__((vector_size(16)));

inline f4 load(const float* p) {
  f4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, f4 v) { std::memcpy(p, &v, sizeof v); }
inline f4 splat(float x) { return f4{x, x, x, x}; }
inline d2 load(const double* p) {
  d2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(double* p, d2 v) { std::memcpy(p, &v, sizeof v); }
inline d2 splat(double x) { return d2{x, x}; }

// Float row primitives, compiled for AVX-512, AVX2 and the baseline and
// picked once at run time from the CPU's features (kernels_reduce_simd.cpp).
// max_nan/min_nan: the maximum/minimum of n floats, NaN if any is NaN, the
// identity (-inf/+inf) for n = 0.
float max_nan(const float* p, int64_t n);
float min_nan(const float* p, int64_t n);
// exp_sum: sum(exp(p[i] - m)), also stored to out[i] unless out is null.
float exp_sum(const float* p, float m, int64_t n, float* out);
// softmax_row: softmax (or log_softmax) of a contiguous row; o may be x.
void softmax_row(const float* x, float* o, int64_t n, bool log);
// Column forms over b adjacent rows: m[r] = max_nan(m[r], x[r]) (min_nan);
// e = exp(x[r] - m[r]), s[r] += e, o[r] = e unless o is null.
void max_cols(float* m, const float* x, int64_t b);
void min_cols(float* m, const float* x, int64_t b);
void exp_cols(const float* x, const float* m, float* o, float* s, int64_t b);
}  // namespace simd

}  // namespace red
}  // namespace mfcpu
