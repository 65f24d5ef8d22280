// Thread-count policy of the CPU kernels (Note [Kernel threads]).
#include "threads.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
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

// set_num_threads(): 0 until called; bumping the generation tells every
// worker to re-read it (Note [Kernel threads]).
std::atomic<int32_t> g_set_threads{0};
std::atomic<uint32_t> g_generation{0};
thread_local uint32_t t_generation = 0;
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
  if (int v = g_set_threads.load(std::memory_order_relaxed)) return v;
  if (int v = requested_threads()) return v;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void configure_worker_threads() {
  t_generation = g_generation.load(std::memory_order_acquire);
#ifdef _OPENMP
  omp_set_num_threads(kernel_threads());
  // The default team shrinks while other processes keep the cores busy
  // (libgomp: cores - load average), see Note [Kernel threads].
  omp_set_dynamic(requested_threads() == 0 && g_set_threads.load(std::memory_order_relaxed) == 0);
#endif
}

void refresh_worker_threads() {
  if (g_generation.load(std::memory_order_relaxed) != t_generation) configure_worker_threads();
}

bool set_kernel_threads(int32_t n) {
  if (n <= 0) return false;
  g_set_threads.store(n, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_release);
  return true;
}

void configure_blas_threads() { scipy_openblas_set_num_threads(1); }

}  // namespace mfcpu
