// The parts of the reduction engine (kernels_reduce.h) that do not depend on
// the reducer, compiled once instead of once per reducer and dtype.
#include <algorithm>

#include "kernels_reduce.h"

namespace mfcpu {
namespace red {
int split_reduction(int64_t n, int max_parts, PartBody body) {
#ifdef _OPENMP
  // Exactly max_parts parts, whatever team the load leaves us: each thread
  // takes parts tid, tid + team, ... (Note [Results independent of the team]).
  if (max_parts > 1 && n >= 2 && !omp_in_parallel()) {
    const int parts = int(std::min<int64_t>(max_parts, n));
    const int64_t chunk = (n + parts - 1) / parts;
    before_parallel_region();
#pragma omp parallel num_threads(parts)
    {
      const int nt = omp_get_num_threads();
      for (int t = omp_get_thread_num(); t < parts; t += nt) {
        const int64_t lo = std::min(n, chunk * t), hi = std::min(n, lo + chunk);
        body(t, lo, hi);  // called even when empty so every partial is initialised
      }
    }
    return parts;
  }
#endif
  (void)max_parts;
  body(0, int64_t(0), n);
  return 1;
}

void split_dims(const Operand& x, const Operand& out, DimGroup* K, DimGroup* R) {
  int kept[kMaxDims], reduced[kMaxDims], nk = 0, nr = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if (x.shape[d] == 1) continue;
    (out.shape[d] == 1 ? reduced[nr++] : kept[nk++]) = d;
  }
  auto by_stride = [&](int a, int b) { return x.strides[a] > x.strides[b]; };
  std::stable_sort(kept, kept + nk, by_stride);
  std::stable_sort(reduced, reduced + nr, by_stride);
  for (int i = 0; i < nk; ++i) K->push(x.shape[kept[i]], x.strides[kept[i]], out.strides[kept[i]]);
  for (int i = 0; i < nr; ++i) R->push(x.shape[reduced[i]], x.strides[reduced[i]], 0);
}

void output_dims(const Operand& out, DimGroup* K) {
  for (int d = 0; d < out.ndim; ++d)
    if (out.shape[d] != 1) K->push(out.shape[d], 0, out.strides[d]);
}

}  // namespace red

}  // namespace mfcpu
