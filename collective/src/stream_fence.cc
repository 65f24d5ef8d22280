#include "monoflow/collective/stream_fence.h"

#include <utility>

#include "monoflow/backend.h"
#include "monoflow/collective/types.h"

namespace monoflow::collective {

StreamFence::StreamFence(const Device& device) : device_(device) {
  Backend& b = DeviceRegistry::get().backend(device);
  MFStream stream = b.stream(device.index);
  MFEvent ev = nullptr;
  b.check(b.api().event_create(device.index, &ev), "collective: event_create");
  MFStatus st = b.api().event_record(device.index, ev, stream);
  if (st != MF_OK) {
    b.api().event_destroy(device.index, ev);
    b.check(st, "collective: event_record");
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

void StreamFence::wait() {
  if (!event_) return;
  MFStatus st = api_->event_synchronize(device_.index, event_);
  release();
  // A kernel error stays with the stream and reaches Python at its next sync;
  // the collective itself only needs the wait to have happened.
  if (st != MF_OK && st != MF_NOT_READY)
    throw CommError("collective: waiting for the compute stream of " + device_.str() + " failed");
}

}  // namespace monoflow::collective
