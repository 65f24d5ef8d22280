// The MFDevicePlugin table: one "cpu" device whose memory is host memory.
// Every entry point is noexcept and reports failures as MFStatus plus a
// thread-local message (see error.h).
#include <monoflow/plugin.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "error.h"
#include "launch.h"
#include "strided.h"
#include "stream.h"
#include "trace.h"
#include "threads.h"

namespace mfcpu {

// The nn kernel families (conv, pool) are declared here, next to their only caller.
void register_conv_kernels(Registrar& r);
void register_pool_kernels(Registrar& r);
void register_norm_kernels(Registrar& r);  // kernels_norm.cpp
void register_fused_kernels(Registrar& r);
void register_graph_fused_kernels(Registrar& r);  // kernels_graph_fused.cpp
void register_complex_kernels(Registrar& r);       // kernels_complex.cpp

namespace {
thread_local char g_last_error[512] = "";
}  // namespace

void set_last_error(const char* message) noexcept {
  std::snprintf(g_last_error, sizeof g_last_error, "%s", message ? message : "");
}
const char* last_error_message() noexcept { return g_last_error; }

namespace {

constexpr size_t kAlignment = 64;  // cache line; also enough for any SIMD load

void check_device(int32_t device) {
  if (device != 0) fail(MF_ERR_INVALID_ARGUMENT, "cpu: no such device " + std::to_string(device));
}

// ------------------------------------------------------------ memory

MFStatus allocate(int32_t device, size_t nbytes, void** out) noexcept {
  return guarded([&] {
    check_device(device);
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "allocate: out is NULL");
    *out = nullptr;
    // Round up so aligned_alloc's size rule holds; 0 bytes still gets a
    // unique pointer the core can free.
    const size_t size = std::max<size_t>(kAlignment, (nbytes + kAlignment - 1) & ~(kAlignment - 1));
    if (size < nbytes) fail(MF_ERR_OUT_OF_MEMORY, "allocate: size overflow");
    void* p = std::aligned_alloc(kAlignment, size);
    if (!p)
      fail(MF_ERR_OUT_OF_MEMORY, "cpu: out of memory allocating " + std::to_string(nbytes) + " bytes");
    *out = p;
    return MF_OK;
  });
}

MFStatus deallocate(int32_t device, void* ptr) noexcept {
  return guarded([&] {
    check_device(device);
    std::free(ptr);
    return MF_OK;
  });
}

// Large copies are split over threads: one core rarely saturates memory bandwidth.
void run_memcpy(Task& task) {
  const char* src = static_cast<const char*>(task.src);
  char* dst = static_cast<char*>(task.dst);
  constexpr int64_t kPiece = 1 << 16;
  const int64_t pieces = int64_t((task.nbytes + kPiece - 1) / kPiece);
  parallel_range(pieces, kParallelGrain / 64 /* split from 64 pieces = 4 MiB */, [&](int64_t lo, int64_t hi) {
    const size_t begin = size_t(lo) * kPiece;
    const size_t end = std::min(task.nbytes, size_t(hi) * kPiece);
    std::memmove(dst + begin, src + begin, end - begin);
  });
}

void run_memset(Task& task) { std::memset(task.dst, int(task.ival[0]), task.nbytes); }

MFStatus enqueue_memcpy(const char* name, int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes) {
  return guarded([&] {
    check_device(device);
    if (nbytes == 0) return MF_OK;
    if (!dst || !src) fail(MF_ERR_INVALID_ARGUMENT, "memcpy: NULL pointer");
    stream_from_handle(stream)->enqueue([&](Task& task) {
      task.fn = run_memcpy;
      task.trace_name = name;
      task.dst = dst;
      task.src = src;
      task.nbytes = nbytes;
    });
    return MF_OK;
  });
}

MFStatus memcpy_h2d(int32_t d, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return enqueue_memcpy("memcpy_h2d", d, s, dst, src, n);
}
MFStatus memcpy_d2h(int32_t d, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return enqueue_memcpy("memcpy_d2h", d, s, dst, src, n);
}
MFStatus memcpy_d2d(int32_t d, MFStream s, void* dst, const void* src, size_t n) noexcept {
  return enqueue_memcpy("memcpy_d2d", d, s, dst, src, n);
}

MFStatus memset_(int32_t device, MFStream stream, void* dst, int value, size_t nbytes) noexcept {
  return guarded([&] {
    check_device(device);
    if (nbytes == 0) return MF_OK;
    if (!dst) fail(MF_ERR_INVALID_ARGUMENT, "memset: NULL pointer");
    stream_from_handle(stream)->enqueue([&](Task& task) {
      task.fn = run_memset;
      task.trace_name = "memset";
      task.dst = dst;
      task.ival[0] = value;
      task.nbytes = nbytes;
    });
    return MF_OK;
  });
}

// ------------------------------------------------------------ streams and events

MFStatus stream_create(int32_t device, MFStream* out) noexcept {
  return guarded([&] {
    check_device(device);
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "stream_create: out is NULL");
    *out = reinterpret_cast<MFStream>(new Stream());
    return MF_OK;
  });
}

MFStatus stream_destroy(int32_t device, MFStream stream) noexcept {
  return guarded([&] {
    check_device(device);
    delete reinterpret_cast<Stream*>(stream);  // drains first; NULL (the default stream) is a no-op
    return MF_OK;
  });
}

MFStatus stream_synchronize(int32_t device, MFStream stream) noexcept {
  return guarded([&] {
    check_device(device);
    return stream_from_handle(stream)->synchronize();
  });
}

MFStatus stream_query(int32_t device, MFStream stream) noexcept {
  return guarded([&] {
    check_device(device);
    return stream_from_handle(stream)->query();
  });
}

Event* as_event(MFEvent event) {
  if (!event) fail(MF_ERR_INVALID_ARGUMENT, "NULL event");
  return reinterpret_cast<Event*>(event);
}

MFStatus event_create(int32_t device, MFEvent* out) noexcept {
  return guarded([&] {
    check_device(device);
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "event_create: out is NULL");
    *out = reinterpret_cast<MFEvent>(new Event());
    return MF_OK;
  });
}

MFStatus event_destroy(int32_t device, MFEvent event) noexcept {
  return guarded([&] {
    check_device(device);
    delete reinterpret_cast<Event*>(event);
    return MF_OK;
  });
}

MFStatus event_record(int32_t device, MFEvent event, MFStream stream) noexcept {
  return guarded([&] {
    check_device(device);
    as_event(event)->record(*stream_from_handle(stream));
    return MF_OK;
  });
}

MFStatus stream_wait_event(int32_t device, MFStream stream, MFEvent event) noexcept {
  return guarded([&] {
    check_device(device);
    as_event(event)->make_stream_wait(*stream_from_handle(stream));
    return MF_OK;
  });
}

MFStatus event_query(int32_t device, MFEvent event) noexcept {
  return guarded([&] {
    check_device(device);
    return as_event(event)->query() ? MF_OK : MF_NOT_READY;
  });
}

MFStatus event_synchronize(int32_t device, MFEvent event) noexcept {
  return guarded([&] {
    check_device(device);
    as_event(event)->synchronize();
    return MF_OK;
  });
}

// ------------------------------------------------------------ device info

const char* last_error() noexcept { return last_error_message(); }

int32_t device_count() noexcept { return 1; }

MFStatus get_properties(int32_t device, MFDeviceProperties* out) noexcept {
  return guarded([&] {
    check_device(device);
    if (!out) fail(MF_ERR_INVALID_ARGUMENT, "get_properties: out is NULL");
    // The caller states its struct's size; 0 is read as this header's size.
    const size_t size = out->struct_size ? std::min(out->struct_size, sizeof(MFDeviceProperties))
                                         : sizeof(MFDeviceProperties);
    MFDeviceProperties props{};
    props.struct_size = size;
    std::snprintf(props.name, sizeof props.name, "cpu");
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    props.total_memory = pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : 0;
    props.multiprocessor_count = int32_t(std::max(1u, std::thread::hardware_concurrency()));
    std::memcpy(out, &props, size);
    return MF_OK;
  });
}

MFStatus register_kernels(const MFHostApi* host) noexcept {
  return guarded([&] {
    if (!host || host->struct_size < sizeof(MFHostApi) || !host->register_kernel)
      fail(MF_ERR_INVALID_ARGUMENT, "register_kernels: bad MFHostApi");
    if (host->abi_major != MF_ABI_MAJOR)
      fail(MF_ERR_UNSUPPORTED, "register_kernels: host ABI major " + std::to_string(host->abi_major) +
                                   " != plugin ABI major " + std::to_string(MF_ABI_MAJOR));
    // Every kernel is offered even if one is rejected (e.g. an op this core
    // does not know); the first rejection is reported.
    configure_blas_threads();
    Registrar r(host);
    register_copy_kernels(r);
    register_elementwise_kernels(r);
    register_reduce_kernels(r);
    register_matmul_kernels(r);
    register_math_kernels(r);
    register_shape_kernels(r);
    register_random_kernels(r);
    register_linalg_kernels(r);
    register_conv_kernels(r);
    register_pool_kernels(r);
    register_norm_kernels(r);
    register_fused_kernels(r);
    register_graph_fused_kernels(r);
    register_complex_kernels(r);
    if (r.status() != MF_OK) fail(r.status(), "cpu: registering kernel '" + r.failed_op() + "' failed");
    return MF_OK;
  });
}

// ------------------------------------------------------------ kernel threads (ABI 1.1)

MFStatus set_num_threads(int32_t n) noexcept {
  return guarded([&] {
    if (!set_kernel_threads(n))
      fail(MF_ERR_INVALID_ARGUMENT,
           "set_num_threads: the thread count must be positive and at most max(1024, 4 per core), got " +
               std::to_string(n));
    return MF_OK;
  });
}

int32_t get_num_threads() noexcept { return kernel_threads(); }

const MFDevicePlugin kPlugin = {
    sizeof(MFDevicePlugin),
    MF_ABI_MAJOR,
    MF_ABI_MINOR,
    "cpu",
    MF_DEVICE_HOST_MEMORY,
    last_error,
    device_count,
    get_properties,
    allocate,
    deallocate,
    memcpy_h2d,
    memcpy_d2h,
    memcpy_d2d,
    memset_,
    stream_create,
    stream_destroy,
    stream_synchronize,
    stream_query,
    event_create,
    event_destroy,
    event_record,
    stream_wait_event,
    event_query,
    event_synchronize,
    register_kernels,
    set_num_threads,
    get_num_threads,
    set_tracer,
};

}  // namespace
}  // namespace mfcpu

extern "C" MF_EXPORT const MFDevicePlugin* monoflow_device_plugin(void) { return &mfcpu::kPlugin; }
