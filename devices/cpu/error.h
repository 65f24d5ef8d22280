// Error plumbing. Inside the plugin failures are C++ exceptions carrying an
// MFStatus; every ABI entry point runs through guarded(), which turns them into
// a status code plus a thread-local message (MFDevicePlugin::last_error), so no
// exception ever crosses the C boundary.
#pragma once

#include <monoflow/plugin.h>

#include <new>
#include <stdexcept>
#include <string>

namespace mfcpu {

class Error : public std::runtime_error {
 public:
  Error(MFStatus status, const std::string& message) : std::runtime_error(message), status(status) {}
  MFStatus status;
};

[[noreturn]] inline void fail(MFStatus status, const std::string& message) {
  throw Error(status, message);
}

// Thread-local message returned by last_error(); never allocates, never throws.
void set_last_error(const char* message) noexcept;
const char* last_error_message() noexcept;

// Maps the exception being handled to a status and its message (valid while the
// exception is being handled). Call only from inside a catch block.
inline MFStatus classify_current_exception(const char** message) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    *message = e.what();
    return e.status;
  } catch (const std::bad_alloc&) {
    *message = "out of memory";
    return MF_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    *message = e.what();
    return MF_ERR_INTERNAL;
  } catch (...) {
    *message = "unknown C++ exception";
    return MF_ERR_INTERNAL;
  }
}

template <class F>
MFStatus guarded(F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    const char* message = nullptr;
    const MFStatus status = classify_current_exception(&message);
    set_last_error(message);
    return status;
  }
}

}  // namespace mfcpu
