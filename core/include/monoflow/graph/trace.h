// Tracing eager code into a list of kernel calls.
//
// Note [Graph tracing]
//   Every eager op ends in launch() once its shapes are inferred and its
//   outputs allocated. While a TraceRecorder is alive on a thread, launch()
//   on that thread hands it each call first (graph/launch_hook.h); the
//   recorder keeps the op, the kernel dtype, a snapshot of every operand
//   (its Storage, kept alive, and its view: offset, shape, strides, dtype, and
//   the layout the kernel receives), deep copies of the attributes (an ints
//   attribute points into the caller's stack) and the coalesce flag.
//   Autograd needs nothing special: the engine's backward ops and the
//   optimizers' updates are ops too, and Python control flow is unrolled.
//
//   The recorder also runs each call (execute = true, the default): traced
//   code then sees real values where the core itself reads them back to
//   validate arguments (cross_entropy's class range, gather's index bounds,
//   a masked_fill value given as a tensor), which would otherwise read
//   memory no kernel has written. What the user's code reads (.numpy(),
//   .item(), printing) is refused while tracing when a replay would read
//   something else (check_value_read, Note [Constants read while tracing]),
//   as is synchronize (check_host_read), and ops whose output shape depends on values
//   (nonzero and what uses it: masked_select, boolean-mask indexing), since a
//   replay could not honour either. execute = false records without running
//   (a lazy trace) for code that reads nothing back.
//
//   Random kernels: see Note [Random kernels in graph traces] (generator.h).
//   Memory written by other means than a kernel (a host-to-device copy in
//   flow.tensor(data)) is not recorded: it is a constant of the trace.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "monoflow/error.h"
#include "monoflow/generator.h"
#include "monoflow/graph/host_node.h"
#include "monoflow/graph/launch_hook.h"
#include "monoflow/tensor.h"

namespace monoflow::graph {

// An operand as the kernel saw it.
struct TracedOperand {
  std::shared_ptr<Storage> storage;
  int64_t offset = 0;  // in elements, as TensorImpl::offset
  DType dtype = DType::Float32;
  Dims shape, strides;                // the tensor's view
  Dims kernel_shape, kernel_strides;  // what the kernel receives (coalesced)
};

// The operand record of `t` (its storage kept alive) with the layout the
// kernel receives.
TracedOperand snapshot(const Tensor& t, Dims kernel_shape, Dims kernel_strides);

struct TracedCall {
  int op_id = -1;
  DType kernel_dtype = DType::Float32;
  bool coalesce = false;
  std::vector<TracedOperand> inputs, outputs;
  // Deep copies; names are interned (stable for the process). An ints
  // attribute's `ints` is left null: its values are in ints[k], and whoever
  // passes the attributes to a kernel points it there.
  std::vector<MFAttr> attrs;
  std::vector<std::vector<int64_t>> ints;
  // Random kernels: where to draw (seed, offset) at each replay.
  GeneratorPtr generator;
  uint64_t random_count = 0;
  int seed_attr = -1, offset_attr = -1;
  // Which of the trace's fresh reservations it uses (Note [Shared random
  // draws] in generator.h): calls with the same value draw the same numbers.
  int random_draw = -1;
  // Not a kernel: work recorded by record_host_op (Note [Host nodes] in
  // graph/host_node.h); op_id is -1 and `inputs`/`outputs` are what it reads
  // and writes.
  HostOpPtr host;
};

// Note [Constants written in place]: a traced kernel that writes in place to
// memory the trace read as a constant (a tensor made from host data, such as
// flow.tensor(...) in build, or one made outside the trace, and neither an
// input nor declared state): a replay would start from the values the
// previous run left there (x = flow.tensor([1.]); x += y gives 1 + y, then
// 1 + 2y, ...), not from the constant. A caller that declares all its state
// (forbid_constant_writes(): nn.Graph, whose parameters, buffers and
// optimizer state are its variables) gets a DynamicShapeError there, as the
// replay cannot honour the traced code, and nn.Graph answers by running
// build eagerly (Note [Graphs run eagerly] in nn/graph/graph.py). Otherwise
// such memory is state the replays update in place.
struct ConstantWriteError : DynamicShapeError {
  using DynamicShapeError::DynamicShapeError;
};

class TraceRecorder final : public LaunchHook, public ReserveObserver {
 public:
  // Starts recording the calling thread's launches; one trace per thread.
  explicit TraceRecorder(bool execute = true);
  ~TraceRecorder() override;  // stops recording (discarding what finish() did not take)
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Stops recording (the calls are kept); idempotent.
  void stop();
  // Stops recording and hands over the calls, in launch order.
  std::vector<TracedCall> finish();
  bool executes() const { return execute_; }

  bool on_launch(const LaunchArgs& a) override;
  // A host node's call (record_host_op, graph/host_node.h).
  void on_host_op(TracedCall c);
  // The recorder on this thread, or null.
  static TraceRecorder* current();
  void on_reserve(Generator& gen, uint64_t n, uint64_t seed, uint64_t offset) override;
  // Note [Constants read while tracing]: a storage whose values a replay
  // changes: the trace's inputs and the state its caller names (parameters,
  // buffers), marked before the traced code runs, and what any traced call
  // writes. Every other storage is a constant of the trace (a tensor made
  // outside it, or from host data), whose values code may read while
  // tracing, as OneFlow's graphs read free eager tensors.
  void mark_variable(const Tensor& t);
  bool is_variable(const Tensor& t) const;
  // Note [Constants written in place]: the caller has marked all its state.
  void forbid_constant_writes() { forbid_constant_writes_ = true; }

 private:
  int claim_draw(const char* op_name);
  void mark_written(const std::vector<TracedOperand>& outputs);
  bool execute_;
  bool active_ = false;
  std::vector<TracedCall> calls_;
  LaunchHook* prev_hook_ = nullptr;
  ReserveObserver* prev_observer_ = nullptr;
  // The last reservation seen and not yet claimed by a random kernel.
  struct Reservation {
    GeneratorPtr gen;
    uint64_t n = 0, seed = 0, offset = 0;
    bool pending = false;
  } reservation_;
  // The fresh reservations claimed so far; index = TracedCall::random_draw.
  std::vector<Reservation> draws_;
  // Variable storages, kept alive so that an address is never reused by a
  // constant made later in the trace.
  std::unordered_map<const Storage*, std::shared_ptr<Storage>> variable_;
  // Constant storages some traced kernel has read (Note [Constants written
  // in place]), kept alive for the same reason.
  std::unordered_map<const Storage*, std::shared_ptr<Storage>> read_constants_;
  bool forbid_constant_writes_ = false;
};

// Whether a trace is recording on the calling thread.
bool tracing();
// Throws RuntimeError("<what> inside a graph trace: tensor values are not
// available while tracing ...") when a trace is recording on this thread.
void check_host_read(const char* what);
// The same for a read of t's values, unless t is a constant of the trace:
// its storage is not variable (Note [Constants read while tracing]) and it
// does not require grad (a parameter the trace's caller did not name).
void check_value_read(const char* what, const Tensor& t);

}  // namespace monoflow::graph
