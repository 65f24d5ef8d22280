#include "monoflow/profiler.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

#include "monoflow/backend.h"
#include "monoflow/error.h"

namespace monoflow::profiler {

namespace detail {
std::atomic<bool> g_active{false};
}

namespace {

struct Recorder {
  std::mutex mu;
  std::vector<Event> events;
  bool shapes = false;
  bool memory = false;
  std::atomic<uint64_t> correlation{0};
};

Recorder& recorder() {
  static Recorder* r = new Recorder;  // never destroyed: plugin threads may report at exit
  return *r;
}

// The plugins' callback: `user` is the Backend that installed it.
void on_trace(void* user, const MFTraceRecord* r) {
  if (!active() || !r || r->struct_size < sizeof(MFTraceRecord)) return;
  try {
    const auto* be = static_cast<const Backend*>(user);
    Event e;
    const bool copy = r->correlation == 0;
    if (copy && r->name && std::strcmp(r->name, "kernel") == 0) return;  // launched before the profile
    e.kind = copy ? Kind::Memcpy : Kind::Kernel;
    if (r->name) e.name = r->name;
    e.start_ns = r->start_ns;
    e.end_ns = r->end_ns;
    e.thread = thread_id();
    e.device = str_cat(be->name(), ":", r->device);
    e.stream = reinterpret_cast<uint64_t>(r->stream);
    e.correlation = r->correlation;
    e.bytes = static_cast<int64_t>(r->bytes);
    record(std::move(e));
  } catch (...) {
    // a lost row, never an exception into the plugin
  }
}

// Installs (or clears) the tracer of every loaded plugin that has one.
void set_tracers(bool on) {
  DeviceRegistry& reg = DeviceRegistry::get();
  for (const std::string& name : reg.names()) {
    Backend* be = reg.find(name);
    if (!be || !MF_HAS_FIELD(&be->api(), MFDevicePlugin, set_tracer) || !be->api().set_tracer) continue;
    be->api().set_tracer(on ? &on_trace : nullptr, on ? be : nullptr);
  }
}

}  // namespace

bool record_shapes() noexcept { return recorder().shapes; }
bool profile_memory() noexcept { return recorder().memory; }

int64_t now_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t thread_id() noexcept {
  thread_local const int64_t tid = static_cast<int64_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t next_correlation() noexcept { return recorder().correlation.fetch_add(1) + 1; }

void record(Event&& e) noexcept {
  Recorder& r = recorder();
  try {
    std::lock_guard<std::mutex> lock(r.mu);
    if (active()) r.events.push_back(std::move(e));
  } catch (...) {
    // out of memory while recording: the row is lost, the program goes on
  }
}

namespace {
// Waits for every device's default stream, errors kept for the program's next sync point.
void drain_devices() {
  DeviceRegistry& reg = DeviceRegistry::get();
  for (const std::string& name : reg.names())
    if (Backend* be = reg.find(name))
      for (int i = 0; i < be->device_count(); ++i) be->synchronize_deferring_errors(i);
}
}  // namespace

void start(bool shapes, bool memory) {
  Recorder& r = recorder();
  MF_CHECK(!active(), RuntimeError, "profiler: a profile is already recording (profiles do not nest)");
  drain_devices();  // work launched before the profile is not its to report
  {
    std::lock_guard<std::mutex> lock(r.mu);
    MF_CHECK(!active(), RuntimeError, "profiler: a profile is already recording (profiles do not nest)");
    r.events.clear();
    r.shapes = shapes;
    r.memory = memory;
    detail::g_active.store(true);
  }
  set_tracers(true);
}

std::vector<Event> stop() {
  Recorder& r = recorder();
  if (!active()) return {};
  drain_devices();  // the kernels launched while recording run and report
  set_tracers(false);
  std::lock_guard<std::mutex> lock(r.mu);
  detail::g_active.store(false);
  std::vector<Event> out;
  out.swap(r.events);
  return out;
}

void Range::begin(Kind kind, const char* name) noexcept {
  try {
    e_ = std::make_unique<Event>();
    e_->kind = kind;
    e_->name = name;
    e_->thread = thread_id();
    e_->start_ns = now_ns();
  } catch (...) {
    e_.reset();
  }
}

void Range::end() noexcept {
  e_->end_ns = now_ns();
  record(std::move(*e_));
}

}  // namespace monoflow::profiler
