// Device addresses for cl_mem buffers (Note [Device addresses] in plugin.h).
#include <sys/mman.h>

#include <map>

#include "runtime.h"

namespace mfocl {

namespace {

// Note [Address range]
//   allocate hands out addresses from one range of virtual address space that
//   is reserved PROT_NONE and MAP_NORESERVE: no page is ever backed, any
//   dereference by the core faults at once, and no host pointer (numpy, a
//   pinned buffer) can equal a device address. Addresses are handed out
//   first-fit from a free list ordered by address and coalesced on free, so
//   the range is reused; 1 TiB of reservation costs nothing but page tables.
//   Each allocation is backed by its own cl_mem of exactly its size.
constexpr size_t kRangeBytes = size_t(1) << 40;
constexpr size_t kAlign = 256;  // >= every dtype, and CL_DEVICE_MEM_BASE_ADDR_ALIGN

struct Allocation {
  size_t size;     // bytes requested
  size_t span;     // bytes of address range taken (aligned, >= 1)
  cl_mem mem;
  int32_t device;
};

struct Memory {
  std::mutex mu;
  uintptr_t base = 0;
  std::map<uintptr_t, size_t> free;        // start -> length
  std::map<uintptr_t, Allocation> live;    // start -> allocation
};

Memory& memory() {
  static Memory* m = [] {
    auto* mm = new Memory();
    void* p = mmap(nullptr, kRangeBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      mm->base = reinterpret_cast<uintptr_t>(p);
      mm->free[mm->base] = kRangeBytes;
    }
    return mm;
  }();
  return *m;
}

uintptr_t take_range_locked(Memory& m, size_t span) {
  for (auto it = m.free.begin(); it != m.free.end(); ++it) {
    if (it->second < span) continue;
    const uintptr_t start = it->first;
    const size_t rest = it->second - span;
    m.free.erase(it);
    if (rest) m.free[start + span] = rest;
    return start;
  }
  return 0;
}

void give_range_locked(Memory& m, uintptr_t start, size_t span) {
  auto next = m.free.lower_bound(start);
  if (next != m.free.end() && start + span == next->first) {
    span += next->second;
    next = m.free.erase(next);
  }
  if (next != m.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += span;
      return;
    }
  }
  m.free[start] = span;
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

}  // namespace

void* allocate(int32_t device_index, size_t nbytes) {
  const Device& d = device(device_index);
  Memory& m = memory();
  if (m.base == 0) raise(MF_ERR_INTERNAL, "could not reserve the device address range (mmap failed)");
  const size_t span = (std::max<size_t>(nbytes, 1) + kAlign - 1) / kAlign * kAlign;
  cl_int err = CL_SUCCESS;
  cl_mem mem = clCreateBuffer(d.context, CL_MEM_READ_WRITE, std::max<size_t>(nbytes, 1), nullptr, &err);
  if (err != CL_SUCCESS || mem == nullptr) {
    if (err == CL_INVALID_BUFFER_SIZE || err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_HOST_MEMORY ||
        err == CL_OUT_OF_RESOURCES)
      raise(MF_ERR_OUT_OF_MEMORY, "out of memory allocating " + std::to_string(nbytes) + " bytes on opencl:" +
                                      std::to_string(device_index) + " (" + cl_error_name(err) + ")");
    check_cl(err, "clCreateBuffer");
  }
  std::lock_guard<std::mutex> lock(m.mu);
  const uintptr_t start = take_range_locked(m, span);
  if (start == 0) {
    clReleaseMemObject(mem);
    raise(MF_ERR_OUT_OF_MEMORY, "the device address range is exhausted allocating " + std::to_string(nbytes) + " bytes");
  }
  m.live[start] = Allocation{nbytes, span, mem, device_index};
  return reinterpret_cast<void*>(start);
}

void deallocate(int32_t device_index, void* ptr) {
  device(device_index);
  if (ptr == nullptr) return;
  Memory& m = memory();
  cl_mem mem = nullptr;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    auto it = m.live.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == m.live.end())
      raise(MF_ERR_INVALID_ARGUMENT, "deallocate: " + hex(ptr) + " is not the start of a live opencl allocation");
    if (it->second.device != device_index)
      raise(MF_ERR_INVALID_ARGUMENT, "deallocate: " + hex(ptr) + " belongs to opencl:" +
                                         std::to_string(it->second.device));
    mem = it->second.mem;
    give_range_locked(m, it->first, it->second.span);
    m.live.erase(it);
  }
  // OpenCL keeps the buffer alive until the commands using it have finished.
  clReleaseMemObject(mem);
}

Resolved resolve(const void* ptr, size_t nbytes, int32_t device_index, const char* what) {
  Memory& m = memory();
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(m.mu);
  auto it = m.live.upper_bound(p);
  if (p < m.base || p - m.base >= kRangeBytes || it == m.live.begin())
    raise(MF_ERR_INVALID_ARGUMENT, std::string(what) + " " + hex(ptr) + " is not opencl device memory");
  --it;
  const Allocation& a = it->second;
  const size_t off = p - it->first;
  if (off > a.size || nbytes > a.size - off)
    raise(MF_ERR_INVALID_ARGUMENT, std::string(what) + " [" + hex(ptr) + ", +" + std::to_string(nbytes) +
                                       " bytes) is not inside a live opencl allocation");
  if (device_index >= 0 && a.device != device_index)
    raise(MF_ERR_INVALID_ARGUMENT, std::string(what) + " " + hex(ptr) + " belongs to opencl:" +
                                       std::to_string(a.device) + ", not opencl:" + std::to_string(device_index));
  return Resolved{a.mem, off, a.size, a.device};
}

}  // namespace mfocl
