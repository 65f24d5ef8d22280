// monoflow test device plugin ("testdev").
//
// An out-of-tree device plugin built only against the public header
// <monoflow/plugin.h>. It exists to prove that a third party can add a device
// to monoflow and to let the test suite exercise the core's plugin machinery:
// loading, ABI checks, the caching allocator, streams/errors and the CPU
// fallback for ops the device has no kernel for.
//
// Behaviour:
//   - device_type "testdev", 2 devices, flags 0. The memory is malloc()ed
//     underneath but it is NOT host memory as far as the core is concerned:
//     every memcpy/memset/kernel pointer is checked against the live
//     allocations of the right device, and a foreign pointer is rejected with
//     MF_ERR_INVALID_ARGUMENT. Fresh allocations are filled with 0xFF bytes
//     (NaN for floats) and freed ones with 0xDD so stale reads show up.
//   - Streams are synchronous: work runs inline at launch. Failures that a
//     real device would raise while running (only injected ones here, see
//     testdev_fail_next_kernels) are kept on the stream and returned by the
//     next stream_query (without clearing) / stream_synchronize (clearing).
//   - Kernels: fill, copy (same dtype only), add, mul for float32/float64,
//     arbitrary strides (including 0) via an N-d loop. Everything else must
//     go through the core's CPU fallback.
//   - Control functions (testdev_*) exported with C linkage for the tests.
//
// One source file builds every variant of the plugin; compile definitions:
//   TESTDEV_ABI_MAJOR        abi_major put in the table (default MF_ABI_MAJOR)
//   TESTDEV_DEVICE_TYPE      device_type string (default "testdev")
//   TESTDEV_VARIANT_NULL_ENTRY   the entry point returns NULL
//   TESTDEV_VARIANT_FAIL_REGISTER register_kernels fails with MF_ERR_INTERNAL
//   TESTDEV_VARIANT_NO_ENTRY     the entry symbol is not defined at all
//   TESTDEV_VARIANT_NO_LAST_ERROR failures leave last_error() empty (the
//                                 conformance kit must catch it)
//   TESTDEV_VARIANT_IGNORE_STRIDES `add` reads its inputs as if contiguous
//                                 (wrapping inside each input's span, so it
//                                 never reads out of bounds): right for
//                                 contiguous operands, wrong for strided or
//                                 broadcast ones (the kit must catch it)

#include <monoflow/plugin.h>

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#ifndef TESTDEV_ABI_MAJOR
#define TESTDEV_ABI_MAJOR MF_ABI_MAJOR
#endif
#ifndef TESTDEV_DEVICE_TYPE
#define TESTDEV_DEVICE_TYPE "testdev"
#endif

namespace {

constexpr int32_t kDeviceCount = 2;
constexpr size_t kAlignment = 64;
constexpr size_t kMaxPoisonBytes = size_t(64) << 20;  // don't touch more than this
constexpr unsigned char kFreshByte = 0xFF;
constexpr unsigned char kFreedByte = 0xDD;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

thread_local std::string t_last_error;

MFStatus fail(MFStatus status, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
MFStatus fail(MFStatus status, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
#ifdef TESTDEV_VARIANT_NO_LAST_ERROR
  (void)buf;
#else
  t_last_error = std::string("testdev: ") + buf;
#endif
  return status;
}

const char* td_last_error() { return t_last_error.c_str(); }

// ---------------------------------------------------------------------------
// Global state (one mutex guards all of it)
// ---------------------------------------------------------------------------

struct Allocation {
  size_t nbytes;
  int32_t device;
};

struct Stream {
  int32_t device;
  MFStatus error = MF_OK;  // first asynchronous error since the last synchronize
  std::string message;
};

struct Event {
  int32_t device;
};

struct State {
  std::mutex mu;
  std::map<uintptr_t, Allocation> allocations;  // keyed by start address
  uint64_t live_bytes = 0;
  uint64_t memory_limit = 0;  // 0 = unlimited
  int fail_next_allocations = 0;
  int fail_next_kernels = 0;
  int64_t allocation_count = 0;  // successful raw allocations since reset
  std::map<std::string, int64_t> kernel_launches;
  std::unordered_set<Stream*> streams;
  std::unordered_set<Event*> events;
};

State& state() {
  static State* s = new State();  // never destroyed: safe during exit/unload
  return *s;
}

bool valid_device(int32_t device) { return device >= 0 && device < kDeviceCount; }

#define TD_CHECK_DEVICE(device)                                                           \
  do {                                                                                    \
    if (!valid_device(device))                                                            \
      return fail(MF_ERR_INVALID_ARGUMENT, "invalid device index %d (device_count is %d)", \
                  int(device), int(kDeviceCount));                                        \
  } while (0)

// Requires st.mu held. Checks that [ptr, ptr + nbytes) lies inside one live
// allocation; when `device` >= 0 that allocation must belong to it.
MFStatus check_range_locked(State& st, const void* ptr, size_t nbytes, int32_t device,
                            const char* what) {
  if (nbytes == 0) return MF_OK;
  uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = st.allocations.upper_bound(p);
  if (it == st.allocations.begin())
    return fail(MF_ERR_INVALID_ARGUMENT, "%s %p is not testdev device memory", what, ptr);
  --it;
  const uintptr_t start = it->first;
  const Allocation& a = it->second;
  if (p - start >= a.nbytes || nbytes > a.nbytes - (p - start))
    return fail(MF_ERR_INVALID_ARGUMENT,
                "%s [%p, +%zu bytes) is not inside a live testdev allocation", what, ptr, nbytes);
  if (device >= 0 && a.device != device)
    return fail(MF_ERR_INVALID_ARGUMENT, "%s %p belongs to testdev:%d, not testdev:%d", what, ptr,
                int(a.device), int(device));
  return MF_OK;
}

// Requires st.mu held.
MFStatus check_stream_locked(State& st, int32_t device, MFStream stream, Stream** out) {
  Stream* s = reinterpret_cast<Stream*>(stream);
  if (s == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "null stream (testdev has no default stream)");
  if (st.streams.count(s) == 0)
    return fail(MF_ERR_INVALID_ARGUMENT, "unknown or destroyed stream %p", static_cast<void*>(s));
  if (s->device != device)
    return fail(MF_ERR_INVALID_ARGUMENT, "stream %p belongs to testdev:%d, not testdev:%d",
                static_cast<void*>(s), int(s->device), int(device));
  if (out) *out = s;
  return MF_OK;
}

// Requires st.mu held.
MFStatus check_event_locked(State& st, int32_t device, MFEvent event, Event** out) {
  Event* e = reinterpret_cast<Event*>(event);
  if (e == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "null event");
  if (st.events.count(e) == 0)
    return fail(MF_ERR_INVALID_ARGUMENT, "unknown or destroyed event %p", static_cast<void*>(e));
  if (device >= 0 && e->device != device)
    return fail(MF_ERR_INVALID_ARGUMENT, "event %p belongs to testdev:%d, not testdev:%d",
                static_cast<void*>(e), int(e->device), int(device));
  if (out) *out = e;
  return MF_OK;
}

// ---------------------------------------------------------------------------
// Device, memory
// ---------------------------------------------------------------------------

int32_t td_device_count() { return kDeviceCount; }

MFStatus td_get_properties(int32_t device, MFDeviceProperties* out) {
  TD_CHECK_DEVICE(device);
  if (out == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "get_properties: null output");
  uint64_t limit;
  {
    std::lock_guard<std::mutex> lock(state().mu);
    limit = state().memory_limit;
  }
  if (MF_HAS_FIELD(out, MFDeviceProperties, name))
    std::snprintf(out->name, sizeof(out->name), "monoflow test device %d", int(device));
  if (MF_HAS_FIELD(out, MFDeviceProperties, total_memory)) out->total_memory = limit;
  if (MF_HAS_FIELD(out, MFDeviceProperties, multiprocessor_count)) out->multiprocessor_count = 1;
  return MF_OK;
}

MFStatus td_allocate(int32_t device, size_t nbytes, void** out) {
  TD_CHECK_DEVICE(device);
  if (out == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "allocate: null output");
  *out = nullptr;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (st.fail_next_allocations > 0) {
    --st.fail_next_allocations;
    return fail(MF_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes on testdev:%d (injected failure)",
                nbytes, int(device));
  }
  if (st.memory_limit != 0 &&
      (nbytes > st.memory_limit || st.live_bytes > st.memory_limit - nbytes)) {
    return fail(MF_ERR_OUT_OF_MEMORY,
                "out of memory allocating %zu bytes on testdev:%d (%llu bytes live, limit %llu)", nbytes,
                int(device), static_cast<unsigned long long>(st.live_bytes),
                static_cast<unsigned long long>(st.memory_limit));
  }
  void* p = nullptr;
  if (posix_memalign(&p, kAlignment, std::max<size_t>(nbytes, 1)) != 0 || p == nullptr)
    return fail(MF_ERR_OUT_OF_MEMORY, "out of memory allocating %zu bytes on testdev:%d", nbytes,
                int(device));
  std::memset(p, kFreshByte, std::min(nbytes, kMaxPoisonBytes));
  st.allocations[reinterpret_cast<uintptr_t>(p)] = Allocation{nbytes, device};
  st.live_bytes += nbytes;
  ++st.allocation_count;
  *out = p;
  return MF_OK;
}

MFStatus td_deallocate(int32_t device, void* ptr) {
  TD_CHECK_DEVICE(device);
  if (ptr == nullptr) return MF_OK;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  auto it = st.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == st.allocations.end())
    return fail(MF_ERR_INVALID_ARGUMENT, "deallocate: %p is not the start of a live testdev allocation",
                ptr);
  if (it->second.device != device)
    return fail(MF_ERR_INVALID_ARGUMENT, "deallocate: %p belongs to testdev:%d, not testdev:%d", ptr,
                int(it->second.device), int(device));
  std::memset(ptr, kFreedByte, std::min(it->second.nbytes, kMaxPoisonBytes));
  st.live_bytes -= it->second.nbytes;
  st.allocations.erase(it);
  std::free(ptr);
  return MF_OK;
}

MFStatus td_memcpy_h2d(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (MFStatus s = check_stream_locked(st, device, stream, nullptr)) return s;
    if (MFStatus s = check_range_locked(st, dst, nbytes, device, "memcpy_h2d destination")) return s;
  }
  if (nbytes != 0 && src == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "memcpy_h2d: null source");
  if (nbytes) std::memcpy(dst, src, nbytes);
  return MF_OK;
}

MFStatus td_memcpy_d2h(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (MFStatus s = check_stream_locked(st, device, stream, nullptr)) return s;
    if (MFStatus s = check_range_locked(st, src, nbytes, device, "memcpy_d2h source")) return s;
  }
  if (nbytes != 0 && dst == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "memcpy_d2h: null destination");
  if (nbytes) std::memcpy(dst, src, nbytes);
  return MF_OK;
}

// The destination must be on `device`; the source may be on either testdev
// device (peer copy).
MFStatus td_memcpy_d2d(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (MFStatus s = check_stream_locked(st, device, stream, nullptr)) return s;
    if (MFStatus s = check_range_locked(st, dst, nbytes, device, "memcpy_d2d destination")) return s;
    if (MFStatus s = check_range_locked(st, src, nbytes, -1, "memcpy_d2d source")) return s;
  }
  if (nbytes) std::memmove(dst, src, nbytes);
  return MF_OK;
}

MFStatus td_memset(int32_t device, MFStream stream, void* dst, int value, size_t nbytes) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  {
    std::lock_guard<std::mutex> lock(st.mu);
    if (MFStatus s = check_stream_locked(st, device, stream, nullptr)) return s;
    if (MFStatus s = check_range_locked(st, dst, nbytes, device, "memset destination")) return s;
  }
  if (nbytes) std::memset(dst, value, nbytes);
  return MF_OK;
}

// ---------------------------------------------------------------------------
// Streams and events (synchronous: everything is complete once launched)
// ---------------------------------------------------------------------------

MFStatus td_stream_create(int32_t device, MFStream* out) {
  TD_CHECK_DEVICE(device);
  if (out == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "stream_create: null output");
  Stream* s = new Stream();
  s->device = device;
  std::lock_guard<std::mutex> lock(state().mu);
  state().streams.insert(s);
  *out = reinterpret_cast<MFStream>(s);
  return MF_OK;
}

MFStatus td_stream_destroy(int32_t device, MFStream stream) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  Stream* s = nullptr;
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_stream_locked(st, device, stream, &s)) return r;
  st.streams.erase(s);
  delete s;
  return MF_OK;
}

MFStatus td_stream_synchronize(int32_t device, MFStream stream) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  Stream* s = nullptr;
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_stream_locked(st, device, stream, &s)) return r;
  MFStatus err = s->error;
  if (err != MF_OK) {
    t_last_error = s->message;
    s->error = MF_OK;
    s->message.clear();
  }
  return err;
}

MFStatus td_stream_query(int32_t device, MFStream stream) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  Stream* s = nullptr;
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_stream_locked(st, device, stream, &s)) return r;
  if (s->error != MF_OK) t_last_error = s->message;  // sticky until synchronize
  return s->error;
}

MFStatus td_event_create(int32_t device, MFEvent* out) {
  TD_CHECK_DEVICE(device);
  if (out == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "event_create: null output");
  Event* e = new Event();
  e->device = device;
  std::lock_guard<std::mutex> lock(state().mu);
  state().events.insert(e);
  *out = reinterpret_cast<MFEvent>(e);
  return MF_OK;
}

MFStatus td_event_destroy(int32_t device, MFEvent event) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  Event* e = nullptr;
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_event_locked(st, device, event, &e)) return r;
  st.events.erase(e);
  delete e;
  return MF_OK;
}

MFStatus td_event_record(int32_t device, MFEvent event, MFStream stream) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_event_locked(st, device, event, nullptr)) return r;
  return check_stream_locked(st, device, stream, nullptr);
}

// The event may come from either testdev device.
MFStatus td_stream_wait_event(int32_t device, MFStream stream, MFEvent event) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  if (MFStatus r = check_stream_locked(st, device, stream, nullptr)) return r;
  return check_event_locked(st, -1, event, nullptr);
}

MFStatus td_event_query(int32_t device, MFEvent event) {
  TD_CHECK_DEVICE(device);
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mu);
  return check_event_locked(st, device, event, nullptr);
}

MFStatus td_event_synchronize(int32_t device, MFEvent event) { return td_event_query(device, event); }

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr int32_t value = MF_FLOAT32;
};
template <>
struct DTypeOf<double> {
  static constexpr int32_t value = MF_FLOAT64;
};

// Visits every element of an N-d iteration space. ptrs[k] points at element 0
// of operand k; strides[k] are its strides in elements (may be 0).
template <size_t N, typename F>
void for_each_element(int32_t ndim, const int64_t* shape, std::array<char*, N> ptrs,
                      std::array<const int64_t*, N> strides, size_t esize, F f) {
  for (int32_t d = 0; d < ndim; ++d)
    if (shape[d] == 0) return;
  if (ndim == 0) {
    f(ptrs);
    return;
  }
  const int32_t last = ndim - 1;
  const int64_t inner = shape[last];
  std::array<int64_t, N> inner_step;
  for (size_t k = 0; k < N; ++k) inner_step[k] = strides[k][last] * int64_t(esize);
  std::vector<int64_t> idx(size_t(ndim), 0);
  for (;;) {
    std::array<char*, N> p = ptrs;
    for (int64_t j = 0; j < inner; ++j) {
      f(p);
      for (size_t k = 0; k < N; ++k) p[k] += inner_step[k];
    }
    int32_t d = last - 1;
    for (; d >= 0; --d) {
      ++idx[size_t(d)];
      for (size_t k = 0; k < N; ++k) ptrs[k] += strides[k][d] * int64_t(esize);
      if (idx[size_t(d)] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) ptrs[k] -= strides[k][d] * int64_t(esize) * shape[d];
      idx[size_t(d)] = 0;
    }
    if (d < 0) return;
  }
}

// Validates one operand: dtype, shape equal to `ref` (the output), strides,
// and that every element it can address lies in a live allocation of `device`.
// Requires st.mu held.
MFStatus check_desc_locked(State& st, const char* op, const char* role, int32_t index,
                           const MFTensorDesc& t, int32_t dtype, const MFTensorDesc* ref,
                           int32_t device) {
  if (t.dtype != dtype)
    return fail(MF_ERR_INVALID_ARGUMENT, "%s: %s %d has dtype %d, kernel expects %d", op, role,
                int(index), int(t.dtype), int(dtype));
  if (t.ndim < 0 || (t.ndim > 0 && (t.shape == nullptr || t.strides == nullptr)))
    return fail(MF_ERR_INVALID_ARGUMENT, "%s: %s %d has an invalid rank/shape/strides", op, role,
                int(index));
  if (ref != nullptr) {
    if (t.ndim != ref->ndim)
      return fail(MF_ERR_INVALID_ARGUMENT, "%s: %s %d has rank %d, output has rank %d", op, role,
                  int(index), int(t.ndim), int(ref->ndim));
    for (int32_t d = 0; d < t.ndim; ++d)
      if (t.shape[d] != ref->shape[d])
        return fail(MF_ERR_INVALID_ARGUMENT, "%s: %s %d has size %lld in dim %d, output has %lld", op,
                    role, int(index), static_cast<long long>(t.shape[d]), int(d),
                    static_cast<long long>(ref->shape[d]));
  }
  int64_t last = 0;  // offset of the furthest element, in elements
  bool empty = false;
  for (int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0 || t.strides[d] < 0)
      return fail(MF_ERR_INVALID_ARGUMENT, "%s: %s %d has a negative size or stride in dim %d", op,
                  role, int(index), int(d));
    if (t.shape[d] == 0) empty = true;
    else last += (t.shape[d] - 1) * t.strides[d];
  }
  if (empty) return MF_OK;  // zero-size operands are a no-op, data may be anything
  size_t esize = dtype == MF_FLOAT64 ? sizeof(double) : sizeof(float);
  char what[64];
  std::snprintf(what, sizeof(what), "%s: %s %d", op, role, int(index));
  return check_range_locked(st, t.data, size_t(last + 1) * esize, device, what);
}

enum class Op { kFill, kCopy, kAdd, kMul };

const char* op_name(Op op) {
  switch (op) {
    case Op::kFill: return "fill";
    case Op::kCopy: return "copy";
    case Op::kAdd: return "add";
    case Op::kMul: return "mul";
  }
  return "?";
}

template <Op OP, typename T>
MFStatus kernel(const MFKernelCall* call) {
  const char* name = op_name(OP);
  constexpr int32_t dtype = DTypeOf<T>::value;
  constexpr int32_t num_inputs = OP == Op::kFill ? 0 : OP == Op::kCopy ? 1 : 2;
  State& st = state();
  bool inject = false;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.kernel_launches[name];
    if (call == nullptr) return fail(MF_ERR_INVALID_ARGUMENT, "%s: null call", name);
    if (!MF_HAS_FIELD(call, MFKernelCall, attrs))
      return fail(MF_ERR_INVALID_ARGUMENT, "%s: MFKernelCall.struct_size %zu too small", name,
                  call->struct_size);
    if (!valid_device(call->device))
      return fail(MF_ERR_INVALID_ARGUMENT, "%s: invalid device index %d", name, int(call->device));
    Stream* s = nullptr;
    if (MFStatus r = check_stream_locked(st, call->device, call->stream, &s)) return r;
    if (call->num_inputs != num_inputs || call->num_outputs != 1 ||
        (num_inputs > 0 && call->inputs == nullptr) || call->outputs == nullptr)
      return fail(MF_ERR_INVALID_ARGUMENT, "%s: expected %d input(s) and 1 output, got %d and %d", name,
                  int(num_inputs), int(call->num_inputs), int(call->num_outputs));
    const MFTensorDesc& out = call->outputs[0];
    if (MFStatus r = check_desc_locked(st, name, "output", 0, out, dtype, nullptr, call->device))
      return r;
    for (int32_t i = 0; i < num_inputs; ++i)
      if (MFStatus r = check_desc_locked(st, name, "input", i, call->inputs[i], dtype, &out, call->device))
        return r;
    if (st.fail_next_kernels > 0) {
      --st.fail_next_kernels;
      inject = true;
      if (s->error == MF_OK) {
        s->error = MF_ERR_KERNEL;
        s->message = std::string("testdev: injected kernel failure in '") + name + "'";
      }
    }
  }
  if (inject) return MF_OK;  // "failed while running": reported at synchronize

  const MFTensorDesc& out = call->outputs[0];
  const size_t esize = sizeof(T);
  if constexpr (OP == Op::kFill) {
    const MFAttr* value = nullptr;
    for (int32_t i = 0; i < call->num_attrs && call->attrs != nullptr; ++i)
      if (call->attrs[i].name != nullptr && std::strcmp(call->attrs[i].name, "value") == 0)
        value = &call->attrs[i];
    if (value == nullptr || value->kind != MF_ATTR_SCALAR)
      return fail(MF_ERR_INVALID_ARGUMENT, "fill: missing scalar attribute 'value'");
    const T v = static_cast<T>(value->f);
    for_each_element<1>(out.ndim, out.shape, {static_cast<char*>(out.data)}, {out.strides}, esize,
                        [v](const std::array<char*, 1>& p) { *reinterpret_cast<T*>(p[0]) = v; });
  } else if constexpr (OP == Op::kCopy) {
    const MFTensorDesc& x = call->inputs[0];
    for_each_element<2>(out.ndim, out.shape, {static_cast<char*>(out.data), static_cast<char*>(x.data)},
                        {out.strides, x.strides}, esize, [](const std::array<char*, 2>& p) {
                          *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1]);
                        });
  } else {
    const MFTensorDesc& a = call->inputs[0];
    const MFTensorDesc& b = call->inputs[1];
#ifdef TESTDEV_VARIANT_IGNORE_STRIDES
    if constexpr (OP == Op::kAdd) {
      auto span = [](const MFTensorDesc& t) {
        int64_t last = 0;
        for (int32_t d = 0; d < t.ndim; ++d) last += (t.shape[d] - 1) * t.strides[d];
        return last + 1;
      };
      const int64_t span_a = span(a), span_b = span(b);
      const T* pa = static_cast<const T*>(a.data);
      const T* pb = static_cast<const T*>(b.data);
      int64_t i = 0;
      for_each_element<1>(out.ndim, out.shape, {static_cast<char*>(out.data)}, {out.strides}, esize,
                          [&](const std::array<char*, 1>& p) {
                            *reinterpret_cast<T*>(p[0]) = pa[i % span_a] + pb[i % span_b];
                            ++i;
                          });
      return MF_OK;
    }
#endif
    for_each_element<3>(
        out.ndim, out.shape,
        {static_cast<char*>(out.data), static_cast<char*>(a.data), static_cast<char*>(b.data)},
        {out.strides, a.strides, b.strides}, esize, [](const std::array<char*, 3>& p) {
          const T x = *reinterpret_cast<const T*>(p[1]);
          const T y = *reinterpret_cast<const T*>(p[2]);
          *reinterpret_cast<T*>(p[0]) = OP == Op::kAdd ? x + y : x * y;
        });
  }
  return MF_OK;
}

MFStatus td_register_kernels(const MFHostApi* host) {
  if (host == nullptr || !MF_HAS_FIELD(host, MFHostApi, register_kernel) ||
      host->register_kernel == nullptr)
    return fail(MF_ERR_INVALID_ARGUMENT, "register_kernels: invalid MFHostApi");
  struct Entry {
    const char* op;
    int32_t in_dtype;
    int32_t out_dtype;
    MFKernelFn fn;
  };
  const Entry entries[] = {
      {"fill", MF_FLOAT32, MF_FLOAT32, &kernel<Op::kFill, float>},
      {"fill", MF_FLOAT64, MF_FLOAT64, &kernel<Op::kFill, double>},
      {"copy", MF_FLOAT32, MF_FLOAT32, &kernel<Op::kCopy, float>},
      {"copy", MF_FLOAT64, MF_FLOAT64, &kernel<Op::kCopy, double>},
      {"add", MF_FLOAT32, MF_FLOAT32, &kernel<Op::kAdd, float>},
      {"add", MF_FLOAT64, MF_FLOAT64, &kernel<Op::kAdd, double>},
      {"mul", MF_FLOAT32, MF_FLOAT32, &kernel<Op::kMul, float>},
      {"mul", MF_FLOAT64, MF_FLOAT64, &kernel<Op::kMul, double>},
  };
  for (const Entry& e : entries) {
    MFStatus s = host->register_kernel(host->registry, e.op, e.in_dtype, e.out_dtype, e.fn);
    if (s != MF_OK)
      return fail(s, "register_kernel('%s', %d, %d) failed with status %d", e.op, int(e.in_dtype),
                  int(e.out_dtype), int(s));
  }
#ifdef TESTDEV_VARIANT_FAIL_REGISTER
  // Fail after having registered everything: the core must drop the partial
  // registration along with the plugin.
  t_last_error = "testdev: registration failed on purpose";
  return MF_ERR_INTERNAL;
#else
  return MF_OK;
#endif
}

const MFDevicePlugin kPlugin = {
    sizeof(MFDevicePlugin),
    TESTDEV_ABI_MAJOR,
    MF_ABI_MINOR,
    TESTDEV_DEVICE_TYPE,
    0u,  // flags: NOT host memory, although malloc()ed underneath
    &td_last_error,
    &td_device_count,
    &td_get_properties,
    &td_allocate,
    &td_deallocate,
    &td_memcpy_h2d,
    &td_memcpy_d2h,
    &td_memcpy_d2d,
    &td_memset,
    &td_stream_create,
    &td_stream_destroy,
    &td_stream_synchronize,
    &td_stream_query,
    &td_event_create,
    &td_event_destroy,
    &td_event_record,
    &td_stream_wait_event,
    &td_event_query,
    &td_event_synchronize,
    &td_register_kernels,
};

}  // namespace

// ---------------------------------------------------------------------------
// Exported symbols
// ---------------------------------------------------------------------------

extern "C" {

#ifndef TESTDEV_VARIANT_NO_ENTRY
MF_EXPORT const MFDevicePlugin* monoflow_device_plugin(void) {
#ifdef TESTDEV_VARIANT_NULL_ENTRY
  return nullptr;
#else
  return &kPlugin;
#endif
}
#endif

// The next `n` raw allocations fail with MF_ERR_OUT_OF_MEMORY (n <= 0 clears).
MF_EXPORT void testdev_fail_next_allocations(int n) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().fail_next_allocations = n > 0 ? n : 0;
}

// Allocations that would bring the live bytes above `bytes` fail with
// MF_ERR_OUT_OF_MEMORY; 0 = unlimited. Also reported as total_memory.
MF_EXPORT void testdev_set_memory_limit(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().memory_limit = bytes;
}

// Bytes currently allocated through `allocate` and not yet deallocated (both devices).
MF_EXPORT uint64_t testdev_live_bytes(void) {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().live_bytes;
}

// Number of live raw allocations (both devices); counts zero-byte ones too.
MF_EXPORT int64_t testdev_live_allocations(void) {
  std::lock_guard<std::mutex> lock(state().mu);
  return int64_t(state().allocations.size());
}

// Successful raw `allocate` calls since load / the last testdev_reset_counters.
MF_EXPORT int64_t testdev_allocation_count(void) {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().allocation_count;
}

// Times the kernel of `op` ("fill", "copy", "add", "mul") was called since load /
// the last reset, including calls it rejected; NULL = all ops together.
MF_EXPORT int64_t testdev_kernel_launches(const char* op) {
  std::lock_guard<std::mutex> lock(state().mu);
  const auto& m = state().kernel_launches;
  if (op == nullptr) {
    int64_t total = 0;
    for (const auto& kv : m) total += kv.second;
    return total;
  }
  auto it = m.find(op);
  return it == m.end() ? 0 : it->second;
}

// The next `n` kernel launches do no work and instead leave MF_ERR_KERNEL on
// their stream, returned by the next stream_synchronize (n <= 0 clears).
MF_EXPORT void testdev_fail_next_kernels(int n) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().fail_next_kernels = n > 0 ? n : 0;
}

// Zeroes allocation_count and the kernel launch counters. Live bytes,
// the memory limit and pending injected failures are left alone.
MF_EXPORT void testdev_reset_counters(void) {
  std::lock_guard<std::mutex> lock(state().mu);
  state().allocation_count = 0;
  state().kernel_launches.clear();
}

}  // extern "C"
