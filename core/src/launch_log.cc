#include "monoflow/launch_log.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace monoflow::launch_log {
namespace {

// A ring of this thread's last launches. Thread-local: no atomics on the hot
// path; a sync on another thread than the launch only loses the note.
constexpr int kEntries = 32;
struct Entry {
  const void* backend = nullptr;
  int device = 0;
  const char* op = nullptr;  // an op's static name; null once synced
};
struct Ring {
  Entry entries[kEntries];
  unsigned next = 0;
};
thread_local Ring t_ring;

// Whether `message` is an error of `op` (kernels prefix their messages with
// "<op>:"), anywhere in it: the core may prefix it further.
bool names_op(const char* message, const char* op) {
  const size_t n = std::strlen(op);
  for (const char* p = std::strstr(message, op); p; p = std::strstr(p + 1, op)) {
    const bool starts_word = p == message || !(std::isalnum(static_cast<unsigned char>(p[-1])) || p[-1] == '_');
    if (starts_word && p[n] == ':') return true;
  }
  return false;
}

}  // namespace

void record(const void* backend, int device, const char* op) noexcept {
  Ring& r = t_ring;
  r.entries[r.next % kEntries] = Entry{backend, device, op};
  ++r.next;
}

void mark_synced(const void* backend, int device) noexcept {
  for (Entry& e : t_ring.entries)
    if (e.backend == backend && e.device == device) e.op = nullptr;
}

namespace {
thread_local int t_own_kernel_wait = 0;
}  // namespace

OwnKernelWait::OwnKernelWait() { ++t_own_kernel_wait; }
OwnKernelWait::~OwnKernelWait() { --t_own_kernel_wait; }

std::string describe(const void* backend, int device, const std::string& device_name, const char* message) {
  if (blocking() || t_own_kernel_wait) return {};  // the launch waited: the error is the op's own
  Ring& r = t_ring;
  std::string pending;
  const char* culprit = nullptr;
  int count = 0;
  const unsigned first = r.next > kEntries ? r.next - kEntries : 0;
  for (unsigned i = first; i < r.next; ++i) {  // oldest first
    const Entry& e = r.entries[i % kEntries];
    if (e.backend != backend || e.device != device || !e.op) continue;
    if (!culprit && message && names_op(message, e.op)) culprit = e.op;
    pending += (count++ ? ", " : "") + std::string(e.op);
  }
  std::string note = "\n(This error was raised asynchronously by ";
  note += culprit ? "the '" + std::string(culprit) + "' kernel" : std::string("a kernel");
  note += ", launched on " + device_name + ":" + std::to_string(device) +
          " before the call that reported it, which did not fail itself.";
  if (count)
    note += " Ops launched there since the last synchronization" +
            std::string(r.next - first >= kEntries ? " (the latest ones)" : "") + ", oldest first: " + pending + ".";
  note += " Set MONOFLOW_LAUNCH_BLOCKING=1 to raise kernel errors from the op that failed, with its Python "
          "traceback.)";
  return note;
}

bool blocking() noexcept {
  static const bool on = [] {
    const char* v = std::getenv("MONOFLOW_LAUNCH_BLOCKING");
    return v && *v && std::strcmp(v, "0") != 0;
  }();
  return on;
}

}  // namespace monoflow::launch_log
