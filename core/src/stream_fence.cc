#include "monoflow/stream_fence.h"

#include <utility>

#include "monoflow/backend.h"

namespace monoflow {

StreamFence::StreamFence(const Device& device)
    : StreamFence(device, DeviceRegistry::get().backend(device).stream(device.index)) {}

StreamFence::StreamFence(const Device& device, MFStream stream) : device_(device) {
  Backend& b = DeviceRegistry::get().backend(device);
  MFEvent ev = nullptr;
  b.check(b.api().event_create(device.index, &ev), "stream fence: event_create");
  MFStatus st = b.api().event_record(device.index, ev, stream);
  if (st != MF_OK) {
    b.api().event_destroy(device.index, ev);
    b.check(st, "stream fence: event_record");
  }
  event_ = ev;
  api_ = &b.api();
}

StreamFence::StreamFence(StreamFence&& o) noexcept
    : device_(o.device_), event_(std::exchange(o.event_, nullptr)), api_(o.api_) {}

StreamFence& StreamFence::operator=(StreamFence&& o) noexcept {
  if (this != &o) {
    release();
    device_ = o.device_;
    event_ = std::exchange(o.event_, nullptr);
    api_ = o.api_;
  }
  return *this;
}

StreamFence::~StreamFence() { release(); }

void StreamFence::release() {
  if (event_) api_->event_destroy(device_.index, event_);
  event_ = nullptr;
}

bool StreamFence::wait() {
  if (!event_) return true;
  MFStatus st = api_->event_synchronize(device_.index, event_);
  release();
  return st == MF_OK || st == MF_NOT_READY;
}

}  // namespace monoflow
