// Per-device state: the primary context, the kernels' module, the cuBLAS
// handle and the word through which kernels report errors.
//
// Note [Contexts and streams]
//   Each device is driven through its primary context (the one the CUDA
//   runtime, cuBLAS and NCCL use too, so device pointers and streams are
//   shared with them), made current on the calling thread at every entry
//   point: the core calls from any thread. An MFStream is a CUstream created
//   non-blocking (no implicit sync with the legacy default stream, so the
//   plugin's own synchronous reads never wait for other streams' work); an
//   MFEvent is a CUevent without timing. A NULL MFStream means the legacy
//   default stream.
//
// Note [Asynchronous kernel errors]
//   Two kinds of failures happen after a launch returned. The driver's own
//   (an illegal address, a trap) make the context unusable: every later call
//   fails, and stream_synchronize reports cuGetErrorString's text as
//   MF_ERR_KERNEL. Failures a kernel detects itself (integer division by zero,
//   an index out of range) are written by the kernel into the module's
//   `mfc_error` word (first one wins); stream_synchronize reads it after the
//   stream drained and clears it, stream_query reports it without clearing,
//   as plugin.h asks. The word is per device, not per stream: such an error
//   surfaces at the next synchronize of any stream of that device.
#pragma once

#include <cuda.h>
#include <monoflow/plugin.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cublas.h"
#include "driver.h"
#include "error.h"

namespace mfcuda {

struct Device {
  int32_t index = 0;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  std::once_flag module_once;
  CUmodule module = nullptr;
  CUdeviceptr error_word = 0;
  std::mutex mu;  // guards fns and the error word's read-and-clear
  std::unordered_map<std::string, CUfunction> fns;
  std::mutex blas_mu;  // one handle per device, its stream set per call
  cublasHandle_t blas = nullptr;
  bool blas_failed = false;
  std::mutex ws_mu;  // scratch memory per stream (im2col columns)
  std::unordered_map<CUstream, std::pair<CUdeviceptr, size_t>> ws;
};

// Validates `index`, retains the primary context once and makes it current.
Device& device(int32_t index);

// The kernel `name` of the embedded module (loaded on first use).
CUfunction function(Device& d, const char* name);

// Launches `name` with one by-value struct argument, over `threads` items
// with blocks of kBlockThreads (grid-stride loops: the grid is capped).
constexpr int kBlockThreads = 256;
void launch(Device& d, MFStream stream, const char* name, void* args, int64_t threads);
// One block per row (reductions, softmax).
void launch_rows(Device& d, MFStream stream, const char* name, void* args, int64_t rows);

// At least `bytes` of scratch device memory for work enqueued on `stream`.
// Note [Scratch memory]: one buffer per stream, reused by every launch on that
// stream (so stream order protects it); growing it waits for the stream
// before freeing the old buffer. It lives outside the core's caching
// allocator, which neither counts it nor frees it on OOM: kernels cap their
// chunks (conv: 256 MiB of columns).
void* workspace(Device& d, MFStream stream, size_t bytes);

// MF_OK, or the error a kernel raised on this device since it was cleared.
MFStatus take_kernel_error(Device& d, bool clear);

inline CUstream native(MFStream s) { return reinterpret_cast<CUstream>(s); }

}  // namespace mfcuda
