// Constant folding: kernels whose inputs never change are run once (by the
// trace) instead of at every iteration.
//
// Note [Constant folding]
//   Constant memory is memory whose contents are the same at every
//   iteration of every run:
//   - a Persistent storage that no node writes and that nothing outside the
//     plan holds (the plan's reference is the only one, the refcount test of
//     Note [Storage classes]): data copied from the host inside the trace
//     (flow.tensor(...)), for instance - but not memory the host shares
//     (from_numpy), which changes under a numpy array. Parameters of an eval graph are not
//     written by the plan either, but the module holds them and eager code
//     may update them between runs: not constant.
//   - a Transient storage all of whose writers are folded (below).
//   A node is folded when it is not random, not a host node, writes only
//   Transient storages, all of whose writers are folded, and reads only
//   constant memory; a node with no inputs (fill, arange, the backward's
//   ones) qualifies at once. This is a greatest fixpoint: start from every
//   candidate and drop nodes that read or share an output storage with a
//   non-folded node until nothing changes.
//   The trace ran the kernels it recorded (a lazy trace must not fold, see
//   trace() in monoflow/_graph), so a folded storage's traced block already
//   holds the value at the end of the trace; folding makes it Persistent,
//   keeps that block and drops the folded nodes. That block is what every
//   remaining reader must see, so one more condition: each non-folded reader
//   of a folded storage comes after the storage's last writer (otherwise the
//   writers are not folded). Folded constants that no remaining node reads
//   release their block. Values are those of the very kernels a run would
//   call, so results do not change by a bit.
#include <sstream>

#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

bool reads_storage(const PlanNode& n, int s) {
  for (const PlanOperand& o : n.inputs)
    if (o.storage == s) return true;
  return false;
}

}  // namespace

std::string constant_folding(Plan& plan) {
  const size_t n = plan.nodes.size(), ns = plan.storages.size();
  std::vector<std::vector<int>> writers(ns);
  for (size_t i = 0; i < n; ++i)
    for (const PlanOperand& o : plan.nodes[i].outputs)
      if (writers[o.storage].empty() || writers[o.storage].back() != static_cast<int>(i))
        writers[o.storage].push_back(static_cast<int>(i));
  std::vector<bool> constant_persistent(ns, false);
  for (size_t s = 0; s < ns; ++s) {
    const PlanStorage& ps = plan.storages[s];
    // Memory the allocator owns and the host never saw (from_numpy memory
    // can change under a numpy array that holds no reference we can count).
    constant_persistent[s] = ps.cls == StorageClass::Persistent && ps.storage && writers[s].empty() &&
                             !ps.written && ps.storage.use_count() == 1 && ps.storage->block &&
                             !ps.storage->host_visible;
  }
  std::vector<bool> folded(n, false);
  for (size_t i = 0; i < n; ++i) {
    const PlanNode& node = plan.nodes[i];
    if (node.generator || node.host || node.outputs.empty()) continue;
    bool ok = true;
    for (const PlanOperand& o : node.outputs) {
      const PlanStorage& ps = plan.storages[o.storage];
      ok = ok && ps.cls == StorageClass::Transient && !ps.arena && ps.storage;
    }
    folded[i] = ok;
  }
  std::vector<bool> constant_transient(ns, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < ns; ++s) {
      bool all = plan.storages[s].cls == StorageClass::Transient && !writers[s].empty();
      for (int w : writers[s]) all = all && folded[w];
      constant_transient[s] = all;
    }
    auto constant = [&](int s) { return constant_persistent[s] || constant_transient[s]; };
    for (size_t i = 0; i < n; ++i) {
      if (!folded[i]) continue;
      bool ok = true;
      for (const PlanOperand& o : plan.nodes[i].inputs) ok = ok && constant(o.storage);
      for (const PlanOperand& o : plan.nodes[i].outputs) ok = ok && constant_transient[o.storage];
      if (!ok) {
        folded[i] = false;
        changed = true;
      }
    }
    // A non-folded reader must see the final value: it comes after the last writer.
    for (size_t s = 0; s < ns && !changed; ++s) {
      if (!constant_transient[s]) continue;
      const int last = writers[s].back();
      for (int r = 0; r < last; ++r) {
        if (folded[r] || !reads_storage(plan.nodes[r], static_cast<int>(s))) continue;
        for (int w : writers[s]) folded[w] = false;
        changed = true;
        break;
      }
    }
  }
  // Fold: the constants become Persistent, the folded nodes go.
  int constants = 0;
  int64_t bytes = 0;
  std::vector<bool> still_read(ns, false);
  std::vector<int> index(n, -1);
  std::vector<PlanNode> kept;
  for (size_t i = 0; i < n; ++i) {
    if (folded[i]) continue;
    for (const PlanOperand& o : plan.nodes[i].inputs) still_read[o.storage] = true;
    for (const PlanOperand& o : plan.nodes[i].outputs) still_read[o.storage] = true;
    index[i] = static_cast<int>(kept.size());
    kept.push_back(std::move(plan.nodes[i]));
  }
  for (size_t s = 0; s < ns; ++s) {
    if (!constant_transient[s]) continue;
    PlanStorage& ps = plan.storages[s];
    ps.cls = StorageClass::Persistent;
    ps.written = false;
    if (still_read[s]) {
      ++constants;
      bytes += static_cast<int64_t>(ps.nbytes);
    } else {
      ps.storage.reset();  // an intermediate of the folded computation only
    }
  }
  for (int& r : plan.random_nodes) r = index[r];  // random nodes are never folded
  const size_t removed = n - kept.size();
  plan.nodes = std::move(kept);
  std::ostringstream os;
  os << "folded " << removed << " of " << n << " nodes into " << constants << " constant"
     << (constants == 1 ? "" : "s") << " (" << format_bytes(bytes) << ")";
  return os.str();
}

}  // namespace monoflow::graph
