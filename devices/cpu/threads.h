// Note [Kernel threads]
//   All kernel parallelism goes through one runtime, OpenMP. OpenBLAS runs
//   single-threaded (its own spinning thread pool fought the OpenMP team for
//   the cores and made both several times slower on a busy machine); large
//   GEMMs are split over the OpenMP team instead (kernels_matmul.cpp).
//   Kernels run on stream worker threads while the Python thread keeps
//   enqueueing, so by default a worker's team leaves one core to Python:
//   max(1, cores - 1) threads. MONOFLOW_NUM_THREADS (or OMP_NUM_THREADS)
//   overrides that.
#pragma once

namespace mfcpu {

// The team size for kernels on a stream worker.
int kernel_threads();
// Called once per stream worker thread before it runs kernels.
void configure_worker_threads();
// Called once when the plugin registers its kernels.
void configure_blas_threads();

}  // namespace mfcpu
