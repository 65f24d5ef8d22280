// record_host_op: a host node into the trace recording on this thread
// (Note [Host nodes] in graph/host_node.h).
#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/graph/trace.h"

namespace monoflow::graph {

namespace {
// Host work gets addresses, not descriptors: the operand's own view is also
// the "kernel layout" (no coalescing).
TracedOperand host_operand(const Tensor& t, const HostOp& op) {
  MF_CHECK(t, ValueError, op.label(), " inside a graph trace: an operand is not a tensor");
  return snapshot(t, t->shape, t->strides);
}
}  // namespace

void record_host_op(HostOpPtr op, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  MF_CHECK(op, ValueError, "record_host_op: no operation given");
  TraceRecorder* rec = TraceRecorder::current();
  MF_CHECK(rec, RuntimeError, op->label(), ": record_host_op called while no graph trace is recording");
  TracedCall c;
  c.op_id = -1;
  for (const Tensor& t : inputs) c.inputs.push_back(host_operand(t, *op));
  for (const Tensor& t : outputs) c.outputs.push_back(host_operand(t, *op));
  c.host = std::move(op);
  rec->on_host_op(std::move(c));
}

}  // namespace monoflow::graph
