// The core's event recorder behind monoflow.profiler (Note [Profiler events]).
//
// Note [Profiler events]
//   While a profile is active the core records, with CLOCK_MONOTONIC times
//   (Python's time.monotonic_ns), one event per:
//     - kernel launch on the host ("op": launch() from call to return, the
//       enqueue cost), and the kernel's run on its stream ("kernel"), reported
//       by the plugin through MFDevicePlugin::set_tracer and matched to its
//       launch by a correlation id carried in MFKernelCall::trace_id;
//     - copy/memset a plugin runs on a stream ("memcpy");
//     - autograd node the engine applies ("backward");
//     - allocator block handed out or returned ("memory": signed bytes and the
//       device's allocated/reserved totals after it);
//     - collective run by a group's communication thread ("collective": bytes
//       and peer), and CPU-fallback copy ("fallback");
//     - firing of an nn.Graph actor ("actor": node name and iteration).
//   Off, the hot paths pay one relaxed atomic load and a predictable branch.
//   Events land in one mutex-guarded buffer: recording is for diagnosis, not
//   for the fast path, and a profile is short.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace monoflow::profiler {

enum class Kind : int { Op = 0, Kernel = 1, Memcpy = 2, Backward = 3, Memory = 4, Collective = 5, Actor = 6,
                        Fallback = 7 };

struct Event {
  Kind kind = Kind::Op;
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t thread = 0;        // OS thread id (gettid) of the thread it ran on
  std::string device;        // "cpu:0"; empty when none
  uint64_t stream = 0;       // the plugin's stream handle (kernel/memcpy rows)
  uint64_t correlation = 0;  // op <-> kernel
  int64_t bytes = 0;         // memory: signed; memcpy/collective: moved
  int64_t allocated = 0;     // memory: the device's totals after the event
  int64_t reserved = 0;
  int64_t extra = -1;        // collective: peer (-1 all); actor: iteration
  std::string shapes;        // op: "[[2, 3], [3]]" when shapes are recorded
};

namespace detail {
extern std::atomic<bool> g_active;
}

// The one branch the hot paths pay.
inline bool active() noexcept { return detail::g_active.load(std::memory_order_relaxed); }
bool record_shapes() noexcept;
bool profile_memory() noexcept;

// Starts recording (RuntimeError if already started) and installs the
// plugins' tracers; stop() waits for every device's streams, so that the
// kernels launched while recording have reported, and returns the events.
void start(bool record_shapes, bool profile_memory);
std::vector<Event> stop();

int64_t now_ns() noexcept;
int64_t thread_id() noexcept;
uint64_t next_correlation() noexcept;
void record(Event&& e) noexcept;  // dropped when not active

// Records [construction, destruction) as one event of `kind` when a profile
// is active at construction.
class Range {
 public:
  Range(Kind kind, const char* name) noexcept {
    if (active()) begin(kind, name);
  }
  ~Range() {
    if (e_) end();
  }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
  // The event being recorded (fill in fields before destruction); null when off.
  Event* event() { return e_.get(); }

 private:
  void begin(Kind kind, const char* name) noexcept;
  void end() noexcept;
  std::unique_ptr<Event> e_;  // allocated only while profiling
};

}  // namespace monoflow::profiler
