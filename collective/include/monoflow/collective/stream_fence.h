// StreamFence: "the compute queued so far on a device's stream is done".
//
// Note [Collectives and the compute stream]
//   Kernels run asynchronously on the device's stream (a worker thread on the
//   CPU), so a tensor handed to a collective may still be being written. The
//   caller records a fence on the tensor's stream when it enqueues the
//   collective (cheap, does not block Python) and the communication thread
//   waits on it before giving the buffer to the engine. Compute queued after
//   the collective is not ordered after it: as in PyTorch, the caller waits on
//   the Work (the synchronous API does so) before touching the buffers again.
#pragma once
#include <string>

#include "monoflow/device.h"
#include "monoflow/plugin.h"

namespace monoflow::collective {

class StreamFence {
 public:
  StreamFence() = default;
  explicit StreamFence(const Device& device);  // records on its default stream
  StreamFence(StreamFence&& o) noexcept;
  StreamFence& operator=(StreamFence&& o) noexcept;
  StreamFence(const StreamFence&) = delete;
  ~StreamFence();
  void wait();  // no-op for an empty fence; waits at most once

 private:
  void release();
  Device device_;
  MFEvent event_ = nullptr;
  const MFDevicePlugin* api_ = nullptr;
};

}  // namespace monoflow::collective
