// Thread-count policy of the CPU kernels (Note [Kernel threads]).
#include "threads.h"

#include <cblas.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mfcpu {
namespace {
int env_threads(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  int n = std::atoi(v);
  return n > 0 ? n : 0;
}
}  // namespace

// The count the environment asks for; 0 when it asks for none.
static int requested_threads() {
  static const int n = [] {
    if (int v = env_threads("MONOFLOW_NUM_THREADS")) return v;
    return env_threads("OMP_NUM_THREADS");
  }();
  return n;
}

int kernel_threads() {
  if (int v = requested_threads()) return v;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void configure_worker_threads() {
#ifdef _OPENMP
  omp_set_num_threads(kernel_threads());
  // The default team shrinks while other processes keep the cores busy
  // (libgomp: cores - load average), see Note [Kernel threads].
  omp_set_dynamic(requested_threads() == 0);
#endif
}

void configure_blas_threads() { scipy_openblas_set_num_threads(1); }

}  // namespace mfcpu
