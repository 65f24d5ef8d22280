#include "monoflow/collective/enqueue.h"

#include "monoflow/collective/backends.h"
#include "monoflow/collective/file_store.h"
#include "monoflow/collective/shm_all_reduce.h"
#include "monoflow/collective/tcp_store.h"
#include "monoflow/dtype.h"
#include "monoflow/profiler.h"

namespace monoflow::collective {

namespace {
std::vector<StreamFence> fences(const std::string& device) {
  std::vector<StreamFence> f;
  if (!device.empty()) f.emplace_back(parse_device(device));
  return f;
}
void* ptr(uintptr_t p) { return reinterpret_cast<void*>(p); }
DType dt(int d) { return static_cast<DType>(d); }
ReduceOp rop(int op) { return static_cast<ReduceOp>(op); }
size_t total(const std::vector<size_t>& counts) {
  size_t n = 0;
  for (size_t c : counts) n += c;
  return n;
}

// The collective as the group's communication thread runs it, recorded as a
// profiler row with the bytes this rank contributes and the peer (-1: all).
template <class Run>
auto traced(const char* name, size_t count, int dtype, int peer, Run run) {
  return [=](Communicator& c) {
    profiler::Range row(profiler::Kind::Collective, name);
    if (profiler::Event* e = row.event()) {
      e->bytes = static_cast<int64_t>(count * itemsize(dt(dtype)));
      e->extra = peer;
    }
    run(c);
  };
}
}  // namespace

StorePtr make_tcp_store(const std::string& host, int port, bool is_server, int64_t timeout_ms,
                        const std::string& bind_host, const std::string& job_id, int64_t rank, int64_t world_size,
                        const std::string& secret) {
  return std::make_shared<TCPStore>(host, port, is_server, Millis(timeout_ms), bind_host,
                                    StoreIdentity{job_id, rank, world_size, secret});
}
StorePtr make_file_store(const std::string& dir, int64_t timeout_ms) {
  return std::make_shared<FileStore>(dir, Millis(timeout_ms));
}
StorePtr make_prefix_store(const std::string& prefix, StorePtr base) {
  return std::make_shared<PrefixStore>(prefix, std::move(base));
}
int tcp_store_port(const StorePtr& store) {
  auto* t = dynamic_cast<TCPStore*>(store.get());
  return t ? t->port() : -1;
}

GroupPtr make_group(const std::string& backend, StorePtr store, int rank, int size, int64_t timeout_ms,
                    const std::string& master_addr, const std::vector<std::string>& nccl_dirs) {
  // Before any engine sees them: Gloo's own check is an enforce failure on
  // one rank while the others wait out the timeout.
  if (size < 1) throw CommError("process group: world size must be positive, got " + std::to_string(size));
  if (rank < 0 || rank >= size)
    throw CommError("process group: rank " + std::to_string(rank) + " is out of range for world size " +
                    std::to_string(size));
  std::unique_ptr<Communicator> comm;
  if (backend == "gloo") {
    comm = make_gloo(store, rank, size, Millis(timeout_ms), "", master_addr);
    comm = with_shared_memory(std::move(comm), std::move(store), Millis(timeout_ms));
  } else if (backend == "nccl") {
    nccl_library_path(nccl_dirs);  // the clear "not found" error before anything else
    throw CommError("NCCL backend: found " + nccl_library_path(nccl_dirs) +
                    ", but no CUDA device plugin is loaded to give it device memory and a stream");
  } else if (backend == "mpi") {
    comm = make_mpi(std::move(store), rank, size, Millis(timeout_ms), nccl_dirs);
  } else {
    throw CommError("unknown backend '" + backend + "' (expected 'gloo', 'nccl' or 'mpi')");
  }
  return std::make_shared<ProcessGroup>(std::move(comm));
}

WorkPtr enqueue_all_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op, const std::string& dev) {
  return g->enqueue(traced("all_reduce", count, dtype, -1,
                           [=](Communicator& c) { c.all_reduce(ptr(buf), count, dt(dtype), rop(op)); }),
                    fences(dev));
}
WorkPtr enqueue_broadcast(GroupPtr g, uintptr_t buf, size_t count, int dtype, int root, const std::string& dev) {
  return g->enqueue(traced("broadcast", count, dtype, root,
                           [=](Communicator& c) { c.broadcast(ptr(buf), count, dt(dtype), root); }),
                    fences(dev));
}
WorkPtr enqueue_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op, int root,
                       const std::string& dev) {
  return g->enqueue(traced("reduce", count, dtype, root,
                           [=](Communicator& c) { c.reduce(ptr(buf), count, dt(dtype), rop(op), root); }),
                    fences(dev));
}
WorkPtr enqueue_all_gather(GroupPtr g, uintptr_t in, uintptr_t out, std::vector<size_t> counts, int dtype,
                           const std::string& dev) {
  return g->enqueue(traced("all_gather", total(counts), dtype, -1,
                           [=](Communicator& c) { c.all_gather(ptr(in), ptr(out), counts, dt(dtype)); }),
                    fences(dev));
}
WorkPtr enqueue_gather(GroupPtr g, uintptr_t in, uintptr_t out, size_t count, int dtype, int root,
                       const std::string& dev) {
  return g->enqueue(traced("gather", count, dtype, root,
                           [=](Communicator& c) { c.gather(ptr(in), ptr(out), count, dt(dtype), root); }),
                    fences(dev));
}
WorkPtr enqueue_scatter(GroupPtr g, uintptr_t in, uintptr_t out, size_t count, int dtype, int root,
                        const std::string& dev) {
  return g->enqueue(traced("scatter", count, dtype, root,
                           [=](Communicator& c) { c.scatter(ptr(in), ptr(out), count, dt(dtype), root); }),
                    fences(dev));
}
WorkPtr enqueue_reduce_scatter(GroupPtr g, uintptr_t in, uintptr_t out, std::vector<size_t> counts, int dtype,
                               int op, const std::string& dev) {
  return g->enqueue(traced("reduce_scatter", total(counts), dtype, -1,
                           [=](Communicator& c) { c.reduce_scatter(ptr(in), ptr(out), counts, dt(dtype), rop(op)); }),
                    fences(dev));
}
WorkPtr enqueue_all_to_all(GroupPtr g, uintptr_t in, std::vector<size_t> ic, uintptr_t out, std::vector<size_t> oc,
                           int dtype, const std::string& dev) {
  return g->enqueue(traced("all_to_all", total(ic), dtype, -1,
                           [=](Communicator& c) { c.all_to_all(ptr(in), ic, ptr(out), oc, dt(dtype)); }),
                    fences(dev));
}
WorkPtr enqueue_send(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                     const std::string& dev) {
  uint64_t slot = g->comm().p2p_slot(peer, true, tag);  // at issue time: Note [Gloo tags and slots]
  return g->enqueue_p2p(traced("send", count, dtype, peer,
                               [=](Communicator& c) { c.send(ptr(buf), count, dt(dtype), peer, slot); }),
                        fences(dev));
}
WorkPtr enqueue_recv(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                     const std::string& dev) {
  uint64_t slot = g->comm().p2p_slot(peer, false, tag);
  return g->enqueue_p2p(traced("recv", count, dtype, peer,
                               [=](Communicator& c) { c.recv(ptr(buf), count, dt(dtype), peer, slot); }),
                        fences(dev));
}
WorkPtr enqueue_barrier(GroupPtr g) {
  return g->enqueue(traced("barrier", 0, 0, -1, [](Communicator& c) { c.barrier(); }), {});
}

CommStats comm_stats(const GroupPtr& g) { return g->comm().stats(); }
void reset_comm_stats(const GroupPtr& g) { g->comm().reset_stats(); }

bool gloo_built() { return gloo_available(); }
bool nccl_found(const std::vector<std::string>& dirs) { return nccl_available(dirs); }
bool mpi_found(const std::vector<std::string>& dirs) { return mpi_available(dirs); }
std::string nccl_path(const std::vector<std::string>& dirs) { return nccl_library_path(dirs); }

}  // namespace monoflow::collective
