// add_dependencies: the edges between a plan's nodes, from the byte ranges
// each node reads and writes (Note [Plan dependencies] in graph/plan.h).
#include <algorithm>
#include <unordered_map>

#include "monoflow/graph/plan.h"

namespace monoflow::graph {

namespace {

struct Access {
  int node;
  bool write;
  ByteRange range;
};

bool overlap(const ByteRange& a, const ByteRange& b) { return a.lo < b.hi && b.lo < a.hi; }

// Keeps one edge per ordered pair of nodes, the strongest kind.
class EdgeSet {
 public:
  explicit EdgeSet(size_t n) : n_(static_cast<int64_t>(n)) {}
  void add(int from, int to, EdgeKind kind) {
    auto [it, inserted] = kinds_.emplace(from * n_ + to, kind);
    if (!inserted && static_cast<int>(kind) < static_cast<int>(it->second)) it->second = kind;
  }
  std::vector<PlanEdge> edges() const {
    std::vector<PlanEdge> out;
    out.reserve(kinds_.size());
    for (const auto& [key, kind] : kinds_)
      out.push_back(PlanEdge{static_cast<int>(key / n_), static_cast<int>(key % n_), kind});
    std::sort(out.begin(), out.end(), [](const PlanEdge& a, const PlanEdge& b) {
      return a.from != b.from ? a.from < b.from : a.to < b.to;
    });
    return out;
  }

 private:
  int64_t n_;
  std::unordered_map<int64_t, EdgeKind> kinds_;
};

}  // namespace

void add_dependencies(Plan& plan) {
  std::vector<std::vector<Access>> accesses(plan.storages.size());
  EdgeSet edges(plan.nodes.size());
  auto touch = [&](int node, const PlanOperand& o, bool write) {
    ByteRange r = byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype));
    if (r.lo >= r.hi) return;
    std::vector<Access>& log = accesses[o.storage];
    // Intra edges: back to the latest dense write covering this range; the
    // uses before it are ordered before that write already.
    for (size_t k = log.size(); k-- > 0;) {
      const Access& a = log[k];
      if (a.node == node || !overlap(a.range, r)) continue;
      if (a.write || write) edges.add(a.node, node, EdgeKind::Intra);
      if (a.write && a.range.dense && a.range.lo <= r.lo && r.hi <= a.range.hi) break;
    }
    log.push_back(Access{node, write, r});
  };
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    const int id = static_cast<int>(i);
    for (const PlanOperand& o : n.inputs) touch(id, o, false);
    for (const PlanOperand& o : n.outputs) touch(id, o, true);
  }
  // Loop-carried edges: every conflicting pair, the later node first. (A
  // covering write between the two does not order the later use of one
  // iteration before the earlier use of the next.) For each access a the
  // later accesses are scanned from the last one back, and the scan stops at
  // the latest dense write W covering a's range: every access between a and
  // W that overlaps a's range is ordered before W by Intra edges, so its edge
  // to a follows from W's. Without this, memory planning's arena (one storage
  // reused by many buffers, Note [Memory planning] in pass_memory.cc) would
  // get an edge between every pair of nodes whose buffers ever share bytes.
  for (size_t s = 0; s < plan.storages.size(); ++s) {
    EdgeKind kind;
    switch (plan.storages[s].cls) {
      case StorageClass::Output: continue;  // fresh memory each iteration
      case StorageClass::Transient: kind = EdgeKind::Register; break;
      default: kind = EdgeKind::Carried; break;
    }
    const std::vector<Access>& log = accesses[s];
    for (size_t a = 0; a < log.size(); ++a)
      for (size_t b = log.size(); b-- > a + 1;) {
        const Access &x = log[a], &y = log[b];
        if (x.node != y.node && (x.write || y.write) && overlap(x.range, y.range)) edges.add(y.node, x.node, kind);
        if (y.write && y.range.dense && y.range.lo <= x.range.lo && x.range.hi <= y.range.hi) break;
      }
  }
  // Host nodes with peers: one chain in trace order (Note [Collective order]).
  int first_host = -1, last_host = -1;
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    if (!n.host || !n.host->peers_involved()) continue;
    const int id = static_cast<int>(i);
    if (last_host >= 0) edges.add(last_host, id, EdgeKind::Intra);
    if (first_host < 0) first_host = id;
    last_host = id;
  }
  if (last_host > first_host) edges.add(last_host, first_host, EdgeKind::Carried);
  plan.edges = edges.edges();
}

}  // namespace monoflow::graph
