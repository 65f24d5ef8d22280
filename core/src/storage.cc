#include "monoflow/storage.h"

#include <utility>

#include "monoflow/backend.h"

namespace monoflow {

std::shared_ptr<Storage> Storage::allocate(Device device, size_t nbytes) {
  auto s = std::make_shared<Storage>();
  s->device = device;
  s->nbytes = nbytes;
  if (nbytes > 0) {
    Backend& b = DeviceRegistry::get().backend(device);
    s->block = b.allocator(device.index).allocate(nbytes, b.stream(device.index));
    s->data = CachingAllocator::block_ptr(s->block);
  }
  return s;
}

void Storage::swap_memory(Storage& other) {
  std::swap(data, other.data);
  std::swap(nbytes, other.nbytes);
  std::swap(device, other.device);
  std::swap(block, other.block);
  std::swap(release, other.release);
  std::swap(release_ctx, other.release_ctx);
  std::swap(host_visible, other.host_visible);
}

void Storage::retire_if_exported(std::shared_ptr<Storage> old) {
  if (exports.load() > 0) retired.push_back(std::move(old));
}

void Storage::end_export() {
  if (exports.fetch_sub(1) == 1) retired.clear();
}

std::shared_ptr<Storage> Storage::borrow(Device device, void* data, size_t nbytes, void (*release)(void*),
                                         void* ctx) {
  auto s = std::make_shared<Storage>();
  s->device = device;
  s->data = data;
  s->nbytes = nbytes;
  s->release = release;
  s->release_ctx = ctx;
  s->host_visible = true;
  return s;
}

Storage::~Storage() {
  Backend& b = DeviceRegistry::get().backend(device);
  if (block) {
    // Stream-ordered: safe to recycle without waiting (Note [Stream-ordered reuse]).
    b.allocator(device.index).free(block);
  } else if (release) {
    // Borrowed memory may still be read by queued kernels: wait for them. A
    // kernel error seen here is kept for the next sync point (Note
    // [Deferred kernel errors] in backend.cc); the memory must go now.
    b.synchronize_deferring_errors(device.index);
    release(release_ctx);
  }
}

}  // namespace monoflow
