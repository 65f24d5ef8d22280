// The "meta" device: tensors with a shape, a dtype and strides but no bytes.
//
// Note [The meta device]
//   torch's meta device builds a model's parameters without their memory
//   (`with torch.device("meta"): model = Big()`, then `model.to_empty(...)`)
//   and runs ops for their result's metadata alone. Here it is a device type
//   like any other, built into the core rather than loaded: the core already
//   derives every result's shape, dtype and strides before it launches a
//   kernel, so for a device without data launch() stops there (dispatch.cc),
//   whatever the op. Its addresses come from a counter and are never
//   dereferenced: copies into it, memset and copies within it do nothing,
//   and a copy out of it (.cpu(), .numpy(), .item(), any data-dependent op)
//   fails with NotImplementedError, as torch's. It is not listed among the
//   device types (flow.devices.available(), the accelerator search).
#include "monoflow/meta_device.h"

#include <atomic>
#include <cstdint>
#include <cstring>

namespace monoflow {
namespace {

thread_local const char* t_last_error = "";

const char* last_error() { return t_last_error; }
int32_t device_count() { return 1; }

MFStatus get_properties(int32_t, MFDeviceProperties* out) {
  std::strncpy(out->name, "meta (no data)", sizeof(out->name) - 1);
  out->total_memory = 0;
  out->multiprocessor_count = 0;
  return MF_OK;
}

// Distinct, aligned, never-dereferenced addresses in the upper half of the
// address space (non-canonical on x86-64 and AArch64: a stray read faults
// instead of aliasing real memory).
MFStatus allocate(int32_t, size_t nbytes, void** out) {
  static std::atomic<uint64_t> next{uint64_t{1} << 63};
  uint64_t span = (static_cast<uint64_t>(nbytes) + 511) & ~uint64_t{511};
  *out = reinterpret_cast<void*>(next.fetch_add(span ? span : 512));
  return MF_OK;
}
MFStatus deallocate(int32_t, void*) { return MF_OK; }

MFStatus nothing_to_copy(int32_t, MFStream, void*, const void*, size_t) { return MF_OK; }
MFStatus copy_out(int32_t, MFStream, void*, const void*, size_t) {
  t_last_error = "Cannot copy out of meta tensor; no data! Please use .to_empty(device=...) or "
                 "empty_like(..., device=...) to make a tensor with memory on another device";
  return MF_ERR_UNSUPPORTED;
}
MFStatus set_nothing(int32_t, MFStream, void*, int, size_t) { return MF_OK; }

// One dummy stream and event: nothing ever runs on them.
MFStatus stream_create(int32_t, MFStream* out) {
  static char stream;
  *out = reinterpret_cast<MFStream>(&stream);
  return MF_OK;
}
MFStatus event_create(int32_t, MFEvent* out) {
  static char event;
  *out = reinterpret_cast<MFEvent>(&event);
  return MF_OK;
}
MFStatus stream_op(int32_t, MFStream) { return MF_OK; }
MFStatus event_op(int32_t, MFEvent) { return MF_OK; }
MFStatus event_record(int32_t, MFEvent, MFStream) { return MF_OK; }
MFStatus stream_wait_event(int32_t, MFStream, MFEvent) { return MF_OK; }
MFStatus register_kernels(const MFHostApi*) { return MF_OK; }  // (launch() never looks for one)

const MFDevicePlugin kMetaPlugin = {
    sizeof(MFDevicePlugin), MF_ABI_MAJOR, MF_ABI_MINOR, "meta", 0u,
    last_error, device_count, get_properties, allocate, deallocate,
    nothing_to_copy /* h2d */, copy_out /* d2h */, nothing_to_copy /* d2d */, set_nothing,
    stream_create, stream_op /* destroy */, stream_op /* synchronize */, stream_op /* query */,
    event_create, event_op /* destroy */, event_record, stream_wait_event, event_op /* query */,
    event_op /* synchronize */, register_kernels,
    nullptr, nullptr, nullptr};

}  // namespace

const MFDevicePlugin* meta_device_plugin() { return &kMetaPlugin; }

}  // namespace monoflow
