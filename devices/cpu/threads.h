// Note [Kernel threads]
//   All kernel parallelism goes through one runtime, OpenMP. OpenBLAS runs
//   single-threaded (its own spinning thread pool fought the OpenMP team for
//   the cores and made both several times slower on a busy machine); large
//   GEMMs are split over the OpenMP team instead (kernels_matmul.cpp).
//   Kernels run on stream worker threads while the Python thread keeps
//   enqueueing. The team is sized to all cores by default: only kernels above
//   kParallelGrain open a parallel region, and the thread that enqueues them
//   is then mostly waiting for their results, so leaving it a core of its own
//   (the former `cores - 1` default) made the large kernels up to 2x slower on
//   a 2-core machine (matmul 1024 at 0.52x PyTorch) while gaining nothing for
//   small ones, which run on the worker alone. That default team is dynamic
//   (omp_set_dynamic: libgomp gives a region at most cores - load average
//   threads): on a machine that other processes keep busy, a fixed team
//   waits at every barrier for a member the scheduler has parked, which
//   measured 86x slower MLP training steps than one thread at load 16 on 2
//   cores. MONOFLOW_NUM_THREADS (or OMP_NUM_THREADS) sets a fixed team.
#pragma once

namespace mfcpu {

// The team size for kernels on a stream worker.
int kernel_threads();
// Called once per stream worker thread before it runs kernels.
void configure_worker_threads();
// Called once when the plugin registers its kernels.
void configure_blas_threads();

}  // namespace mfcpu
