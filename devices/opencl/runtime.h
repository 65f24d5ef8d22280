// The OpenCL devices this plugin exposes, their memory (Note [Device
// addresses] in plugin.h) and their streams.
#pragma once

#include "error.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mfocl {

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  std::string name;
  uint64_t total_memory = 0;
  int32_t compute_units = 1;
  bool fp64 = false;
  bool host_cpu = false;  // CL_DEVICE_TYPE_CPU (PoCL): not an accelerator
};

// Every device of every OpenCL platform, found once (thread-safe). A missing
// platform or an ICD error leaves the list empty: the plugin then reports no
// devices and the core skips it.
const std::vector<Device>& devices();
const Device& device(int32_t index);  // raises MF_ERR_INVALID_ARGUMENT

// ---------------------------------------------------------------- memory

// What an address resolves to: the allocation's buffer and the byte offset of
// the address inside it.
struct Resolved {
  cl_mem mem = nullptr;
  size_t offset = 0;
  size_t size = 0;  // bytes of the allocation
  int32_t device = 0;
};

void* allocate(int32_t device, size_t nbytes);
void deallocate(int32_t device, void* ptr);
// The allocation containing [ptr, ptr + nbytes), which must be one live
// allocation of `device` (any device when -1); raises MF_ERR_INVALID_ARGUMENT
// naming `what` otherwise. nbytes 0 still needs ptr inside an allocation
// (or exactly at its end).
Resolved resolve(const void* ptr, size_t nbytes, int32_t device, const char* what);

// ---------------------------------------------------------------- streams

struct Stream {
  int32_t device = 0;
  cl_command_queue queue = nullptr;
  // One int on the device that kernels set when they fail while running
  // (integer division by zero); read and cleared at synchronize.
  cl_mem error_flag = nullptr;
  std::mutex mu;          // guards the fields below
  MFStatus error = MF_OK;  // first asynchronous error since the last synchronize
  std::string message;
};

// The live stream behind a handle of `device`; raises for unknown ones.
Stream* stream_of(int32_t device, MFStream stream);
// Records an asynchronous failure on the stream (the first one wins).
void stream_fail(Stream* s, MFStatus status, const std::string& message);

// Error codes a kernel writes into the stream's error flag.
// Each names the op, as the CPU's messages do.
enum KernelError : int32_t {
  kNoError = 0,
  kFloorDivideByZero = 1,
  kRemainderByZero = 2,
  kFmodByZero = 3,
  kIndexOutOfRange = 4,
};

}  // namespace mfocl

namespace mfocl {

// Entry points (plugin.cpp wraps them in guarded()).
MFStream stream_create(int32_t device);
void stream_destroy(int32_t device, MFStream stream);
MFStatus stream_synchronize(int32_t device, MFStream stream);
MFStatus stream_query(int32_t device, MFStream stream);
MFEvent event_create(int32_t device);
void event_destroy(int32_t device, MFEvent event);
void event_record(int32_t device, MFEvent event, MFStream stream);
void stream_wait_event(int32_t device, MFStream stream, MFEvent event);
MFStatus event_query(int32_t device, MFEvent event);
void event_synchronize(int32_t device, MFEvent event);

void memcpy_h2d(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
void memcpy_d2h(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
void memcpy_d2d(int32_t device, MFStream stream, void* dst, const void* src, size_t nbytes);
void memset_device(int32_t device, MFStream stream, void* dst, int value, size_t nbytes);

}  // namespace mfocl
