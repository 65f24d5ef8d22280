// The plugin's side of profiling (MFDevicePlugin::set_tracer, ABI 1.2): the
// stream worker times each task that has a trace name and reports it.
#pragma once
#include <monoflow/plugin.h>

#include <cstdint>

namespace mfcpu {

struct Task;

MFStatus set_tracer(MFTraceFn fn, void* user) noexcept;
bool tracing() noexcept;           // one relaxed load
int64_t trace_clock_ns() noexcept;  // CLOCK_MONOTONIC, the core's clock
void report_trace(MFStream stream, const Task& task, int64_t start_ns, int64_t end_ns) noexcept;

}  // namespace mfcpu
