// Storage: one allocation of device memory that tensors view.
#pragma once
#include <cstddef>
#include <cstdint>
#include <atomic>
#include <memory>
#include <vector>

#include "monoflow/device.h"

namespace monoflow {

struct Block;

struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  Block* block = nullptr;             // set when the caching allocator owns the memory
  void (*release)(void* ctx) = nullptr;  // set for memory borrowed from elsewhere (numpy)
  void* release_ctx = nullptr;
  // Bumped by every in-place write; shared by all views of this storage so
  // that autograd can detect that a saved tensor was modified.
  int64_t version = 0;
  // Note [Host-visible memory]: set once the memory is shared with the host
  // (from_numpy, .numpy(), DLPack). Kernels touching it then complete before
  // the op returns, so host code sees the eager, PyTorch-like order of
  // effects; other tensors keep running asynchronously.
  bool host_visible = false;
  // Note [Offloaded storage]: relocate_storage() (ops.h) moved these bytes
  // to host memory from `home`; load() moves them back there.
  bool offloaded = false;
  Device home;
  // Note [Exported memory]: numpy arrays (.numpy()) and DLPack capsules view this memory
  // directly and hold this Storage while they live (`exports` counts them). A tensor
  // that takes another storage (set_, .data =, resize_) leaves this one to them; a move
  // in place (swap_memory: share_memory_, offload) parks the old memory in `retired`
  // while any of them lives, so no exported view ever points at freed memory.
  std::atomic<int> exports{0};
  std::vector<std::shared_ptr<Storage>> retired;

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();

  // Allocates nbytes on `device` through its caching allocator.
  static std::shared_ptr<Storage> allocate(Device device, size_t nbytes);
  // Wraps memory owned by someone else; `release(ctx)` runs when the last
  // view dies (after the device's pending work on it is done).
  static std::shared_ptr<Storage> borrow(Device device, void* data, size_t nbytes, void (*release)(void*),
                                         void* ctx);
  // Note [Moving a storage in place]: exchanges the memory, and where it
  // lives, with `other`. A tensor's views share this Storage object, so they
  // all see the new memory; `other` then holds the old one and frees it the
  // usual way when it goes. The version and the offload record stay.
  // Used by share_memory_() (shared memory segments) and relocate_storage().
  void swap_memory(Storage& other);
  // After swap_memory: keeps `old` (now holding the previous memory) while exports live.
  void retire_if_exported(std::shared_ptr<Storage> old);
  void begin_export() { exports.fetch_add(1); }
  // An export ends; the last one lets the retired memory go.
  void end_export();
};

}  // namespace monoflow
