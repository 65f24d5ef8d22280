// sum over any set of dims. out has x's rank with size 1 on the reduced dims.
// Floating types accumulate in double, integers and bool in wrapping 64-bit
// (out is int64 for them).
//
// Two strategies, chosen by which kind of dim is closest to contiguous in x:
//  - inner: the fastest-varying dim is reduced -> each output is a (blocked,
//    SIMD) dot-free sum over contiguous runs; parallel over outputs, or over
//    the reduction itself when there are too few outputs (full reductions).
//  - outer: the fastest-varying dim is kept -> rows of x are added into an
//    accumulator row of output columns; parallel over column chunks (and over
//    the reduction when there are too few chunks).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

template <class S>
using acc_t = std::conditional_t<is_floating_v<S>, double, uint64_t>;
template <class S>
using sum_out_t = std::conditional_t<is_floating_v<S>, S, int64_t>;

template <class S>
inline acc_t<S> widen(S x) {
  return acc_t<S>(load(x));  // integers: two's complement into uint64
}

template <class S>
inline sum_out_t<S> finish(acc_t<S> acc) {
  if constexpr (is_floating_v<S>) return cast<S>(acc);
  else return int64_t(acc);
}

// A group of dims (kept or reduced), outermost first; strides in elements.
struct Dims {
  int n = 0;
  int64_t size[kMaxDims];
  int64_t xs[kMaxDims];
  int64_t os[kMaxDims];

  int64_t count() const {
    int64_t c = 1;
    for (int i = 0; i < n; ++i) c *= size[i];
    return c;
  }
  int64_t inner_xs() const { return n ? xs[n - 1] : 0; }
  int64_t inner_os() const { return n ? os[n - 1] : 0; }

  // Appends a dim (inner to the previous ones), merging it into the previous
  // dim when the pair is linear in both x and out.
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
inline void offsets_of(const Dims& d, int64_t lin, int64_t* xo, int64_t* oo) {
  *xo = *oo = 0;
  for (int i = d.n - 1; i >= 0; --i) {
    const int64_t idx = lin % d.size[i];
    lin /= d.size[i];
    *xo += idx * d.xs[i];
    *oo += idx * d.os[i];
  }
}

// Calls f(x_offset, out_offset, n) for each run along the innermost dim of `d`
// covering linear indices [lo, hi). An empty group is a single element.
template <class F>
void for_each_run(const Dims& d, int64_t lo, int64_t hi, F&& f) {
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

// Sum of n elements at stride `stride`. Contiguous runs use 8 independent
// accumulators (vectorised into several SIMD registers, so the adds are not
// one latency-bound chain) over blocks whose partials are then added, which
// also keeps float64 rounding error growth low for long runs.
template <class S>
acc_t<S> sum_run(const S* p, int64_t stride, int64_t n) {
  using A = acc_t<S>;
  A total = 0;
  if (stride == 1) {
    constexpr int64_t kLanes = 8, kBlock = 4096;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t m = std::min(kBlock, n - b);
      const S* q = p + b;
      A lane[kLanes] = {};
      int64_t j = 0;
      for (; j + kLanes <= m; j += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) lane[l] += widen(q[j + l]);
      for (; j < m; ++j) lane[0] += widen(q[j]);
      for (int64_t l = 0; l < kLanes; ++l) total += lane[l];
    }
  } else {
    for (int64_t i = 0; i < n; ++i) total += widen(p[i * stride]);
  }
  return total;
}

// acc[j] += x[j * stride] for j < n.
template <class S>
inline void add_row(acc_t<S>* acc, const S* row, int64_t stride, int64_t n) {
  if (stride == 1) {
    for (int64_t j = 0; j < n; ++j) acc[j] += widen(row[j]);
  } else {
    for (int64_t j = 0; j < n; ++j) acc[j] += widen(row[j * stride]);
  }
}

// Runs body(thread, lo, hi) over [0, n) split across threads, when worth it.
// Returns the number of parts used (partial results are indexed by part).
template <class Body>
int split_reduction(int64_t n, int max_parts, Body&& body) {
#ifdef _OPENMP
  if (max_parts > 1 && n >= 2 && !omp_in_parallel()) {
    int used = 1;
#pragma omp parallel num_threads(max_parts)
    {
      const int nt = omp_get_num_threads(), t = omp_get_thread_num();
      if (t == 0) used = nt;
      const int64_t chunk = (n + nt - 1) / nt;
      const int64_t lo = std::min(n, chunk * t), hi = std::min(n, lo + chunk);
      body(t, lo, hi);  // called even when empty so every partial is initialised
    }
    return used;
  }
#endif
  (void)max_parts;
  body(0, int64_t(0), n);
  return 1;
}

template <class S>
void sum_inner(const S* x, sum_out_t<S>* out, const Dims& K, const Dims& R) {
  using A = acc_t<S>;
  const int64_t nK = K.count(), nR = R.count();
  const int64_t r_stride = R.inner_xs();
  auto reduce = [&](int64_t xbase, int64_t lo, int64_t hi) {
    A acc = 0;
    for_each_run(R, lo, hi, [&](int64_t xo, int64_t, int64_t n) {
      acc += sum_run(x + xbase + xo, r_stride, n);
    });
    return acc;
  };
  const int threads = max_threads();
  if (nK >= threads || nK * nR < kParallelGrain) {  // parallel over outputs
    parallel_range(nK, nR, [&](int64_t lo, int64_t hi) {
      for_each_run(K, lo, hi, [&](int64_t xo, int64_t oo, int64_t n) {
        for (int64_t j = 0; j < n; ++j)
          out[oo + j * K.inner_os()] = finish<S>(reduce(xo + j * K.inner_xs(), 0, nR));
      });
    });
    return;
  }
  // Few long reductions (e.g. a full sum): split each one across threads and
  // add the partials in a fixed order.
  std::vector<A> partial(size_t(threads), A(0));
  for (int64_t k = 0; k < nK; ++k) {
    int64_t xo, oo;
    offsets_of(K, k, &xo, &oo);
    const int parts = split_reduction(nR, threads, [&](int t, int64_t lo, int64_t hi) {
      partial[size_t(t)] = reduce(xo, lo, hi);
    });
    A total = 0;
    for (int t = 0; t < parts; ++t) total += partial[size_t(t)];
    out[oo] = finish<S>(total);
  }
}

template <class S>
void sum_outer(const S* x, sum_out_t<S>* out, const Dims& K, const Dims& R) {
  using A = acc_t<S>;
  Dims Ko = K;  // kept dims except the innermost (the columns)
  --Ko.n;
  const int64_t ncols = K.size[K.n - 1], cxs = K.xs[K.n - 1], cos = K.os[K.n - 1];
  const int threads = max_threads();
  // Column chunk per work item: wide enough that each row segment read is
  // long (prefetch/TLB friendly), small enough for the accumulators to stay
  // in L1/L2 (<= 32 KiB), and split so that every thread gets a chunk.
  const int64_t per_thread = (ncols + threads - 1) / threads;
  const int64_t chunk = std::min<int64_t>(ncols, std::max<int64_t>(256, std::min<int64_t>(4096, per_thread)));
  const int64_t nchunks = (ncols + chunk - 1) / chunk;
  const int64_t items = Ko.count() * nchunks, nR = R.count();
  const int64_t r_stride = R.inner_xs();
  std::vector<A> acc_buffers(size_t(threads) * size_t(chunk));  // one accumulator row per thread

  // acc[0..cn) = sum over reduction indices [lo, hi) of the item's columns.
  auto accumulate = [&](int64_t item, A* acc, int64_t lo, int64_t hi, int64_t* oo, int64_t* cn) {
    int64_t xo;
    offsets_of(Ko, item / nchunks, &xo, oo);
    const int64_t c0 = (item % nchunks) * chunk;
    *cn = std::min(chunk, ncols - c0);
    xo += c0 * cxs;
    *oo += c0 * cos;
    std::fill(acc, acc + *cn, A(0));
    for_each_run(R, lo, hi, [&](int64_t xr, int64_t, int64_t n) {
      for (int64_t i = 0; i < n; ++i) add_row(acc, x + xo + xr + i * r_stride, cxs, *cn);
    });
  };
  auto write = [&](const A* acc, int64_t oo, int64_t cn) {
    for (int64_t j = 0; j < cn; ++j) out[oo + j * cos] = finish<S>(acc[j]);
  };
  auto thread_buffer = [&] {
#ifdef _OPENMP
    return acc_buffers.data() + size_t(omp_get_thread_num()) * size_t(chunk);
#else
    return acc_buffers.data();
#endif
  };

  if (items >= threads || items * nR * chunk < kParallelGrain) {
    parallel_range(items, nR * chunk, [&](int64_t lo, int64_t hi) {
      A* acc = thread_buffer();
      for (int64_t item = lo; item < hi; ++item) {
        int64_t oo, cn;
        accumulate(item, acc, 0, nR, &oo, &cn);
        write(acc, oo, cn);
      }
    });
    return;
  }
  // Fewer column chunks than threads but a long reduction: every thread
  // reduces a slice of the rows into its own accumulator row; add them up.
  for (int64_t item = 0; item < items; ++item) {
    int64_t oo = 0, cn = 0;
    const int parts = split_reduction(nR, threads, [&](int t, int64_t lo, int64_t hi) {
      int64_t oo_t, cn_t;
      accumulate(item, acc_buffers.data() + size_t(t) * size_t(chunk), lo, hi, &oo_t, &cn_t);
      if (t == 0) oo = oo_t, cn = cn_t;
    });
    for (int t = 1; t < parts; ++t)
      for (int64_t j = 0; j < cn; ++j) acc_buffers[size_t(j)] += acc_buffers[size_t(t) * size_t(chunk) + size_t(j)];
    write(acc_buffers.data(), oo, cn);
  }
}

template <class S>
void run_sum(Task& task) {
  using SO = sum_out_t<S>;
  const Operand& out = task.ops[0];
  const Operand& x = task.ops[1];
  if (numel(x) == 0) {  // sum over nothing is 0 (out itself may be non-empty)
    const size_t sizes[1] = {sizeof(SO)};
    FillLoop<SO> loop{cast<SO>(0)};
    run_loop(make_geometry<1>(task.ops, sizes), loop);
    return;
  }
  // Split x's non-trivial dims into kept and reduced, each ordered by
  // decreasing x stride (memory order) so that neighbours coalesce.
  int kept[kMaxDims], reduced[kMaxDims], nk = 0, nr = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if (x.shape[d] == 1) continue;
    (out.shape[d] == 1 ? reduced[nr++] : kept[nk++]) = d;
  }
  auto by_stride = [&](int a, int b) { return x.strides[a] > x.strides[b]; };
  std::stable_sort(kept, kept + nk, by_stride);
  std::stable_sort(reduced, reduced + nr, by_stride);
  Dims K, R;
  for (int i = 0; i < nk; ++i) K.push(x.shape[kept[i]], x.strides[kept[i]], out.strides[kept[i]]);
  for (int i = 0; i < nr; ++i) R.push(x.shape[reduced[i]], x.strides[reduced[i]], 0);

  const S* xp = reinterpret_cast<const S*>(x.data);
  SO* op = reinterpret_cast<SO*>(out.data);
  if (K.n > 0 && (R.n == 0 || K.inner_xs() < R.inner_xs())) sum_outer(xp, op, K, R);
  else sum_inner(xp, op, K, R);
}

template <class S>
MFStatus launch_sum(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<sum_out_t<S>>, {nullptr, nullptr}};
    check_call("sum", call, spec);
    const MFTensorDesc &x = call->inputs[0], &out = call->outputs[0];
    if (x.ndim != out.ndim) invalid("sum", "out must have x's rank");
    for (int32_t d = 0; d < x.ndim; ++d)
      if (out.shape[d] != x.shape[d] && out.shape[d] != 1)
        invalid("sum", "out must match x or be 1 on every dim");
    enqueue_call("sum", call, spec, &run_sum<S>);
    return MF_OK;
  });
}

}  // namespace

void register_reduce_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("sum", dtype_of<S>, dtype_of<sum_out_t<S>>, &launch_sum<S>);
  });
}

}  // namespace mfcpu
