#include "context.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

// The fatbin of kernels.cu, embedded at build time (embed.cmake).
extern "C" const unsigned char mfc_fatbin[];  // monoflow_cuda_kernels.c

namespace mfcuda {

namespace {
thread_local char g_last_error[1024] = "";

struct Devices {
  std::once_flag once[64];
  Device dev[64];
};
Devices& devices() {
  static Devices* d = new Devices();  // never destroyed: streams may outlive exit handlers
  return *d;
}
}  // namespace

void set_last_error(const char* message) noexcept {
  std::snprintf(g_last_error, sizeof g_last_error, "%s", message ? message : "");
}
const char* last_error_message() noexcept { return g_last_error; }

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  const Driver& drv = driver();
  if (drv.cuGetErrorString) drv.cuGetErrorString(r, &s);
  const std::string text = std::string(what) + ": " + (s ? s : "unknown CUDA error") + " (CUresult " +
                           std::to_string(int(r)) + ")";
  switch (r) {
    case CUDA_ERROR_OUT_OF_MEMORY: fail(MF_ERR_OUT_OF_MEMORY, text);
    case CUDA_ERROR_NOT_READY: fail(MF_NOT_READY, text);
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_DEVICE: fail(MF_ERR_INVALID_ARGUMENT, text);
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT: fail(MF_ERR_KERNEL, text);
    default: fail(MF_ERR_INTERNAL, text);
  }
}

Device& device(int32_t index) {
  const Driver& drv = driver();
  if (index < 0 || index >= drv.device_count || index >= 64)
    fail(MF_ERR_INVALID_ARGUMENT, "no such device " + std::to_string(index) + " (" +
                                      std::to_string(drv.device_count) + " device(s))");
  Devices& all = devices();
  Device& d = all.dev[index];
  std::call_once(all.once[index], [&] {
    d.index = index;
    check(drv.cuDeviceGet(&d.dev, index), "cuDeviceGet");
    check(drv.cuDevicePrimaryCtxRetain(&d.ctx, d.dev), "cuDevicePrimaryCtxRetain");
  });
  check(drv.cuCtxSetCurrent(d.ctx), "cuCtxSetCurrent");
  return d;
}

CUfunction function(Device& d, const char* name) {
  const Driver& drv = driver();
  std::call_once(d.module_once, [&] {
    check(drv.cuModuleLoadData(&d.module, mfc_fatbin), "loading the plugin's kernels (cuModuleLoadData)");
    size_t bytes = 0;
    check(drv.cuModuleGetGlobal(&d.error_word, &bytes, d.module, "mfc_error"), "cuModuleGetGlobal(mfc_error)");
  });
  std::lock_guard<std::mutex> lock(d.mu);
  auto it = d.fns.find(name);
  if (it != d.fns.end()) return it->second;
  CUfunction f = nullptr;
  check(drv.cuModuleGetFunction(&f, d.module, name), name);
  d.fns.emplace(name, f);
  return f;
}

namespace {
void launch_grid(Device& d, MFStream stream, const char* name, void* args, unsigned blocks) {
  CUfunction f = function(d, name);
  void* params[] = {args};
  check(driver().cuLaunchKernel(f, blocks, 1, 1, kBlockThreads, 1, 1, 0, native(stream), params, nullptr), name);
}
}  // namespace

void launch(Device& d, MFStream stream, const char* name, void* args, int64_t threads) {
  if (threads <= 0) return;
  const int64_t blocks = std::min<int64_t>((threads + kBlockThreads - 1) / kBlockThreads, 1 << 16);
  launch_grid(d, stream, name, args, unsigned(blocks));
}

void launch_rows(Device& d, MFStream stream, const char* name, void* args, int64_t rows) {
  if (rows <= 0) return;
  launch_grid(d, stream, name, args, unsigned(std::min<int64_t>(rows, 1 << 16)));
}

void* workspace(Device& d, MFStream stream, size_t bytes) {
  const Driver& drv = driver();
  std::lock_guard<std::mutex> lock(d.ws_mu);
  auto& slot = d.ws[native(stream)];
  if (slot.second < bytes) {
    if (slot.first) {
      check(drv.cuStreamSynchronize(native(stream)), "cuStreamSynchronize (growing scratch memory)");
      check(drv.cuMemFree(slot.first), "cuMemFree");
      slot = {0, 0};
    }
    const size_t size = std::max<size_t>(bytes, size_t(1) << 20);
    check(drv.cuMemAlloc(&slot.first, size), "cuMemAlloc (scratch memory)");
    slot.second = size;
  }
  return reinterpret_cast<void*>(slot.first);
}

MFStatus take_kernel_error(Device& d, bool clear) {
  if (!d.module) return MF_OK;  // no kernel ever ran
  const Driver& drv = driver();
  std::lock_guard<std::mutex> lock(d.mu);
  int code = 0;
  check(drv.cuMemcpyDtoH(&code, d.error_word, sizeof code), "reading the kernels' error word");
  if (code == 0) return MF_OK;
  if (clear) {
    int zero = 0;
    check(drv.cuMemcpyHtoD(d.error_word, &zero, sizeof zero), "clearing the kernels' error word");
  }
  if (code == 1) {
    set_last_error("integer division by zero");
    return MF_ERR_ZERO_DIVISION;
  }
  set_last_error("cuda: a kernel met an index out of range");
  return MF_ERR_INVALID_ARGUMENT;
}

}  // namespace mfcuda
