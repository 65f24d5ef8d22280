// Communicator: one process group's connection to its peers through one
// engine (Gloo, NCCL). Buffers are contiguous and already in the engine's
// memory; the tensor-level work (staging, dtype checks) is done above it.
//
// Every call blocks the calling thread until this rank's part is done and
// throws CommError on failure or after the timeout. Ordering, threads and
// async handles belong to ProcessGroup (process_group.h), not here.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <string>
#include <vector>

#include "monoflow/collective/types.h"

namespace monoflow::collective {

class Communicator {
 public:
  Communicator(int rank, int size) : rank_(rank), size_(size) {}
  virtual ~Communicator() = default;
  int rank() const { return rank_; }
  int size() const { return size_; }
  virtual const char* backend() const = 0;

  // In place: buf holds this rank's input and receives the result.
  virtual void all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) = 0;
  virtual void broadcast(void* buf, size_t count, DType dtype, int root) = 0;
  // In place; only the root's buffer receives the result.
  virtual void reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) = 0;
  // out = concatenation of every rank's input; counts[r] = rank r's count.
  virtual void all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) = 0;
  // out (root only, size * count) = concatenation of every rank's input.
  virtual void gather(const void* in, void* out, size_t count, DType dtype, int root) = 0;
  // in (root only, size * count) is split; rank r receives part r in out.
  virtual void scatter(const void* in, void* out, size_t count, DType dtype, int root) = 0;
  // in = concatenation of size parts (counts[r] elements for rank r); out
  // receives the reduction of every rank's part for this rank.
  virtual void reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                              ReduceOp op) = 0;
  // in_counts[r]: elements sent to rank r; out_counts[r]: received from r.
  virtual void all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                          const std::vector<size_t>& out_counts, DType dtype) = 0;
  // Point to point. Messages between a pair match in issue order within a
  // tag: the caller takes the slot with p2p_slot() when the user issues the
  // op (the op itself may run later, on another thread), so that the k-th
  // send from A to B meets B's k-th recv from A.
  uint64_t p2p_slot(int peer, bool is_send, uint32_t tag);
  virtual void send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) = 0;
  virtual void recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) = 0;
  virtual void barrier() = 0;

 protected:
  int rank_, size_;

 private:
  std::mutex p2p_mu_;
  std::map<std::tuple<int, bool, uint32_t>, uint32_t> p2p_seq_;
};

}  // namespace monoflow::collective
