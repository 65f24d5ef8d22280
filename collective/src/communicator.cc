#include "monoflow/collective/communicator.h"

#include <numeric>

namespace monoflow::collective {

namespace {
uint64_t bytes_of(size_t count, DType dtype) { return uint64_t(count) * itemsize(dtype); }
uint64_t sum_bytes(const std::vector<size_t>& counts, DType dtype) {
  return bytes_of(std::accumulate(counts.begin(), counts.end(), size_t(0)), dtype);
}
}  // namespace

uint64_t Communicator::p2p_slot(int peer, bool is_send, uint32_t tag) {
  std::lock_guard<std::mutex> lock(p2p_mu_);
  uint32_t seq = p2p_seq_[{peer, is_send, tag}]++;
  // Prefix 0xF0 keeps these clear of the slots Gloo derives from collective
  // tags (small prefixes in the top byte).
  return (uint64_t(0xF0) << 56) | (uint64_t(tag & 0xFFFFFF) << 32) | seq;
}

// ------------------------------------------- calls: engine, then counters
// The byte counts follow Note [Traffic counters].

void Communicator::all_reduce(void* buf, size_t count, DType dtype, ReduceOp op) {
  do_all_reduce(buf, count, dtype, op);
  count_call(2 * uint64_t(size_ - 1) * bytes_of(count, dtype) / size_);
}

void Communicator::broadcast(void* buf, size_t count, DType dtype, int root) {
  do_broadcast(buf, count, dtype, root);
  count_call(rank_ == root ? 0 : bytes_of(count, dtype));
}

void Communicator::reduce(void* buf, size_t count, DType dtype, ReduceOp op, int root) {
  do_reduce(buf, count, dtype, op, root);
  uint64_t part = uint64_t(size_ - 1) * bytes_of(count, dtype);  // (n-1)*N, divided by n below
  count_call((rank_ == root ? 2 * part : part) / size_);
}

void Communicator::all_gather(const void* in, void* out, const std::vector<size_t>& counts, DType dtype) {
  do_all_gather(in, out, counts, dtype);
  count_call(sum_bytes(counts, dtype) - bytes_of(counts[rank_], dtype));
}

void Communicator::gather(const void* in, void* out, size_t count, DType dtype, int root) {
  do_gather(in, out, count, dtype, root);
  count_call(rank_ == root ? uint64_t(size_ - 1) * bytes_of(count, dtype) : 0);
}

void Communicator::scatter(const void* in, void* out, size_t count, DType dtype, int root) {
  do_scatter(in, out, count, dtype, root);
  count_call(rank_ == root ? 0 : bytes_of(count, dtype));
}

void Communicator::reduce_scatter(const void* in, void* out, const std::vector<size_t>& counts, DType dtype,
                                  ReduceOp op) {
  do_reduce_scatter(in, out, counts, dtype, op);
  count_call(sum_bytes(counts, dtype) - bytes_of(counts[rank_], dtype));
}

void Communicator::all_to_all(const void* in, const std::vector<size_t>& in_counts, void* out,
                              const std::vector<size_t>& out_counts, DType dtype) {
  do_all_to_all(in, in_counts, out, out_counts, dtype);
  count_call(sum_bytes(out_counts, dtype) - bytes_of(out_counts[rank_], dtype));
}

void Communicator::send(const void* buf, size_t count, DType dtype, int peer, uint64_t slot) {
  do_send(buf, count, dtype, peer, slot);
  count_call(0);
}

void Communicator::recv(void* buf, size_t count, DType dtype, int peer, uint64_t slot) {
  do_recv(buf, count, dtype, peer, slot);
  count_call(bytes_of(count, dtype));
}

void Communicator::barrier() {
  do_barrier();
  count_call(0);
}

// ---------------------------------------------------------------- counters

void Communicator::count_call(uint64_t bytes) {
  // Relaxed: the Work's completion (a mutex) orders these before any waiter.
  bytes_.fetch_add(bytes, std::memory_order_relaxed);
  calls_.fetch_add(1, std::memory_order_relaxed);
}

CommStats Communicator::stats() const {
  return CommStats{bytes_.load(std::memory_order_relaxed), calls_.load(std::memory_order_relaxed)};
}

void Communicator::reset_stats() {
  bytes_.store(0, std::memory_order_relaxed);
  calls_.store(0, std::memory_order_relaxed);
}

}  // namespace monoflow::collective
