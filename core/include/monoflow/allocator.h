// Stream-ordered caching allocator over a plugin's raw allocate/free.
//
// Note [Stream-ordered reuse]
//   A freed block returns to the pool of the stream it was allocated on and is
//   only handed out again for that stream. Work on one stream runs in order,
//   so a kernel still reading the old tensor finishes before any kernel that
//   writes the new one: the host never has to wait to recycle memory.
//   Memory goes back to the device only in empty_cache(), after the device's
//   streams are synchronised.
//
// Requests are rounded to 512 bytes. Small requests (<= 1 MiB) are carved out
// of 2 MiB segments, large ones out of segments rounded to 2 MiB; a cached
// block larger than needed is split and the halves merge again when both are
// free. If the device is out of memory, the cache is emptied and the raw
// allocation retried once before OutOfMemoryError is raised.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>
#include <vector>

#include "monoflow/plugin.h"

namespace monoflow {

struct AllocatorStats {
  int64_t allocated_bytes = 0;       // in blocks handed out (rounded sizes)
  int64_t reserved_bytes = 0;        // held from the device in segments
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t num_allocs = 0;            // block requests served
  int64_t cache_hits = 0;            // requests served without a raw allocation
  int64_t num_raw_allocs = 0;        // calls to the plugin's allocate
  int64_t num_raw_frees = 0;         // calls to the plugin's deallocate
  int64_t num_oom_retries = 0;       // raw allocations retried after emptying the cache
  int64_t active_blocks = 0;
};

struct Block;

class CachingAllocator {
 public:
  // raw_alloc returns MF_OK / MF_ERR_OUT_OF_MEMORY / other errors; sync_all
  // waits for every stream of the device (before memory is returned to it).
  using RawAlloc = std::function<MFStatus(size_t, void**)>;
  using RawFree = std::function<void(void*)>;
  using SyncAll = std::function<void()>;
  using ErrorMessage = std::function<std::string()>;

  CachingAllocator(std::string device_name, RawAlloc raw_alloc, RawFree raw_free, SyncAll sync_all,
                   ErrorMessage last_error);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Never returns null for nbytes > 0; throws OutOfMemoryError.
  Block* allocate(size_t nbytes, MFStream stream);
  void free(Block* block);
  static void* block_ptr(const Block* b);

  void empty_cache();
  void reset_peak();
  AllocatorStats stats() const;

 private:
  struct Pool;
  // A profiler memory row (Note [Profiler events]); called with mu_ held.
  void record_memory(int64_t bytes) const;
  Block* try_from_pool(Pool& pool, size_t size, MFStream stream);
  Block* new_segment(Pool& pool, size_t size, MFStream stream);
  void release_cached_segments();  // caller holds mu_

  std::string device_name_;
  RawAlloc raw_alloc_;
  RawFree raw_free_;
  SyncAll sync_all_;
  ErrorMessage last_error_;
  mutable std::mutex mu_;
  Pool* small_;
  Pool* large_;
  AllocatorStats stats_;
};

}  // namespace monoflow
