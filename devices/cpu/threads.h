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
//   small ones, which run on the worker alone. The default team shrinks while
//   other processes keep the cores busy: on a loaded machine a fixed team
//   waits at every barrier for a member the scheduler has parked, which
//   measured 86x slower MLP training steps than one thread at load 16 on 2
//   cores. The team is the cores less the threads of OTHER processes that are
//   runnable now (the system's procs_running less this process's own running
//   threads, sampled every 200 ms and smoothed). libgomp's omp_set_dynamic,
//   used before, subtracts the 15-minute load average instead, and that
//   counts monoflow itself: a training run, or a benchmark beside torch,
//   drove its own average up and then ran single-threaded (matmul 1024 at
//   0.63x torch at 2 threads each, large reductions at 0.3-0.5x).
//   MONOFLOW_NUM_THREADS (or OMP_NUM_THREADS) sets a fixed team, and
//   so does set_num_threads() at run time (flow.set_num_threads): OpenMP's
//   team size is a per-thread setting, so each stream worker re-reads the
//   request before its next kernel (refresh_worker_threads) instead of the
//   caller reaching into threads it does not own.
#pragma once

#include <cstdint>

namespace mfcpu {

// The team size for kernels on a stream worker.
int kernel_threads();
// Called once per stream worker thread before it runs kernels.
void configure_worker_threads();
// Called by a stream worker before each task: applies a set_num_threads()
// made since the worker last configured itself. One relaxed load when none was.
void refresh_worker_threads();
// Fixes the team at n > 0 threads for kernels enqueued from now on; false
// (and nothing changed) for n <= 0 or above max(1024, 4 per core).
bool set_kernel_threads(int32_t n);
// Called once when the plugin registers its kernels.
void configure_blas_threads();
// Called right before a kernel opens an OpenMP parallel region (Note [A preemption
// point before each parallel region]).
void before_parallel_region();

}  // namespace mfcpu
