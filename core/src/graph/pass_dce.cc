// Dead code elimination: drops the kernels whose results nobody can see.
//
// Note [Dead code elimination]
//   A node is live when it writes memory that can be observed, or bytes a
//   live node later reads. Observable memory is every storage that is not
//   Transient: Persistent (parameters, gradients, optimizer state, buffers,
//   anything Python can reach), Input (the caller's tensors, in-place writes
//   included) and Output (the graph's results). Transient memory is only
//   ever seen through the kernels that read it, and it is written before it
//   is read within an iteration (Note [Storage classes]), so one backward
//   scan decides: walking the nodes from last to first, a node is live if it
//   writes observable memory or overlaps a byte range that a live node after
//   it reads; a live node then adds the ranges it reads (its outputs too for
//   read-modify-write kernels), after dropping the needed ranges that its
//   dense writes cover entirely (earlier writers of those bytes are
//   overwritten before anyone reads them: a fill followed by a copy over the
//   whole buffer). A range only partly overwritten stays needed: conservative.
//   Also always kept: nodes with no outputs (side effects we cannot see),
//   host nodes (collectives: effects on peers, Note [Passes and host nodes]
//   in graph/plan.h), and random kernels. The runtime draws fresh counters for the random nodes in
//   node order (Note [Random kernels in graph traces]); removing one would
//   shift the counters of the later ones away from what eager mode draws.
//   Typical dead code: argument checks whose result the core read on the
//   host while tracing (cross_entropy's class-range check) and values
//   autograd computed that no gradient needed.
#include <algorithm>
#include <sstream>

#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

ByteRange range_of(const PlanOperand& o) { return byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype)); }

bool overlap(const ByteRange& a, const ByteRange& b) { return a.lo < b.hi && b.lo < a.hi; }

}  // namespace

std::string dead_code_elimination(Plan& plan) {
  const size_t n = plan.nodes.size();
  std::vector<std::vector<ByteRange>> needed(plan.storages.size());  // Transient bytes live nodes read
  for (const PlanOperand& o : plan.outputs) needed[o.storage].push_back(range_of(o));
  std::vector<bool> live(n, false);
  for (size_t i = n; i-- > 0;) {
    const PlanNode& node = plan.nodes[i];
    bool keep = node.generator != nullptr || node.outputs.empty() || node.host;  // host: side effects on peers
    for (size_t k = 0; k < node.outputs.size() && !keep; ++k) {
      const PlanOperand& o = node.outputs[k];
      if (plan.storages[o.storage].cls != StorageClass::Transient) {
        keep = true;
        break;
      }
      const ByteRange r = range_of(o);
      for (const ByteRange& u : needed[o.storage])
        if (overlap(u, r)) {
          keep = true;
          break;
        }
    }
    if (!keep) continue;
    live[i] = true;
    // Bytes this node overwrites entirely are not needed from earlier writers.
    for (const PlanOperand& o : node.outputs) {
      const ByteRange w = range_of(o);
      if (!w.dense || reads_outputs(node.op_id)) continue;
      std::vector<ByteRange>& u = needed[o.storage];
      u.erase(std::remove_if(u.begin(), u.end(), [&](const ByteRange& r) { return w.lo <= r.lo && r.hi <= w.hi; }),
              u.end());
    }
    for (const PlanOperand& o : node.inputs) needed[o.storage].push_back(range_of(o));
    if (reads_outputs(node.op_id))
      for (const PlanOperand& o : node.outputs) needed[o.storage].push_back(range_of(o));
  }
  // Compact the nodes and renumber what refers to them.
  std::vector<int> index(n, -1);
  std::vector<PlanNode> kept;
  for (size_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(plan.nodes[i]));
  }
  for (int& r : plan.random_nodes) r = index[r];  // random nodes are always live
  const size_t removed = n - kept.size();
  plan.nodes = std::move(kept);
  std::ostringstream os;
  os << "removed " << removed << " of " << n << " nodes";
  return os.str();
}

}  // namespace monoflow::graph
