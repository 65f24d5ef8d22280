// The strided drivers, compiled once (Note [One copy of each loop body]).
#include "strided.h"

namespace mfcpu {

void parallel_range(int64_t total, int64_t work_per_item, RangeBody body) {
  if (total <= 0) return;
#ifdef _OPENMP
  if (total > 1 && total * work_per_item >= kParallelGrain && omp_get_max_threads() > 1 &&
      !omp_in_parallel()) {
    before_parallel_region();
#pragma omp parallel
    {
      const int64_t nt = omp_get_num_threads();
      const int64_t chunk = (total + nt - 1) / nt;
      const int64_t lo = std::min(total, chunk * omp_get_thread_num());
      const int64_t hi = std::min(total, lo + chunk);
      if (lo < hi) body(lo, hi);
    }
    return;
  }
#endif
  body(int64_t(0), total);
}

template Geometry<1> make_geometry<1>(const Operand*, const size_t (&)[1]);
template Geometry<2> make_geometry<2>(const Operand*, const size_t (&)[2]);
template Geometry<3> make_geometry<3>(const Operand*, const size_t (&)[3]);
template Geometry<4> make_geometry<4>(const Operand*, const size_t (&)[4]);
template void run_loop<1>(const Geometry<1>&, RowBody);
template void run_loop<2>(const Geometry<2>&, RowBody);
template void run_loop<3>(const Geometry<3>&, RowBody);
template void run_loop<4>(const Geometry<4>&, RowBody);

}  // namespace mfcpu
