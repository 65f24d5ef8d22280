// A collective as a host node of a graph trace (Note [Host nodes] in
// core/include/monoflow/graph/host_node.h): what the Python layer records
// when a collective is called while a trace records.
//
// Note [Collectives in graph plans]
//   At each firing the node enqueues the collective on its group with the
//   buffers' addresses of that iteration, as an eager call does (enqueue.h),
//   but without a fence on the compute stream: the runtime has already
//   waited for the kernels this firing depends on (their StreamFences, Note
//   [Host nodes]), and a fence now would also wait for kernels enqueued
//   since. Sends and receives run on the calling worker itself (it waits
//   anyway) instead of a new thread per operation. Then it waits for the
//   collective: consumers are enqueued after run() returns, so they see the
//   result. Errors (a dead peer, the group's timeout) surface
//   as the node's failure, i.e. as an exception of the graph run on every
//   live rank within the group's timeout.
#pragma once
#include <string>
#include <vector>

#include "monoflow/collective/enqueue.h"
#include "monoflow/graph/host_node.h"

namespace monoflow::collective {

struct TracedCollectiveSpec {
  // all_reduce, broadcast, reduce, all_gather, gather, scatter,
  // reduce_scatter, all_to_all, send, recv, barrier
  std::string kind;
  std::string label;   // e.g. "all_reduce[group ranks 0,1]"
  std::string device;  // where the buffers live ("cpu:0")
  int dtype = 0, op = 0, root = 0, peer = 0;
  uint32_t tag = 0;
  size_t count = 0;
  std::vector<size_t> counts, out_counts;
  double timeout_s = 0;  // the group's
};

// Throws CommError for an unknown kind.
graph::HostOpPtr make_traced_collective(GroupPtr group, TracedCollectiveSpec spec);

}  // namespace monoflow::collective
