// N-d strided iteration shared by the elementwise kernels.
//
// The operands' dims are simplified first (size-1 dims dropped, dims ordered by
// the output's strides, mergeable neighbours coalesced) so a contiguous tensor
// runs as one long inner loop. The driver then hands "runs" along the
// innermost dim to an inner functor, which picks a vectorisable loop when
// strides allow. Big loops are split across OpenMP threads by linear index.
// When an input is contiguous along the second-innermost dim instead (a
// transpose), the last two dims are walked in square tiles so each cache line
// of that input is reused instead of refetched for every output row.
#pragma once

#include <algorithm>
#include <cstdint>

#include "stream.h"
#include "threads.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mfcpu {

// Below this many elements an OpenMP team costs more than it saves.
constexpr int64_t kParallelGrain = 65536;

inline int max_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// Note [Results independent of the team]
//   The team shrinks while other processes load the machine (threads.h), so
//   work whose result depends on how it is cut (partial sums merged in
//   order: long reductions, a convolution's weight gradient) is cut into
//   partition_width() parts, the nominal team (MONOFLOW_NUM_THREADS or set,
//   else all cores), not the current one. The threads present share those
//   parts; the answer is the same bits under any load.
inline int partition_width() { return std::max(1, kernel_threads()); }

inline int64_t numel(const Operand& op) {
  int64_t n = 1;
  for (int d = 0; d < op.ndim; ++d) n *= op.shape[d];
  return n;
}

// Note [One copy of each loop body]
//   parallel_range() and run_loop() are called with a different body for every
//   kernel (op x dtype x layout: thousands of them). Expanded in place, each
//   call put its body into an OpenMP outlined function and a serial path, and
//   run_loop() once more for the tiled walk: four optimised copies of every
//   inner loop, which is what made the kernel files take minutes to compile.
//   Both drivers are therefore compiled once (strided.cpp) and call the body
//   through a function pointer: one indirect call per row or per thread's
//   range, against loops that run for many elements.

// A body called as fn(self, args...) (a type-erased reference to a functor).
template <class... Args>
struct FnRef {
  void (*fn)(void*, Args...);
  void* self;
  void operator()(Args... args) const { fn(self, args...); }

  template <class F>
  static FnRef to(F& f) {
    return FnRef{[](void* p, Args... args) { (*static_cast<F*>(p))(args...); },
                 const_cast<void*>(static_cast<const void*>(&f))};
  }
};
using RangeBody = FnRef<int64_t, int64_t>;
using RowBody = FnRef<char* const*, const int64_t*, int64_t>;

// Splits [0, total) evenly over the threads of a parallel region, or runs it
// inline when total * work_per_item is below kParallelGrain (strided.cpp).
void parallel_range(int64_t total, int64_t work_per_item, RangeBody body);

// body(lo, hi) must not throw.
template <class Body>
void parallel_range(int64_t total, int64_t work_per_item, Body&& body) {
  parallel_range(total, work_per_item, RangeBody::to(body));
}

template <int N>
struct Geometry {
  int ndim = 0;
  int64_t shape[kMaxDims];
  int64_t strides[N][kMaxDims];  // bytes
  int64_t elem[N];                // element sizes (bytes)
  char* data[N];

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
};

// ops[0] is the output; all operands have the output's shape (inputs already
// broadcast with stride 0). Returns a geometry with ndim >= 1.
template <int N>
Geometry<N> make_geometry(const Operand* ops, const size_t (&elem_size)[N]) {
  Geometry<N> g;
  for (int k = 0; k < N; ++k) g.elem[k] = int64_t(elem_size[k]);
  const Operand& out = ops[0];
  int order[kMaxDims];
  int n = 0;
  for (int d = 0; d < out.ndim; ++d) {
    if (out.shape[d] == 0) {  // empty: nothing to iterate
      g.ndim = 1;
      g.shape[0] = 0;
      for (int k = 0; k < N; ++k) g.strides[k][0] = 0, g.data[k] = ops[k].data;
      return g;
    }
    if (out.shape[d] != 1) order[n++] = d;
  }
  // Outermost = largest output stride, so the output is walked in memory order
  // (the identity for a contiguous output). Stable: ties keep logical order.
  std::stable_sort(order, order + n,
                   [&](int a, int b) { return out.strides[a] > out.strides[b]; });
  for (int k = 0; k < N; ++k) g.data[k] = ops[k].data;
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    const int64_t size = out.shape[d];
    if (g.ndim > 0) {  // merge into the previous (outer) dim if linear in every operand
      const int p = g.ndim - 1;
      bool mergeable = true;
      for (int k = 0; k < N; ++k)
        mergeable &= g.strides[k][p] == ops[k].strides[d] * int64_t(elem_size[k]) * size;
      if (mergeable) {
        g.shape[p] *= size;
        for (int k = 0; k < N; ++k) g.strides[k][p] = ops[k].strides[d] * int64_t(elem_size[k]);
        continue;
      }
    }
    g.shape[g.ndim] = size;
    for (int k = 0; k < N; ++k) g.strides[k][g.ndim] = ops[k].strides[d] * int64_t(elem_size[k]);
    ++g.ndim;
  }
  if (g.ndim == 0) {  // a single element
    g.ndim = 1;
    g.shape[0] = 1;
    for (int k = 0; k < N; ++k) g.strides[k][0] = 0;
  }
  return g;
}

extern template Geometry<1> make_geometry<1>(const Operand*, const size_t (&)[1]);
extern template Geometry<2> make_geometry<2>(const Operand*, const size_t (&)[2]);
extern template Geometry<3> make_geometry<3>(const Operand*, const size_t (&)[3]);
extern template Geometry<4> make_geometry<4>(const Operand*, const size_t (&)[4]);

// Calls inner(char* ptrs[N], const int64_t inner_strides[N], int64_t n) for
// every run along the innermost dim covering linear indices [lo, hi).
template <int N, class Inner>
void run_range(const Geometry<N>& g, int64_t lo, int64_t hi, Inner& inner) {
  const int last = g.ndim - 1;
  int64_t idx[kMaxDims];
  char* row[N];  // pointer to element (idx[0..last-1], 0)
  int64_t rem = lo;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % g.shape[d];
    rem /= g.shape[d];
  }
  for (int k = 0; k < N; ++k) {
    row[k] = g.data[k];
    for (int d = 0; d < last; ++d) row[k] += idx[d] * g.strides[k][d];
  }
  int64_t inner_strides[N];
  for (int k = 0; k < N; ++k) inner_strides[k] = g.strides[k][last];
  int64_t left = hi - lo;
  int64_t start = idx[last];
  while (left > 0) {
    const int64_t n = std::min(g.shape[last] - start, left);
    char* p[N];
    for (int k = 0; k < N; ++k) p[k] = row[k] + start * inner_strides[k];
    inner(p, inner_strides, n);
    left -= n;
    if (left == 0) break;
    start = 0;
    for (int d = last - 1; d >= 0; --d) {  // next row, with carry
      for (int k = 0; k < N; ++k) row[k] += g.strides[k][d];
      if (++idx[d] < g.shape[d]) break;
      for (int k = 0; k < N; ++k) row[k] -= g.shape[d] * g.strides[k][d];
      idx[d] = 0;
    }
  }
}

constexpr int64_t kTile = 32;

template <int N>
bool wants_tiling(const Geometry<N>& g) {
  const int last = g.ndim - 1;
  if (last < 1 || g.shape[last] < kTile / 2 || g.shape[last - 1] < kTile / 2) return false;
  for (int k = 0; k < N; ++k) {
    const int64_t inner = g.strides[k][last];
    if (inner != 0 && inner != g.elem[k] && g.strides[k][last - 1] == g.elem[k]) return true;
  }
  return false;
}

// Tiled walk over the last two dims; tiles are the unit of parallel work.
template <int N, class Inner>
void run_tiled(const Geometry<N>& g, Inner& inner) {
  const int last = g.ndim - 1, row_dim = last - 1;
  const int64_t rows = g.shape[row_dim], cols = g.shape[last];
  const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  const int64_t tiles_per_matrix = row_tiles * col_tiles;
  int64_t matrices = 1;
  for (int d = 0; d < row_dim; ++d) matrices *= g.shape[d];
  int64_t inner_strides[N];
  for (int k = 0; k < N; ++k) inner_strides[k] = g.strides[k][last];
  parallel_range(matrices * tiles_per_matrix, kTile * kTile, [&](int64_t lo, int64_t hi) {
    for (int64_t t = lo; t < hi; ++t) {
      int64_t rem = t / tiles_per_matrix;
      const int64_t r0 = (t % tiles_per_matrix) / col_tiles * kTile;
      const int64_t c0 = (t % col_tiles) * kTile;
      char* base[N];
      for (int k = 0; k < N; ++k) base[k] = g.data[k];
      for (int d = row_dim - 1; d >= 0; --d) {  // offset of the matrix
        const int64_t idx = rem % g.shape[d];
        rem /= g.shape[d];
        for (int k = 0; k < N; ++k) base[k] += idx * g.strides[k][d];
      }
      const int64_t r1 = std::min(rows, r0 + kTile), n = std::min(cols - c0, kTile);
      for (int64_t r = r0; r < r1; ++r) {
        char* p[N];
        for (int k = 0; k < N; ++k) p[k] = base[k] + r * g.strides[k][row_dim] + c0 * inner_strides[k];
        inner(p, inner_strides, n);
      }
    }
  });
}

// Walks g calling inner(p, s, n) for each run (tiled when wants_tiling(g),
// split over the threads when large). Compiled once per N (strided.cpp).
template <int N>
void run_loop(const Geometry<N>& g, RowBody inner) {
  if (wants_tiling(g)) return run_tiled(g, inner);
  parallel_range(g.numel(), 1, [&](int64_t lo, int64_t hi) { run_range(g, lo, hi, inner); });
}
extern template void run_loop<1>(const Geometry<1>&, RowBody);
extern template void run_loop<2>(const Geometry<2>&, RowBody);
extern template void run_loop<3>(const Geometry<3>&, RowBody);
extern template void run_loop<4>(const Geometry<4>&, RowBody);

template <int N, class Inner>
void run_loop(const Geometry<N>& g, Inner& inner) {
  run_loop(g, RowBody::to(inner));
}

}  // namespace mfcpu
