// Host nodes: plan nodes whose work is not a kernel (collectives, sends and
// receives), recorded by whoever performs that work while a trace records.
//
// Note [Host nodes]
//   A trace sees kernel launches only; a collective is a call into another
//   library (collective/), so without help a traced all-reduce would replay
//   as nothing at all. Such work is recorded through record_host_op(): the
//   operation (a HostOp: a callable plus a few facts about it) and the
//   tensors it reads and writes, snapshotted like kernel operands. The plan
//   then treats the node like any other for storage classes and byte-range
//   dependencies, so producers and consumers are ordered around it unchanged,
//   and at each firing the runtime calls HostOp::run with that iteration's
//   addresses of the operands (rebound inputs, slot copies, fresh outputs).
//
//   run() must leave its results complete in memory before it returns
//   ("fired" means done here, where a kernel's firing means enqueued), and
//   consumers are enqueued only after it returns. Its inputs are ready when
//   it is called: each kernel linked to the node records a StreamFence on its
//   stream right after it is enqueued (when it sends the node its message),
//   and the runtime waits for the marks the firing depends on before calling
//   run(). A mark per producer, not one fence on the stream when the node
//   fires: by then the stream may hold kernels enqueued later (the next
//   micro-batch's forward), which a send must not wait for (pipelining).
//   This keeps the core free of any knowledge of collectives: it calls an
//   interface and the collective layer implements it.
//
//   Host nodes with effects on other processes (peers_involved()) must be
//   issued in the same order on every process, which the actor runtime would
//   not guarantee by itself (independent nodes fire in any order, threads >
//   1 even concurrently): the plan chains them (Note [Collective order] in
//   graph/plan.h). They can never be removed, merged, folded or fused by a
//   pass (PlanNode::host; Note [Passes and host nodes] in graph/plan.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "monoflow/plugin.h"
#include "monoflow/stream_fence.h"
#include "monoflow/tensor.h"

namespace monoflow::graph {

class HostOp {
 public:
  virtual ~HostOp() = default;
  // What describe() and error messages call it, e.g. "all_reduce[group ranks 0,1]".
  virtual const std::string& label() const = 0;
  // Runs the work of one iteration to completion. inputs/outputs: the address
  // of each operand's first element at this iteration, in recording order.
  // Throws (any exception; the runtime reports it as the node's failure).
  virtual void run(const std::vector<void*>& inputs, const std::vector<void*>& outputs) = 0;
  // Whether other processes take part (then every process must issue these
  // nodes in the same order: they are chained in the plan).
  virtual bool peers_involved() const { return true; }
  // How long one run() may legitimately block (e.g. a group's timeout); the
  // runtime's watchdog allows at least this much while a host node runs.
  virtual double timeout_s() const { return 0.0; }
};

using HostOpPtr = std::shared_ptr<HostOp>;

// Records `op` reading `inputs` and writing `outputs` (both may name the same
// tensor, for in-place work) into the trace recording on this thread.
// RuntimeError when no trace is recording. Does not run it: the caller does
// the eager work itself (a trace executes what it records).
void record_host_op(HostOpPtr op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs);

}  // namespace monoflow::graph
