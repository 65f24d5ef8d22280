#include "monoflow/allocator.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "monoflow/error.h"
#include "monoflow/profiler.h"

namespace monoflow {

namespace {
constexpr size_t kRound = 512;
constexpr size_t kSmallLimit = 1 << 20;     // requests up to 1 MiB use the small pool
constexpr size_t kSmallSegment = 2 << 20;   // which is carved from 2 MiB segments
constexpr size_t kSegmentRound = 2 << 20;   // large segments round to 2 MiB

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
}  // namespace

struct Block {
  void* ptr = nullptr;
  size_t size = 0;
  MFStream stream = nullptr;
  bool allocated = false;
  bool is_small = false;
  Block* prev = nullptr;  // neighbours inside the same segment
  Block* next = nullptr;
};

namespace {
struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
  }
};
}  // namespace

struct CachingAllocator::Pool {
  std::set<Block*, BlockOrder> free_blocks;
  bool small;
};

CachingAllocator::CachingAllocator(std::string device_name, RawAlloc raw_alloc, RawFree raw_free,
                                   SyncAll sync_all, ErrorMessage last_error)
    : device_name_(std::move(device_name)),
      raw_alloc_(std::move(raw_alloc)),
      raw_free_(std::move(raw_free)),
      sync_all_(std::move(sync_all)),
      last_error_(std::move(last_error)),
      small_(new Pool{{}, true}),
      large_(new Pool{{}, false}) {}

CachingAllocator::~CachingAllocator() {
  // Process exit: live tensors may still point into segments, so only the
  // cached (unused) segments go back to the device.
  try {
    std::lock_guard<std::mutex> lock(mu_);
    release_cached_segments();
  } catch (...) {
  }
  delete small_;
  delete large_;
}

void* CachingAllocator::block_ptr(const Block* b) { return b->ptr; }

Block* CachingAllocator::try_from_pool(Pool& pool, size_t size, MFStream stream) {
  Block key;
  key.stream = stream;
  key.size = size;
  key.ptr = nullptr;
  auto it = pool.free_blocks.lower_bound(&key);
  if (it == pool.free_blocks.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  // Best fit: the smallest cached block of this stream that is large enough;
  // allocate() splits off what the request does not need.
  pool.free_blocks.erase(it);
  return b;
}

Block* CachingAllocator::new_segment(Pool& pool, size_t size, MFStream stream) {
  size_t seg = pool.small ? kSmallSegment : round_up(size, kSegmentRound);
  void* ptr = nullptr;
  MFStatus st = raw_alloc_(seg, &ptr);
  if (st == MF_ERR_OUT_OF_MEMORY) {
    // Note [OOM retry]: everything cached goes back to the device, then one retry.
    ++stats_.num_oom_retries;
    sync_all_();
    release_cached_segments();
    st = raw_alloc_(seg, &ptr);
  }
  if (st != MF_OK && st != MF_ERR_OUT_OF_MEMORY) {  // a broken device, not a full one
    std::string why = last_error_();
    throw RuntimeError(str_cat(device_name_, ": allocating ", seg, " bytes failed (status ", static_cast<int>(st),
                               ")", why.empty() ? "" : ": ", why));
  }
  if (st != MF_OK || !ptr) {
    std::string why = last_error_();
    throw OutOfMemoryError(str_cat(device_name_, ": out of memory trying to allocate ", size,
                                   " bytes (allocated ", stats_.allocated_bytes, " bytes, reserved ",
                                   stats_.reserved_bytes, " bytes after emptying the cache)",
                                   why.empty() ? "" : ": ", why));
  }
  ++stats_.num_raw_allocs;
  stats_.reserved_bytes += static_cast<int64_t>(seg);
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  Block* b = new Block;
  b->ptr = ptr;
  b->size = seg;
  b->stream = stream;
  b->is_small = pool.small;
  return b;
}

Block* CachingAllocator::allocate(size_t nbytes, MFStream stream) {
  // No device holds half the address space; refusing here also keeps the
  // rounding below from wrapping around to a tiny block.
  if (nbytes > std::numeric_limits<size_t>::max() / 2)
    throw OutOfMemoryError(str_cat(device_name_, ": out of memory trying to allocate ", nbytes, " bytes"));
  size_t size = round_up(std::max<size_t>(nbytes, 1), kRound);
  std::lock_guard<std::mutex> lock(mu_);
  Pool& pool = size <= kSmallLimit ? *small_ : *large_;
  Block* b = try_from_pool(pool, size, stream);
  if (b)
    ++stats_.cache_hits;
  else
    b = new_segment(pool, size, stream);
  // Split off the tail whenever there is one. A large-pool tail of at most
  // kSmallLimit serves no request by itself (small requests use the small
  // pool) but it is free memory, not this block's: counting it as allocated
  // would make a 9 MB request weigh its whole 10 MiB segment. Freed, the
  // block merges with it again.
  size_t remaining = b->size - size;
  if (remaining >= kRound) {
    Block* tail = new Block;
    tail->ptr = static_cast<char*>(b->ptr) + size;
    tail->size = remaining;
    tail->stream = stream;
    tail->is_small = b->is_small;
    tail->prev = b;
    tail->next = b->next;
    if (b->next) b->next->prev = tail;
    b->next = tail;
    b->size = size;
    pool.free_blocks.insert(tail);
  }
  b->allocated = true;
  ++stats_.num_allocs;
  ++stats_.active_blocks;
  stats_.allocated_bytes += static_cast<int64_t>(b->size);
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  if (profiler::active()) record_memory(static_cast<int64_t>(b->size));
  return b;
}

void CachingAllocator::record_memory(int64_t bytes) const {
  if (!profiler::profile_memory()) return;
  profiler::Event e;
  e.kind = profiler::Kind::Memory;
  e.name = bytes >= 0 ? "alloc" : "free";
  e.start_ns = e.end_ns = profiler::now_ns();
  e.thread = profiler::thread_id();
  e.device = device_name_;
  e.bytes = bytes;
  e.allocated = stats_.allocated_bytes;
  e.reserved = stats_.reserved_bytes;
  profiler::record(std::move(e));
}

void CachingAllocator::free(Block* b) {
  std::lock_guard<std::mutex> lock(mu_);
  Pool& pool = b->is_small ? *small_ : *large_;
  b->allocated = false;
  --stats_.active_blocks;
  stats_.allocated_bytes -= static_cast<int64_t>(b->size);
  if (profiler::active()) record_memory(-static_cast<int64_t>(b->size));
  // Merge with free neighbours of the same segment.
  for (Block* n : {b->prev, b->next}) {
    if (!n || n->allocated) continue;
    pool.free_blocks.erase(n);
    if (n == b->prev) {
      n->size += b->size;
      n->next = b->next;
      if (b->next) b->next->prev = n;
      delete b;
      b = n;
    } else {
      b->size += n->size;
      b->next = n->next;
      if (n->next) n->next->prev = b;
      delete n;
    }
  }
  pool.free_blocks.insert(b);
}

void CachingAllocator::release_cached_segments() {
  for (Pool* pool : {small_, large_}) {
    for (auto it = pool->free_blocks.begin(); it != pool->free_blocks.end();) {
      Block* b = *it;
      if (b->prev || b->next) {  // part of a segment still in use
        ++it;
        continue;
      }
      raw_free_(b->ptr);
      ++stats_.num_raw_frees;
      stats_.reserved_bytes -= static_cast<int64_t>(b->size);
      delete b;
      it = pool->free_blocks.erase(it);
    }
  }
}

void CachingAllocator::empty_cache() {
  sync_all_();
  std::lock_guard<std::mutex> lock(mu_);
  release_cached_segments();
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mu_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

}  // namespace monoflow
