// StreamFence: "the work enqueued so far on a device stream is done", an
// event recorded on the stream. Kernels run asynchronously on the stream (a
// worker thread on the CPU), so whoever hands their results to work outside
// the stream (a collective's communication thread, a graph's host node)
// records a fence when that work is enqueued and waits on it before touching
// the buffers (Note [Collectives and the compute stream] in
// collective/process_group.h, Note [Host nodes] in graph/host_node.h).
#pragma once
#include "monoflow/device.h"
#include "monoflow/plugin.h"

namespace monoflow {

class StreamFence {
 public:
  StreamFence() = default;
  explicit StreamFence(const Device& device);          // on the device's default stream
  StreamFence(const Device& device, MFStream stream);  // on `stream`
  StreamFence(StreamFence&& o) noexcept;
  StreamFence& operator=(StreamFence&& o) noexcept;
  StreamFence(const StreamFence&) = delete;
  ~StreamFence();
  // Waits (at most once; a no-op for an empty fence). False when waiting
  // failed; the caller reports it in its own terms. A kernel's own error
  // stays with its stream and reaches Python at the stream's next sync.
  bool wait();
  const Device& device() const { return device_; }

 private:
  void release();
  Device device_;
  MFEvent event_ = nullptr;
  const MFDevicePlugin* api_ = nullptr;
};

}  // namespace monoflow
