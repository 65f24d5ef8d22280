#include "trace.h"

#include <time.h>

#include <atomic>
#include <mutex>

#include "stream.h"

namespace mfcpu {
namespace {
// fn and user change together under the mutex; the worker reads both under
// it only when the relaxed flag says a tracer is set, so an idle profiler
// costs the worker one load per task.
std::atomic<bool> g_on{false};
std::mutex g_mu;
MFTraceFn g_fn = nullptr;
void* g_user = nullptr;
}  // namespace

MFStatus set_tracer(MFTraceFn fn, void* user) noexcept {
  std::lock_guard<std::mutex> lock(g_mu);
  g_fn = fn;
  g_user = user;
  g_on.store(fn != nullptr, std::memory_order_relaxed);
  return MF_OK;
}

bool tracing() noexcept { return g_on.load(std::memory_order_relaxed); }

int64_t trace_clock_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void report_trace(MFStream stream, const Task& task, int64_t start_ns, int64_t end_ns) noexcept {
  MFTraceRecord r{sizeof(MFTraceRecord), 0, stream, task.trace_id, task.trace_name, start_ns, end_ns,
                  task.trace_id ? 0 : uint64_t(task.nbytes)};
  std::lock_guard<std::mutex> lock(g_mu);  // the tracer cannot be cleared while it is called
  if (g_fn) g_fn(g_user, &r);
}

}  // namespace mfcpu
