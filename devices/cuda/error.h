// Error plumbing, as in the CPU plugin: inside the plugin a failure is a C++
// exception carrying an MFStatus; every ABI entry point runs through
// guarded(), which turns it into a status plus a thread-local message
// (MFDevicePlugin::last_error). No exception and no CUresult crosses the ABI.
#pragma once

#include <cuda.h>
#include <monoflow/plugin.h>

#include <new>
#include <stdexcept>
#include <string>

namespace mfcuda {

class Error : public std::runtime_error {
 public:
  Error(MFStatus status, const std::string& message) : std::runtime_error(message), status(status) {}
  MFStatus status;
};

[[noreturn]] inline void fail(MFStatus status, const std::string& message) { throw Error(status, "cuda: " + message); }
[[noreturn]] inline void invalid(const char* op, const std::string& what) {
  fail(MF_ERR_INVALID_ARGUMENT, std::string(op) + ": " + what);
}

void set_last_error(const char* message) noexcept;
const char* last_error_message() noexcept;

// Throws for a failed driver call: the driver's own text, and the status the
// core maps to the right Python exception.
void check(CUresult r, const char* what);

template <class F>
MFStatus guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    set_last_error(e.what());
    return e.status;
  } catch (const std::bad_alloc&) {
    set_last_error("cuda: out of host memory");
    return MF_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return MF_ERR_INTERNAL;
  } catch (...) {
    set_last_error("cuda: unknown C++ exception");
    return MF_ERR_INTERNAL;
  }
}

}  // namespace mfcuda
