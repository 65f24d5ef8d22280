// The MFDevicePlugin table of the "cuda" device: real device pointers (Note
// [Device addresses] in plugin.h: nothing to translate), copies and memsets
// on the stream, streams and events as the driver's. Every entry point is
// noexcept and reports failures as MFStatus plus a thread-local message.
//
// Note [Pinned host memory]
//   The ABI has no entry for host allocations, so `pin_memory()` cannot reach
//   cuMemAllocHost yet (Tensor.pin_memory returns a copy in ordinary memory
//   and is_pinned() is False). Host-to-device copies from pageable memory are
//   still correct:
//   the driver stages them, and the core keeps host buffers alive until the
//   stream reached the copy. Wiring it needs two appended, optional entries
//   (host_allocate/host_deallocate, ABI 1.3) and a pinned host allocator in
//   the core; driver.h already resolves cuMemAllocHost/cuMemFreeHost.
#include <monoflow/plugin.h>

#include <cstdio>
#include <cstring>

#include "context.h"

namespace mfcuda {

void register_elementwise_kernels(const MFHostApi* host);  // kernels_elementwise.cpp
void register_reduce_kernels(const MFHostApi* host);       // kernels_reduce.cpp
void register_matmul_kernels(const MFHostApi* host);       // kernels_matmul.cpp
void register_index_kernels(const MFHostApi* host);        // kernels_index.cpp
void register_update_kernels(const MFHostApi* host);       // kernels_update.cpp
void register_conv_kernels(const MFHostApi* host);         // kernels_conv.cpp
void register_pool_kernels(const MFHostApi* host);         // kernels_pool.cpp

namespace {

const char* last_error() noexcept { return last_error_message(); }

int32_t device_count() noexcept {
  try {
    return int32_t(driver().device_count);
  } catch (...) {
    return 0;
  }
}

MFStatus get_properties(int32_t index, MFDeviceProperties* out) noexcept {
  return guarded([&] {
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "get_properties: out is NULL");
    Device& d = device(index);
    const Driver& drv = driver();
    if (MF_HAS_FIELD(out, MFDeviceProperties, name))
      check(drv.cuDeviceGetName(out->name, int(sizeof out->name), d.dev), "cuDeviceGetName");
    if (MF_HAS_FIELD(out, MFDeviceProperties, total_memory)) {
      size_t bytes = 0;
      check(drv.cuDeviceTotalMem(&bytes, d.dev), "cuDeviceTotalMem");
      out->total_memory = bytes;
    }
    if (MF_HAS_FIELD(out, MFDeviceProperties, multiprocessor_count)) {
      int sms = 0;
      check(drv.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.dev), "cuDeviceGetAttribute");
      out->multiprocessor_count = sms;
    }
    return MF_OK;
  });
}

// ------------------------------------------------------------ memory

MFStatus allocate(int32_t index, size_t nbytes, void** out) noexcept {
  return guarded([&] {
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "allocate: out is NULL");
    *out = nullptr;
    device(index);
    CUdeviceptr p = 0;
    // 0 bytes still gets a unique pointer the core can free (cuMemAlloc refuses 0).
    const CUresult r = driver().cuMemAlloc(&p, nbytes ? nbytes : 1);
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
      fail(MF_ERR_OUT_OF_MEMORY, "out of memory allocating " + std::to_string(nbytes) + " bytes on cuda:" +
                                     std::to_string(index));
    check(r, "cuMemAlloc");
    *out = reinterpret_cast<void*>(p);
    return MF_OK;
  });
}

MFStatus deallocate(int32_t index, void* ptr) noexcept {
  return guarded([&] {
    device(index);
    if (ptr) check(driver().cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
    return MF_OK;
  });
}

CUdeviceptr dptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

MFStatus memcpy_h2d(int32_t index, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return guarded([&] {
    device(index);
    if (n == 0) return MF_OK;
    if (!dst || !src) fail(MF_ERR_INVALID_ARGUMENT, "memcpy_h2d: NULL pointer");
    check(driver().cuMemcpyHtoDAsync(dptr(dst), src, n, native(s)), "cuMemcpyHtoDAsync");
    return MF_OK;
  });
}

MFStatus memcpy_d2h(int32_t index, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return guarded([&] {
    device(index);
    if (n == 0) return MF_OK;
    if (!dst || !src) fail(MF_ERR_INVALID_ARGUMENT, "memcpy_d2h: NULL pointer");
    check(driver().cuMemcpyDtoHAsync(dst, dptr(src), n, native(s)), "cuMemcpyDtoHAsync");
    return MF_OK;
  });
}

// The source may live on another device: cuMemcpyAsync infers both sides
// from unified addressing, so a copy between two GPUs (peer or staged by the
// driver) is the same call as one within a GPU.
MFStatus memcpy_d2d(int32_t index, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return guarded([&] {
    device(index);
    if (n == 0) return MF_OK;
    if (!dst || !src) fail(MF_ERR_INVALID_ARGUMENT, "memcpy_d2d: NULL pointer");
    check(driver().cuMemcpyAsync(dptr(dst), dptr(src), n, native(s)), "cuMemcpyAsync");
    return MF_OK;
  });
}

MFStatus memset_(int32_t index, MFStream s, void* dst, int value, size_t n) noexcept {
  return guarded([&] {
    device(index);
    if (n == 0) return MF_OK;
    if (!dst) fail(MF_ERR_INVALID_ARGUMENT, "memset: NULL pointer");
    check(driver().cuMemsetD8Async(dptr(dst), static_cast<unsigned char>(value), n, native(s)), "cuMemsetD8Async");
    return MF_OK;
  });
}

// ------------------------------------------------------------ streams and events

MFStatus stream_create(int32_t index, MFStream* out) noexcept {
  return guarded([&] {
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "stream_create: out is NULL");
    device(index);
    CUstream st = nullptr;
    check(driver().cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    *out = reinterpret_cast<MFStream>(st);
    return MF_OK;
  });
}

MFStatus stream_destroy(int32_t index, MFStream s) noexcept {
  return guarded([&] {
    device(index);
    if (s) check(driver().cuStreamDestroy(native(s)), "cuStreamDestroy");
    return MF_OK;
  });
}

MFStatus stream_synchronize(int32_t index, MFStream s) noexcept {
  return guarded([&] {
    Device& d = device(index);
    const CUresult r = driver().cuStreamSynchronize(native(s));
    if (r != CUDA_SUCCESS) check(r, "a kernel on the stream failed (cuStreamSynchronize)");
    return take_kernel_error(d, /*clear=*/true);
  });
}

MFStatus stream_query(int32_t index, MFStream s) noexcept {
  return guarded([&] {
    Device& d = device(index);
    const CUresult r = driver().cuStreamQuery(native(s));
    if (r == CUDA_ERROR_NOT_READY) return MF_NOT_READY;
    check(r, "a kernel on the stream failed (cuStreamQuery)");
    return take_kernel_error(d, /*clear=*/false);
  });
}

CUevent native_event(MFEvent e) {
  if (!e) fail(MF_ERR_INVALID_ARGUMENT, "NULL event");
  return reinterpret_cast<CUevent>(e);
}

MFStatus event_create(int32_t index, MFEvent* out) noexcept {
  return guarded([&] {
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "event_create: out is NULL");
    device(index);
    CUevent e = nullptr;
    check(driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    *out = reinterpret_cast<MFEvent>(e);
    return MF_OK;
  });
}

MFStatus event_destroy(int32_t index, MFEvent e) noexcept {
  return guarded([&] {
    device(index);
    if (e) check(driver().cuEventDestroy(native_event(e)), "cuEventDestroy");
    return MF_OK;
  });
}

MFStatus event_record(int32_t index, MFEvent e, MFStream s) noexcept {
  return guarded([&] {
    device(index);
    check(driver().cuEventRecord(native_event(e), native(s)), "cuEventRecord");
    return MF_OK;
  });
}

MFStatus stream_wait_event(int32_t index, MFStream s, MFEvent e) noexcept {
  return guarded([&] {
    device(index);
    check(driver().cuStreamWaitEvent(native(s), native_event(e), 0), "cuStreamWaitEvent");
    return MF_OK;
  });
}

MFStatus event_query(int32_t index, MFEvent e) noexcept {
  return guarded([&] {
    device(index);
    const CUresult r = driver().cuEventQuery(native_event(e));
    if (r == CUDA_ERROR_NOT_READY) return MF_NOT_READY;
    check(r, "cuEventQuery");
    return MF_OK;
  });
}

MFStatus event_synchronize(int32_t index, MFEvent e) noexcept {
  return guarded([&] {
    device(index);
    check(driver().cuEventSynchronize(native_event(e)), "cuEventSynchronize");
    return MF_OK;
  });
}

MFStatus register_kernels(const MFHostApi* host) noexcept {
  return guarded([&] {
    if (!host || host->struct_size < sizeof(MFHostApi) || !host->register_kernel)
      fail(MF_ERR_INVALID_ARGUMENT, "register_kernels: bad host table");
    register_elementwise_kernels(host);
    register_reduce_kernels(host);
    register_matmul_kernels(host);
    register_index_kernels(host);
    register_update_kernels(host);
    register_conv_kernels(host);
    register_pool_kernels(host);
    return MF_OK;
  });
}

MFDevicePlugin make_table() {
  MFDevicePlugin t;
  std::memset(&t, 0, sizeof t);
  t.struct_size = sizeof(MFDevicePlugin);
  t.abi_major = MF_ABI_MAJOR;
  t.abi_minor = MF_ABI_MINOR;
  t.device_type = "cuda";
  t.flags = 0;  // device memory: never dereferenced by the core
  t.last_error = last_error;
  t.device_count = device_count;
  t.get_properties = get_properties;
  t.allocate = allocate;
  t.deallocate = deallocate;
  t.memcpy_h2d = memcpy_h2d;
  t.memcpy_d2h = memcpy_d2h;
  t.memcpy_d2d = memcpy_d2d;
  t.memset = memset_;
  t.stream_create = stream_create;
  t.stream_destroy = stream_destroy;
  t.stream_synchronize = stream_synchronize;
  t.stream_query = stream_query;
  t.event_create = event_create;
  t.event_destroy = event_destroy;
  t.event_record = event_record;
  t.stream_wait_event = stream_wait_event;
  t.event_query = event_query;
  t.event_synchronize = event_synchronize;
  t.register_kernels = register_kernels;
  // set_num_threads/get_num_threads (no host thread team) and set_tracer stay NULL.
  return t;
}

}  // namespace
}  // namespace mfcuda

extern "C" MF_EXPORT const MFDevicePlugin* monoflow_device_plugin(void) {
  static const MFDevicePlugin table = mfcuda::make_table();
  return &table;
}
