// The OpenCL device plugin: the MFDevicePlugin table over the OpenCL API
// (through the ICD loader), tested on PoCL. Memory is device memory reached
// through cl_mem handles (Note [Device addresses] in plugin.h, Note [Address
// range] in memory.cpp); streams are in-order command queues.
#include <cstdio>
#include <cstring>

#include "kernels.h"

namespace mfocl {

Registrar::Registrar(const MFHostApi* host) : host_(host) {}

void Registrar::add(const char* op, int32_t in_dtype, int32_t out_dtype, MFKernelFn fn) {
  const MFStatus s = host_->register_kernel(host_->registry, op, in_dtype, out_dtype, fn);
  // An op this core does not know is not fatal (a newer plugin on an older core).
  if (s != MF_OK && s != MF_ERR_INVALID_ARGUMENT && s != MF_ERR_UNSUPPORTED)
    raise(s, std::string("register_kernel('") + op + "') failed");
}

bool Registrar::supports(int32_t dtype) const {
  for (const Device& d : devices())
    if (!supported_dtype(d, dtype)) return false;
  return true;
}

namespace {

const char* ocl_last_error() { return last_error(); }

int32_t ocl_device_count() {
  try {
    return int32_t(devices().size());
  } catch (...) {
    return 0;
  }
}

MFStatus ocl_get_properties(int32_t index, MFDeviceProperties* out) {
  return guarded([&] {
    const Device& d = device(index);
    if (out == nullptr) invalid("get_properties", "null output");
    if (MF_HAS_FIELD(out, MFDeviceProperties, name)) std::snprintf(out->name, sizeof(out->name), "%s", d.name.c_str());
    if (MF_HAS_FIELD(out, MFDeviceProperties, total_memory)) out->total_memory = d.total_memory;
    if (MF_HAS_FIELD(out, MFDeviceProperties, multiprocessor_count)) out->multiprocessor_count = d.compute_units;
    if (MF_HAS_FIELD(out, MFDeviceProperties, runs_on_host_cpu)) out->runs_on_host_cpu = d.host_cpu ? 1 : 0;
    return MF_OK;
  });
}

MFStatus ocl_allocate(int32_t device, size_t nbytes, void** out) {
  return guarded([&] {
    if (out == nullptr) invalid("allocate", "null output");
    *out = nullptr;
    *out = allocate(device, nbytes);
    return MF_OK;
  });
}

MFStatus ocl_deallocate(int32_t device, void* ptr) {
  return guarded([&] {
    deallocate(device, ptr);
    return MF_OK;
  });
}

MFStatus ocl_memcpy_h2d(int32_t device, MFStream s, void* dst, const void* src, size_t n) {
  return guarded([&] {
    memcpy_h2d(device, s, dst, src, n);
    return MF_OK;
  });
}
MFStatus ocl_memcpy_d2h(int32_t device, MFStream s, void* dst, const void* src, size_t n) {
  return guarded([&] {
    memcpy_d2h(device, s, dst, src, n);
    return MF_OK;
  });
}
MFStatus ocl_memcpy_d2d(int32_t device, MFStream s, void* dst, const void* src, size_t n) {
  return guarded([&] {
    memcpy_d2d(device, s, dst, src, n);
    return MF_OK;
  });
}
MFStatus ocl_memset(int32_t device, MFStream s, void* dst, int value, size_t n) {
  return guarded([&] {
    memset_device(device, s, dst, value, n);
    return MF_OK;
  });
}

MFStatus ocl_stream_create(int32_t device, MFStream* out) {
  return guarded([&] {
    if (out == nullptr) invalid("stream_create", "null output");
    *out = stream_create(device);
    return MF_OK;
  });
}
MFStatus ocl_stream_destroy(int32_t device, MFStream s) {
  return guarded([&] {
    stream_destroy(device, s);
    return MF_OK;
  });
}
MFStatus ocl_stream_synchronize(int32_t device, MFStream s) {
  return guarded([&] { return stream_synchronize(device, s); });
}
MFStatus ocl_stream_query(int32_t device, MFStream s) {
  return guarded([&] { return stream_query(device, s); });
}
MFStatus ocl_event_create(int32_t device, MFEvent* out) {
  return guarded([&] {
    if (out == nullptr) invalid("event_create", "null output");
    *out = event_create(device);
    return MF_OK;
  });
}
MFStatus ocl_event_destroy(int32_t device, MFEvent e) {
  return guarded([&] {
    event_destroy(device, e);
    return MF_OK;
  });
}
MFStatus ocl_event_record(int32_t device, MFEvent e, MFStream s) {
  return guarded([&] {
    event_record(device, e, s);
    return MF_OK;
  });
}
MFStatus ocl_stream_wait_event(int32_t device, MFStream s, MFEvent e) {
  return guarded([&] {
    stream_wait_event(device, s, e);
    return MF_OK;
  });
}
MFStatus ocl_event_query(int32_t device, MFEvent e) {
  return guarded([&] { return event_query(device, e); });
}
MFStatus ocl_event_synchronize(int32_t device, MFEvent e) {
  return guarded([&] {
    event_synchronize(device, e);
    return MF_OK;
  });
}

MFStatus ocl_register_kernels(const MFHostApi* host) {
  return guarded([&] {
    if (host == nullptr || !MF_HAS_FIELD(host, MFHostApi, register_kernel) || host->register_kernel == nullptr)
      invalid("register_kernels", "invalid MFHostApi");
    Registrar r(host);
    register_elementwise_kernels(r);
    register_reduce_kernels(r);
    register_matmul_kernels(r);
    register_conv_kernels(r);
    register_index_kernels(r);
    return MF_OK;
  });
}

MFDevicePlugin make_table() {
  MFDevicePlugin p;
  std::memset(&p, 0, sizeof(p));
  p.struct_size = sizeof(MFDevicePlugin);
  p.abi_major = MF_ABI_MAJOR;
  p.abi_minor = MF_ABI_MINOR;
  p.device_type = "opencl";
  p.flags = 0;  // NOT host memory: addresses are handles (Note [Device addresses])
  p.last_error = &ocl_last_error;
  p.device_count = &ocl_device_count;
  p.get_properties = &ocl_get_properties;
  p.allocate = &ocl_allocate;
  p.deallocate = &ocl_deallocate;
  p.memcpy_h2d = &ocl_memcpy_h2d;
  p.memcpy_d2h = &ocl_memcpy_d2h;
  p.memcpy_d2d = &ocl_memcpy_d2d;
  p.memset = &ocl_memset;
  p.stream_create = &ocl_stream_create;
  p.stream_destroy = &ocl_stream_destroy;
  p.stream_synchronize = &ocl_stream_synchronize;
  p.stream_query = &ocl_stream_query;
  p.event_create = &ocl_event_create;
  p.event_destroy = &ocl_event_destroy;
  p.event_record = &ocl_event_record;
  p.stream_wait_event = &ocl_stream_wait_event;
  p.event_query = &ocl_event_query;
  p.event_synchronize = &ocl_event_synchronize;
  p.register_kernels = &ocl_register_kernels;
  // set_num_threads, get_num_threads, set_tracer: optional, left null.
  return p;
}

}  // namespace
}  // namespace mfocl

extern "C" MF_EXPORT const MFDevicePlugin* monoflow_device_plugin(void) {
  static const MFDevicePlugin table = mfocl::make_table();
  return &table;
}
