// Actors: their links, and the act itself (one kernel call).
#include "monoflow/graph/actor.h"

#include <algorithm>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/graph/iteration_memory.h"
#include "monoflow/profiler.h"

namespace monoflow::graph {

namespace {
constexpr int kMaxOperands = 8;
constexpr int kMaxAttrs = 16;

int64_t distance_of(EdgeKind kind, int slots) {
  switch (kind) {
    case EdgeKind::Intra: return 0;
    case EdgeKind::Carried: return 1;
    case EdgeKind::Register: return slots;
  }
  return 0;
}
}  // namespace

std::vector<Actor> make_actors(const Plan& plan, const std::vector<PlanEdge>& extra_edges, int slots, int threads) {
  const int n = static_cast<int>(plan.nodes.size());
  std::vector<Actor> actors(n);
  // Host nodes block their worker until their peers are done (Note [Host
  // nodes] in graph/host_node.h): with a pool they get the last worker to
  // themselves (a "communication stream"), so a receive waiting for a peer
  // does not hold up the kernels that could run meanwhile (pipelining).
  bool has_host = false;
  for (const PlanNode& node : plan.nodes) has_host = has_host || node.host;
  const int compute_threads = has_host && threads > 1 ? threads - 1 : threads;
  for (int i = 0; i < n; ++i) {
    actors[i].node = i;
    actors[i].thread = has_host && threads > 1 && plan.nodes[i].host
                           ? threads - 1
                           : static_cast<int>(static_cast<int64_t>(i) * compute_threads / std::max(n, 1));
  }
  auto link = [&](const PlanEdge& e) {
    MF_CHECK(e.from >= 0 && e.from < n && e.to >= 0 && e.to < n, IndexError, "graph runtime: edge ", e.from, " -> ",
             e.to, " names a node outside the plan (", n, " nodes)");
    int64_t d = distance_of(e.kind, slots);
    Actor& to = actors[e.to];
    actors[e.from].out.push_back(Actor::Out{e.to, static_cast<int>(to.in.size()), d});
    to.in.push_back(Actor::In{e.from, d, 0});
  };
  for (const PlanEdge& e : plan.edges) link(e);
  for (const PlanEdge& e : extra_edges) link(e);
  return actors;
}

void launch_node(const Plan& plan, int node, int64_t it, const IterationMemory& mem) {
  const PlanNode& n = plan.nodes[node];
  if (n.host) {  // runs to completion (Note [Host nodes] in graph/host_node.h)
    std::vector<void*> ins, outs;
    for (const PlanOperand& o : n.inputs) ins.push_back(mem.base(o.storage, it) + o.byte_offset);
    for (const PlanOperand& o : n.outputs) outs.push_back(mem.base(o.storage, it) + o.byte_offset);
    n.host->run(ins, outs);
    return;
  }
  const int ni = static_cast<int>(n.inputs.size()), no = static_cast<int>(n.outputs.size());
  const int na = static_cast<int>(n.attrs.size());
  MF_CHECK(ni + no <= kMaxOperands && na <= kMaxAttrs, RuntimeError, n.name(), ": too many operands for a graph node");
  MFAttr attrs[kMaxAttrs];
  for (int k = 0; k < na; ++k) {
    attrs[k] = n.attrs[k];
    if (attrs[k].kind == MF_ATTR_INTS) attrs[k].ints = n.ints[k].data();
  }
  if (n.generator) {  // fresh counters for this iteration (Note [Random kernels in graph traces])
    auto [seed, offset] = mem.draw(node, it);
    attrs[n.seed_attr] = int_attr(n.attrs[n.seed_attr].name, static_cast<int64_t>(seed));
    attrs[n.offset_attr] = int_attr(n.attrs[n.offset_attr].name, static_cast<int64_t>(offset));
  }
  if (!n.kernel) {
    Tensor ops[kMaxOperands];
    for (int k = 0; k < ni; ++k) ops[k] = mem.view(n.inputs[k], it);
    for (int k = 0; k < no; ++k) ops[ni + k] = mem.view(n.outputs[k], it);
    LaunchArgs a{&op_def(n.op_id), n.kernel_dtype};
    a.inputs = ops;
    a.num_inputs = ni;
    a.outputs = ops + ni;
    a.num_outputs = no;
    a.attrs = attrs;
    a.num_attrs = na;
    a.coalesce = n.coalesce;
    launch(a);
    return;
  }
  MFTensorDesc descs[kMaxOperands];
  auto fill = [&](MFTensorDesc& d, const PlanOperand& o) {
    d.data = mem.base(o.storage, it) + o.byte_offset;
    d.dtype = static_cast<int32_t>(o.dtype);
    d.ndim = static_cast<int32_t>(o.kernel_shape.size());
    d.shape = o.kernel_shape.data();
    d.strides = o.kernel_strides.data();
  };
  for (int k = 0; k < ni; ++k) fill(descs[k], n.inputs[k]);
  for (int k = 0; k < no; ++k) fill(descs[ni + k], n.outputs[k]);
  MFKernelCall call{sizeof(MFKernelCall), n.device.index, n.stream, ni, descs, no, descs + ni, na, attrs};
  Backend& be = DeviceRegistry::get().backend(n.device);
  profiler::Range row(profiler::Kind::Op, n.name());
  if (profiler::Event* e = row.event()) {
    e->correlation = call.trace_id = profiler::next_correlation();
    e->device = str_cat(be.name(), ":", n.device.index);
  }
  be.check(n.kernel(&call), n.name());
}

}  // namespace monoflow::graph
