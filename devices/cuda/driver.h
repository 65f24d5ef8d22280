// The CUDA driver API, opened at run time.
//
// Note [The CUDA driver, opened at run time]
//   The plugin links neither libcuda nor libcudart: it dlopen()s
//   "libcuda.so.1" (installed by the NVIDIA driver, never by a wheel) the
//   first time the core asks how many devices there are, and resolves the
//   cu* entry points it uses into this table. On a machine without a driver
//   or without a GPU the open or cuInit fails, device_count() answers 0 and
//   monoflow skips the plugin: a CPU-only install imports and works.
//   The driver API (not the runtime) because it is the one library that is
//   always there with a GPU, it loads our kernels from memory
//   (cuModuleLoadData on the fatbin embedded at build time, see
//   CMakeLists.txt) and it needs no version match with a toolkit.
//   cuda.h is used at build time for the types and signatures only; its
//   macros map names to their current versions (cuMemAlloc -> cuMemAlloc_v2)
//   and MFC_DRIVER_FN resolves exactly those symbols.
#pragma once

#include <cuda.h>

#include <string>

namespace mfcuda {

#define MFC_DRIVER_FNS(X)                                                                              \
  X(cuInit) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                 \
  X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent)          \
  X(cuMemAlloc) X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemcpyHtoDAsync)                  \
  X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpyAsync) X(cuMemcpyDtoH) X(cuMemcpyHtoD) X(cuMemsetD8Async)        \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent)   \
  X(cuEventCreate) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize) X(cuEventDestroy)           \
  X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuLaunchKernel)

struct Driver {
#define MFC_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  MFC_DRIVER_FNS(MFC_DRIVER_MEMBER)
#undef MFC_DRIVER_MEMBER
  int device_count = 0;
  std::string unavailable;  // why device_count is 0 (for diagnostics)
};

// Opens the driver and initialises it once; never throws. device_count is 0
// when anything is missing.
const Driver& driver();

}  // namespace mfcuda
