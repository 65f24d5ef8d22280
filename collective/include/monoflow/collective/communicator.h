// Communicator: one process group's connection to its peers through one
// engine (Gloo, NCCL). Buffers are contiguous and already in the engine's
// memory; the tensor-level work (staging, dtype checks) is done above it.
//
// Every call blocks the calling thread until this rank's part is done and
// throws CommError on failure or after the timeout. Ordering, threads and
// async handles belong to ProcessGroup (process_group.h), not here.
//
// The public calls are non-virtual: each runs the engine's do_* override and
// then adds the call to the traffic counters, so that every engine counts
// the same way (Note [Traffic counters]).
//
// Note [Traffic counters]
//   Each Communicator counts its completed calls and the bytes this rank
//   received from its peers for them: a property of the collective (the bytes
//   a bandwidth-optimal ring algorithm moves), not of the engine, so that a
//   cost model can predict it from the arguments alone. N = this call's
//   buffer in bytes (count * itemsize), n = group size, r = this rank:
//     all_reduce      2*(n-1)*N/n     (ring reduce-scatter + ring all-gather;
//                                      integer division last)
//     broadcast       N on non-roots, 0 on the root
//     reduce          (n-1)*N/n on non-roots, 2*(n-1)*N/n on the root
//                                     (ring reduce-scatter, then the root
//                                      gathers the other n-1 reduced parts)
//     all_gather      output bytes - rank r's input bytes
//     gather          (n-1)*N on the root (N = one rank's input), 0 elsewhere
//     scatter         N on non-roots (N = one rank's part), 0 on the root
//     reduce_scatter  input bytes - rank r's output bytes
//     all_to_all      bytes of the parts received from the other ranks
//     send 0, recv N, barrier 0.
//   A call that throws adds nothing. The counters are atomics: p2p ops run
//   on their own threads.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <string>
#include <vector>

#include "monoflow/collective/types.h"

namespace monoflow::collective {

// Totals since the communicator was made or last reset.
struct CommStats {
  uint64_t bytes = 0;  // received from peers (Note [Traffic counters])
  uint64_t calls = 0;  // completed calls, barriers and point-to-point included
};

class Communicator {
 public:
  Communicator(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~Communicator() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual const char* backend() const = 0;

  // In place: buf holds this rank's input and receives the result.
  void all_reduce(void* buf, size_t count, DType dtype, ReduceOp op);
  void broadcast(void* buf, size_t count, DType dtype, int root);
  // In place; only the root's buffer receives the result.
  void reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root);
  // out = concatenation of every rank's input; counts[r] = rank r's count.
  void all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype);
  // out (root only, size * count) = concatenation of every rank's input.
  void gather(const void* in, void* out, size_t count, DType dtype, int root);
  // in (root only, size * count) is split; rank r receives part r in out.
  void scatter(const void* in, void* out, size_t count, DType dtype, int root);
  // in = concatenation of size parts (counts[r] elements for rank r); out
  // receives the reduction of every rank's part for this rank.
  void reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype, ReduceOp op);
  // in_counts[r]: elements sent to rank r; out_counts[r]: received from r.
  void all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                  const std::vector<size_t>& out_counts, DType dtype);
  // Point to point. Messages between a pair match in issue order within a
  // tag: the caller takes the slot with p2p_slot() when the user issues the
  // op (the op itself may run later, on another thread), so that the k-th
  // send from A to B meets B's k-th recv from A.
  uint64_t p2p_slot(int peer, bool is_send, uint32_t tag);
  void send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot);
  void recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot);
  void barrier();

  CommStats stats() const;
  void reset_stats();

 protected:
  // The engine's side of each call above (same arguments and contract).
  virtual void do_all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) = 0;
  virtual void do_broadcast(void* buf, size_t count, DType dtype, int root) = 0;
  virtual void do_reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) = 0;
  virtual void do_all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) = 0;
  virtual void do_gather(const void* in, void* out, size_t count, DType dtype, int root) = 0;
  virtual void do_scatter(const void* in, void* out, size_t count, DType dtype, int root) = 0;
  virtual void do_reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                                 ReduceOp op) = 0;
  virtual void do_all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                             const std::vector<size_t>& out_counts, DType dtype) = 0;
  virtual void do_send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) = 0;
  virtual void do_recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) = 0;
  virtual void do_barrier() = 0;

  int rank_, size_;

 private:
  void count_call(uint64_t bytes);

  std::mutex p2p_mu_;
  std::map<std::tuple<int, bool, uint32_t>, uint32_t> p2p_seq_;
  std::atomic<uint64_t> bytes_{0}, calls_{0};
};

}  // namespace monoflow::collective
