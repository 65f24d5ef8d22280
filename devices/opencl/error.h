// Errors inside the OpenCL plugin: C++ exceptions internally, MFStatus plus a
// per-thread message at the ABI (Note [No exception crosses the ABI]).
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <monoflow/plugin.h>

#include <string>

namespace mfocl {

// Note [No exception crosses the ABI]
//   Every entry point of the table and every kernel launcher runs its body
//   through guarded(): an Error becomes its status, anything else (bad_alloc,
//   a bug) MF_ERR_INTERNAL, and the message lands in last_error for the
//   calling thread. Nothing may unwind into the core's C frames.
struct Error {
  MFStatus status;
  std::string message;
};

[[noreturn]] void raise(MFStatus status, const std::string& message);
[[noreturn]] void invalid(const char* op, const std::string& message);
// Throws MF_ERR_INTERNAL (or OUT_OF_MEMORY for the allocation codes) naming
// the OpenCL call when `code` is not CL_SUCCESS.
void check_cl(cl_int code, const char* what);
const char* cl_error_name(cl_int code);

void set_last_error(const std::string& message);
const char* last_error();

template <class F>
MFStatus guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    set_last_error("opencl: " + e.message);
    return e.status;
  } catch (const std::exception& e) {
    set_last_error(std::string("opencl: internal error: ") + e.what());
    return MF_ERR_INTERNAL;
  } catch (...) {
    set_last_error("opencl: internal error (unknown exception)");
    return MF_ERR_INTERNAL;
  }
}

}  // namespace mfocl
