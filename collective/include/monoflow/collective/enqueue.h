// The tensor-free entry points the Python binding calls: each takes raw
// contiguous buffers, records fences on the devices the buffers came from,
// and enqueues the operation on the group (Note [One communication thread
// per group]). The caller keeps the buffers alive until the Work completes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "monoflow/collective/process_group.h"
#include "monoflow/collective/store.h"

namespace monoflow::collective {

using WorkPtr = std::shared_ptr<Work>;
using GroupPtr = std::shared_ptr<ProcessGroup>;
using StorePtr = std::shared_ptr<Store>;

// job_id, rank (-1: none), world_size (-1: unknown), secret (empty: none):
// the identity of Note [TCPStore handshake].
StorePtr make_tcp_store(const std::string& host, int port, bool is_server, int64_t timeout_ms,
                        const std::string& bind_host, const std::string& job_id, int64_t rank, int64_t world_size,
                        const std::string& secret);
StorePtr make_file_store(const std::string& dir, int64_t timeout_ms);
StorePtr make_prefix_store(const std::string& prefix, StorePtr base);
int tcp_store_port(const StorePtr& store);  // -1 for other stores

// backend: "gloo", "nccl" or "mpi". nccl_dirs: where to look for the engine's
// library (libnccl.so.2, libmpi.so.12).
GroupPtr make_group(const std::string& backend, StorePtr store, int rank, int size, int64_t timeout_ms,
                    const std::string& master_addr, const std::vector<std::string>& nccl_dirs);

// `device`: where the buffers live ("cpu", "cuda:0"); "" = no fence.
WorkPtr enqueue_all_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op, const std::string& device);
WorkPtr enqueue_broadcast(GroupPtr g, uintptr_t buf, size_t count, int dtype, int root, const std::string& device);
WorkPtr enqueue_reduce(GroupPtr g, uintptr_t buf, size_t count, int dtype, int op, int root,
                       const std::string& device);
WorkPtr enqueue_all_gather(GroupPtr g, uintptr_t in, uintptr_t out, std::vector<size_t> counts, int dtype,
                           const std::string& device);
WorkPtr enqueue_gather(GroupPtr g, uintptr_t in, uintptr_t out, size_t count, int dtype, int root,
                       const std::string& device);
WorkPtr enqueue_scatter(GroupPtr g, uintptr_t in, uintptr_t out, size_t count, int dtype, int root,
                        const std::string& device);
WorkPtr enqueue_reduce_scatter(GroupPtr g, uintptr_t in, uintptr_t out, std::vector<size_t> counts, int dtype,
                               int op, const std::string& device);
WorkPtr enqueue_all_to_all(GroupPtr g, uintptr_t in, std::vector<size_t> in_counts, uintptr_t out,
                           std::vector<size_t> out_counts, int dtype, const std::string& device);
WorkPtr enqueue_send(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                     const std::string& device);
WorkPtr enqueue_recv(GroupPtr g, uintptr_t buf, size_t count, int dtype, int peer, uint32_t tag,
                     const std::string& device);
WorkPtr enqueue_barrier(GroupPtr g);

// The group's traffic counters (Note [Traffic counters]): completed calls only.
CommStats comm_stats(const GroupPtr& g);
void reset_comm_stats(const GroupPtr& g);

bool gloo_built();
bool nccl_found(const std::vector<std::string>& dirs);
bool mpi_found(const std::vector<std::string>& dirs);
std::string nccl_path(const std::vector<std::string>& dirs);  // throws with the search list when missing

}  // namespace monoflow::collective
