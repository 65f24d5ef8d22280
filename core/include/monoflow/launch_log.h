// Which ops were launched on a device since its last synchronization, so that
// an asynchronous kernel error, reported by a later sync, names the op that
// failed instead of surfacing as if the unrelated later call had failed
// (issue 14, item 10). MONOFLOW_LAUNCH_BLOCKING=1 makes every kernel launch
// synchronous, so the error is raised by the op itself, with its traceback.
#pragma once
#include <string>

namespace monoflow::launch_log {

// Hot path: one thread-local store per kernel launch.
void record(const void* backend, int device, const char* op) noexcept;
// Forgets this thread's launches on (backend, device): they have completed.
void mark_synced(const void* backend, int device) noexcept;
// A note for the error `message` reported by a sync of (backend, device):
// which recorded op it most likely belongs to and which ops were pending.
std::string describe(const void* backend, int device, const std::string& device_name, const char* message);
// Whether MONOFLOW_LAUNCH_BLOCKING is set (read once).
bool blocking() noexcept;

// While one lives on this thread, a kernel error reported by a synchronization is the op's
// own (the launch waited for its kernel): describe() adds no note.
struct OwnKernelWait {
  OwnKernelWait();
  ~OwnKernelWait();
};

}  // namespace monoflow::launch_log
