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

StreamMark::StreamMark(const Device& device, MFStream stream) : device_(device) {
  Backend& b = DeviceRegistry::get().backend(device);
  MFEvent ev = nullptr;
  b.check(b.api().event_create(device.index, &ev), "graph host node: event_create");
  MFStatus st = b.api().event_record(device.index, ev, stream);
  if (st != MF_OK) {
    b.api().event_destroy(device.index, ev);
    b.check(st, "graph host node: event_record");
  }
  event_ = ev;
  api_ = &b.api();
}

StreamMark::~StreamMark() {
  if (event_) api_->event_destroy(device_.index, event_);
}

void StreamMark::wait() {
  if (!event_) return;
  MFStatus st = api_->event_synchronize(device_.index, event_);
  MF_CHECK(st == MF_OK || st == MF_NOT_READY, RuntimeError,
           "graph host node: waiting for the compute stream of ", device_.str(), " failed");
}

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
