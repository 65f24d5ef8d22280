// Plan: a recorded trace as nodes (kernel calls), the memory they use, and the
// dependencies between them that the actor runtime enforces.
//
// Note [Storage classes]
//   Every Storage a trace touched is one of:
//   - Input: a graph input's memory. Each run rebinds it to the tensor the
//     caller passes (no copy): in-place writes reach the caller's tensor as
//     in eager mode, and each iteration of a run may get its own tensor.
//   - Output: memory first written inside the trace, that nothing outside
//     the trace holds except the graph's outputs. Each iteration gets a fresh
//     block, so a run's results are never overwritten by the next run.
//   - Transient: first written inside the trace and held by nothing outside
//     it (activations, temporaries, the backward's intermediates). With
//     `slots` > 1 it gets that many copies (registers); iteration i uses copy
//     i % slots, copy 0 being the traced block.
//   - Persistent: everything else: parameters, gradients and optimizer state
//     (reachable from Python after the trace), constants (flow.tensor(data)
//     inside the trace), memory read before the trace wrote it. Updated in
//     place, visible to eager code, shared by every iteration.
//   "Held by nothing outside" is decided when the plan is built: the trace
//   keeps each Storage alive once, so a use count above that (plus the
//   outputs' own views) means some tensor outside still views it. This errs
//   towards Persistent, which is always correct, only less parallel.
//   "First written" is checked byte-exactly: every range a node reads must
//   lie inside ranges that earlier nodes wrote densely, and outputs of the
//   kernels that read their outputs (index_put, sgd_momentum) count as read.
//
// Note [Plan dependencies]
//   Node b depends on an earlier node a when they touch overlapping bytes of
//   one storage and one of them writes (read-after-write, write-after-read,
//   write-after-write): an Intra edge, b's iteration i after a's iteration i.
//   Iterations repeat the node order, and each actor fires its iterations in
//   order, so a pair (a, b) that conflicts also orders b's iteration i before
//   a's iteration i + d, where d is how many iterations apart two uses of the
//   same bytes are: 1 for Persistent and Input memory (a Carried edge), the
//   slot count for Transient memory (a Register edge: the copy comes back to
//   its writer once the iteration that used it is done), and never for
//   Output memory (fresh per iteration). The edges are kept per pair of
//   nodes, strongest kind only; scanning stops at a dense write that covers
//   the range (earlier uses are ordered before that write already).
//
// Note [Collective order]
//   Host nodes that involve other processes (collectives, sends, receives;
//   Note [Host nodes] in graph/host_node.h) must be issued in the same order
//   on every process, or two ranks wait for each other in different
//   collectives. add_dependencies chains them all, across groups, in trace
//   order: an Intra edge from each to the next, and a Carried edge from the
//   last back to the first (iteration i + 1's first after iteration i's
//   last). One chain over every group, not one per group: a host node blocks
//   its worker until done, so two chains fired in different orders on two
//   ranks (A's group-1 op waiting for B, B's group-2 op waiting for A) would
//   deadlock; one chain issues them exactly as eager code did, which is
//   deadlock-free whenever the eager program is.
//
// Note [Passes and host nodes]
//   A node with `host` set is not a kernel (op_id is -1, kernel null; do not
//   call op_def on it, use name()). It has side effects outside the plan
//   (on peers), so passes must keep it, and never fold, merge (CSE), fuse,
//   move across other host nodes, or treat it as a pure function of its
//   operands: two identical all-reduces are two collectives. Its operands
//   are ordinary reads and writes for liveness and memory planning.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "monoflow/dispatch.h"
#include "monoflow/generator.h"
#include "monoflow/graph/host_node.h"
#include "monoflow/graph/trace.h"

namespace monoflow::graph {

enum class StorageClass : uint8_t { Persistent, Transient, Input, Output };
const char* storage_class_name(StorageClass c);

struct PlanStorage {
  StorageClass cls = StorageClass::Persistent;
  Device device;
  size_t nbytes = 0;
  // The traced memory: kept for Persistent and Transient (copy 0); released
  // for Input and Output, which each run binds anew.
  std::shared_ptr<Storage> storage;
  int input = -1;          // Input: which graph input
  int64_t input_base = 0;  // Input: byte offset of that input's first element
  bool written = false;    // some node writes it
  // Memory planning (Note [Memory planning] in pass_memory.cc): an arena is
  // a Transient storage holding others at planned offsets. A Transient
  // storage placed in one (placed_in, its operands shifted by arena_shift
  // bytes), or used by no node any more, has no memory of its own (storage
  // null) and gets no copies at run time.
  bool arena = false;
  int placed_in = -1;
  int64_t arena_shift = 0;
};

// The memory a plan holds, in bytes (Plan::memory; Note [Memory planning]).
struct PlanMemory {
  int64_t persistent = 0;        // held by the plan, shared by every iteration (parameters, state, constants)
  int64_t transient_traced = 0;  // the trace's intermediates, one block each (one copy; before planning)
  int64_t transient = 0;         // one copy of the Transient memory now (arenas and unplanned blocks)
  int64_t output = 0;            // fresh Output blocks of one iteration
};

struct PlanOperand {
  int storage = -1;         // index into Plan::storages
  int64_t byte_offset = 0;  // of element [0, ..., 0] from the storage's start
  DType dtype = DType::Float32;
  Dims shape, strides;                // the view (for the CPU-fallback path and outputs)
  Dims kernel_shape, kernel_strides;  // what the kernel receives
};

struct PlanNode {
  int op_id = -1;
  DType kernel_dtype = DType::Float32;
  bool coalesce = false;
  Device device;
  MFKernelFn kernel = nullptr;  // null: the device has none; replayed through launch() (CPU fallback)
  MFStream stream = nullptr;    // the device's default stream, as eager ops use
  std::vector<PlanOperand> inputs, outputs;
  std::vector<MFAttr> attrs;  // ints attributes: `ints` null, values in ints[k]
  std::vector<std::vector<int64_t>> ints;
  GeneratorPtr generator;  // random kernels (Note [Random kernels in graph traces])
  uint64_t random_count = 0;
  int seed_attr = -1, offset_attr = -1;
  // Random nodes with the same random_draw share one reservation per
  // iteration (Note [Shared random draws] in generator.h); -1: its own.
  int random_draw = -1;
  // Not a kernel (Notes [Host nodes], [Passes and host nodes]): op_id -1,
  // kernel null; passes must keep it as it is.
  HostOpPtr host;

  const char* name() const { return host ? host->label().c_str() : op_def(op_id).name; }
};

enum class EdgeKind : uint8_t { Intra, Carried, Register };

struct PlanEdge {
  int from, to;
  EdgeKind kind;
};

// What each graph input must look like; a run refuses other tensors.
struct InputSpec {
  Dims shape, strides;
  DType dtype;
  Device device;
  int storage = -1;  // its Input storage (-1: no node touches it)
};

// A pass that ran on the plan (Note [Plan passes] in graph/pass.h).
struct PassRecord {
  std::string name, summary;
  std::string before, after;  // the listing around it (only when kept)
};

struct Plan {
  std::vector<PlanStorage> storages;
  std::vector<PlanNode> nodes;
  std::vector<PlanEdge> edges;
  std::vector<InputSpec> inputs;
  std::vector<PlanOperand> outputs;
  std::vector<int> random_nodes;  // in node order: the order of fresh draws (a shared draw at its first node)
  std::vector<Device> devices;    // synchronised at the end of a run
  std::vector<PassRecord> passes;  // in the order they ran

  // with_passes: also the listing before and after each pass, where kept.
  std::string describe(bool with_passes = false) const;
  std::string describe_nodes() const;  // the header and nodes, no pass lines
  PlanMemory memory() const;           // defined in pass_memory.cc
};

// "1.5 MB", "12.0 KB", "100 B" (pass summaries, describe()).
std::string format_bytes(int64_t n);

// Builds the plan of a trace whose graph inputs are `inputs` and results
// `outputs`. Call it once nothing but these vectors holds the trace's
// intermediate tensors (Note [Storage classes]): `calls` is consumed, and
// the output tensors count as held only by `outputs` (each occurrence once).
// `passes` (names, Note [Plan passes] in graph/pass.h) run before the
// dependencies are added; keep_ir keeps the listing around each.
std::shared_ptr<Plan> build_plan(std::vector<TracedCall> calls, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& outputs, const std::vector<std::string>& passes = {},
                                 bool keep_ir = false);

// Kernels that read their outputs' previous contents (read-modify-write
// without passing the output as an input too): index_put, sgd_momentum.
bool reads_outputs(int op_id);

// Fills plan.edges (Note [Plan dependencies]); build_plan calls it.
void add_dependencies(Plan& plan);

// Byte range [lo, hi) of a view (offset and strides in elements) and whether
// it covers that range exactly once (dense).
struct ByteRange {
  int64_t lo = 0, hi = 0;
  bool dense = false;
};
ByteRange byte_range(int64_t byte_offset, const Dims& shape, const Dims& strides, size_t itemsize);

}  // namespace monoflow::graph
