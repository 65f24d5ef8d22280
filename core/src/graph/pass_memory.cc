// Memory planning: the Transient buffers of a plan share one arena per
// device, at offsets chosen from their lifetimes.
//
// Note [Memory planning]
//   Before this pass every Transient storage is its own block (the one the
//   trace wrote), times `slots` copies at run time. Most of them live for a
//   few nodes: an activation from its forward kernel to its backward one, a
//   temporary from one kernel to the next. The pass gives each Transient
//   storage a lifetime - the first and last node (in plan order) whose
//   operands touch it - and places the storages in one arena per device so
//   that two of them share bytes only when their lifetimes are disjoint.
//   Placement is greedy by size (largest first, ties by first use): each
//   buffer goes into the tightest gap, among the buffers already placed
//   whose lifetimes overlap its own, that fits it (best fit), or above them
//   all. Offsets are aligned to kArenaAlign bytes, so every view keeps the
//   alignment its traced block gave it (the allocator's blocks are aligned
//   at least as much). A buffer occupies the span of bytes its operands
//   actually touch, not the whole traced block.
//
//   The arena is a new Transient storage appended to plan.storages
//   (`arena`, owning fresh memory); each placed storage records where it
//   went (`placed_in`, `arena_shift`) and releases its traced block, and
//   every operand that named it is redirected: storage := the arena,
//   byte_offset += shift. Nothing else has to know: the runtime makes its
//   `slots` copies per Transient storage that has memory (the arenas and
//   anything left unplanned), and add_dependencies, which runs after the
//   passes, derives the edges from byte overlaps in the arena - so reuse is
//   ordered for free: the later buffer's first writer waits for the earlier
//   buffer's last reader (write-after-read), and across iterations a copy of
//   the arena comes back to its first user once every user of the
//   iteration `slots` back is done (Register edges between every pair of
//   nodes whose buffers overlap there).
//
//   Why this is exact: a Transient storage is written inside an iteration
//   before any node reads it (every read lies inside bytes earlier nodes
//   wrote densely, Note [Storage classes]), so its contents before its first
//   node and after its last node are never observed, and the graph's
//   outputs and inputs are never Transient (Output and Input memory is
//   bound per run); random kernels reach memory only through their
//   operands too. Storages that no node uses any more (DCE's and CSE's
//   leftovers) release their block and get no copies either.
//
//   In place. An elementwise kernel (one whose operands the core may
//   coalesce: it reads and writes element i independently of the others)
//   that reads the last use of one buffer and makes a new one through the
//   same layout (element size, shape, strides, kernel layout) can write
//   over its input, as eager in-place ops (x.add_(y), relu_) call those
//   very kernels: the output buffer is placed so that its bytes land on
//   the input's (a group of buffers at fixed distances, placed as one, its
//   lifetime and extent the union of theirs). Every other read of that
//   buffer by the kernel must be the same view, and the kernel must not
//   read its outputs (index_put, sgd_momentum) or be random. Fused chains
//   (fused_elementwise) qualify too: their kernels copy an input that is
//   the very view of an output when they load it. This is what
//   takes the backward's elementwise chains (relu's mask times the
//   gradient, the gradient of a fused chain) from two buffers to one.
//
//   Early updates. Lifetimes are taken in plan order, so the order decides
//   how much is live at once. A training step traces the whole backward and
//   then the optimizer's updates, so every gradient is live at the end of
//   the backward, as in eager mode. Before placing, the pass moves each node
//   that only ends lifetimes - it reads Transient memory and writes none,
//   e.g. a parameter's update reading its gradient - to just after the last
//   earlier node it conflicts with (touches bytes of one storage that one
//   of them writes). Skipping non-conflicting nodes changes no result; the
//   moved node reads what it read before and writes what no skipped node
//   touches. Random kernels stay where they are (their order is the order
//   of the draws), host nodes neither move nor are passed (Note [Passes and
//   host nodes] in graph/plan.h), and the moved nodes write only
//   non-Transient memory, so no buffer's lifetime grows.
//
//   Same-layout copies. A copy whose source and destination have one layout
//   (dtype, shape, strides; both dense) but are not row-major, e.g. a
//   weight gradient computed as a transposed view (Note [Gradients in the
//   operand's layout] in ops_matmul.cc) copied into the transposed view of
//   the buffer a view's backward scatters into, is not elided by
//   fuse_elementwise (Note [Copy elision]: row-major only), and would keep
//   the gradient twice at the peak. The same argument holds for one layout:
//   byte k of the source is byte k + shift of the destination. So, first,
//   when the source is Transient, written by one earlier node only (exactly
//   the source's bytes) and read by the copy only, and nothing from that
//   writer to the copy (the writer's inputs included) touches the
//   destination, the writer writes the destination instead (shifted by the
//   same distance) and the copy goes. Row-major copies are left to
//   fuse_elementwise (a plan compiled without it keeps them).
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "monoflow/graph/fusion.h"
#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

constexpr int64_t kArenaAlign = 256;

int64_t align_down(int64_t v) { return (v >= 0 ? v : v - (kArenaAlign - 1)) / kArenaAlign * kArenaAlign; }
int64_t align_up(int64_t v) { return (v + kArenaAlign - 1) / kArenaAlign * kArenaAlign; }

ByteRange range_of(const PlanOperand& o) { return byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype)); }

bool overlap(const ByteRange& a, const ByteRange& b) { return a.lo < b.hi && b.lo < a.hi; }

// Whether nodes a and b touch overlapping bytes of one storage, one of them writing.
bool conflict(const PlanNode& a, const PlanNode& b) {
  auto check = [](const std::vector<PlanOperand>& x, const std::vector<PlanOperand>& y) {
    for (const PlanOperand& p : x)
      for (const PlanOperand& q : y)
        if (p.storage == q.storage && overlap(range_of(p), range_of(q))) return true;
    return false;
  };
  return check(a.outputs, b.outputs) || check(a.outputs, b.inputs) || check(a.inputs, b.outputs);
}

// Note [Memory planning], "Same-layout copies": one dense layout that is not
// row-major (row-major pairs are fuse_elementwise's copy elision).
bool same_dense_layout(const PlanOperand& src, const PlanOperand& dst) {
  return src.shape == dst.shape && src.strides == dst.strides && src.strides != contiguous_strides(src.shape) &&
         range_of(src).dense && range_of(dst).dense;
}

// Note [Memory planning], "Early updates". Returns how many nodes moved.
int move_updates_early(Plan& plan) {
  auto transient = [&](const PlanOperand& o) { return plan.storages[o.storage].cls == StorageClass::Transient; };
  int moved = 0;
  std::vector<PlanNode>& nodes = plan.nodes;
  for (size_t p = 0; p < nodes.size(); ++p) {
    const PlanNode& n = nodes[p];
    if (n.generator || n.host || n.outputs.empty()) continue;
    if (std::any_of(n.outputs.begin(), n.outputs.end(), transient)) continue;
    if (!std::any_of(n.inputs.begin(), n.inputs.end(), transient)) continue;
    size_t q = p;
    while (q > 0 && !nodes[q - 1].host && !conflict(nodes[q - 1], n)) --q;
    if (q == p) continue;
    std::rotate(nodes.begin() + q, nodes.begin() + p, nodes.begin() + p + 1);
    ++moved;
  }
  if (moved) {
    // Random nodes never move relative to each other; only their indices change.
    plan.random_nodes.clear();
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].generator) plan.random_nodes.push_back(static_cast<int>(i));
  }
  return moved;
}

struct Buffer {
  int storage = -1;
  int first = -1, last = -1;  // nodes
  int64_t lo = 0, hi = 0;     // the bytes its operands touch, aligned
  int group = -1;             // Note [Memory planning], "In place"
  int64_t rel = 0;            // where lo lies in the group's coordinates
  int64_t size() const { return hi - lo; }
};

// Buffers placed together at fixed distances: a chain of in-place handoffs
// (one buffer alone, mostly). Lifetime and extent are the members' union.
struct Group {
  int first = 0, last = 0;
  int64_t lo = 0, hi = 0;  // extent, in group coordinates
  int64_t offset = 0;      // of `lo`, in the arena
  int64_t size() const { return hi - lo; }
};

// Best-fit offset for g among the placed groups whose lifetimes overlap its own.
int64_t place(const Group& g, const std::vector<const Group*>& placed) {
  std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) in the arena
  for (const Group* o : placed)
    if (o->first <= g.last && g.first <= o->last) busy.emplace_back(o->offset, o->offset + o->size());
  std::sort(busy.begin(), busy.end());
  int64_t best = -1, best_gap = 0, cursor = 0;
  for (const auto& [lo, hi] : busy) {
    const int64_t gap = lo - cursor;
    if (gap >= g.size() && (best < 0 || gap < best_gap)) {
      best = cursor;
      best_gap = gap;
    }
    cursor = std::max(cursor, hi);
  }
  return best >= 0 ? best : cursor;
}

bool same_access(const PlanOperand& a, const PlanOperand& b) {
  return itemsize(a.dtype) == itemsize(b.dtype) && a.shape == b.shape && a.strides == b.strides &&
         a.kernel_shape == b.kernel_shape && a.kernel_strides == b.kernel_strides;
}

// Note [Memory planning], "In place": at node n, output buffer `out` may
// take the bytes of input buffer `in` when n is elementwise, `in` dies at n
// and `out` is born there, and n reaches both through the same layout (so
// element i is read from and written to one address, as an eager in-place
// op does). Returns the pairs (input operand, output operand) per node.
std::vector<std::pair<int, int>> in_place_pairs(const Plan& plan, const std::vector<Buffer>& buffers) {
  std::vector<std::pair<int, int>> pairs(plan.nodes.size(), {-1, -1});
  std::vector<bool> taken(buffers.size(), false);  // already handed on
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    // Elementwise kernels that support an output that is exactly an input:
    // the coalesced ones (eager in-place ops call them so), and fused chains
    // (Note [Direct operands] in devices/cpu/kernels_graph_fused.cpp).
    // (Not copy: a copy onto itself would be a memcpy of overlapping memory.)
    const bool elementwise = (n.coalesce && n.op_id != kOp_copy) || (!n.host && n.op_id == kOp_fused_elementwise);
    if (!elementwise || n.host || n.generator || reads_outputs(n.op_id)) continue;
    for (size_t k = 0; k < n.inputs.size() && pairs[i].first < 0; ++k) {
      const PlanOperand& in = n.inputs[k];
      const Buffer& a = buffers[in.storage];
      if (a.storage < 0 || a.last != static_cast<int>(i) || taken[in.storage]) continue;
      bool ok = true;
      for (const PlanOperand& o : n.inputs)  // every read of that buffer is this same view
        if (o.storage == in.storage && !(o.byte_offset == in.byte_offset && same_access(o, in))) ok = false;
      for (const PlanOperand& o : n.outputs) ok = ok && o.storage != in.storage;
      for (size_t j = 0; j < n.outputs.size() && ok; ++j) {
        const PlanOperand& out = n.outputs[j];
        const Buffer& b = buffers[out.storage];
        if (b.storage < 0 || b.first != static_cast<int>(i) || !same_access(in, out)) continue;
        bool single = true;  // the output buffer is written by this operand only, and not read here
        for (size_t q = 0; q < n.outputs.size(); ++q) single = single && (q == j || n.outputs[q].storage != out.storage);
        for (const PlanOperand& o : n.inputs) single = single && o.storage != out.storage;
        if (!single) continue;
        pairs[i] = {static_cast<int>(k), static_cast<int>(j)};
        taken[in.storage] = true;
        break;
      }
    }
  }
  return pairs;
}

std::string bytes_str(int64_t n) {
  char buf[32];
  if (n >= (int64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f MB", n / 1048576.0);
  else if (n >= 1024) std::snprintf(buf, sizeof buf, "%.1f KB", n / 1024.0);
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(n));
  return buf;
}

}  // namespace

std::string plan_memory(Plan& plan) {
  const int forwarded = static_cast<int>(fusion::redirect_copies(plan, same_dense_layout));
  const int moved = move_updates_early(plan);
  const size_t nstorages = plan.storages.size();
  std::vector<Buffer> buffers(nstorages);
  std::vector<bool> used(nstorages, false);
  auto visit = [&](int node, const PlanOperand& o) {
    used[o.storage] = true;
    const PlanStorage& ps = plan.storages[o.storage];
    if (ps.cls != StorageClass::Transient || ps.arena || !ps.storage) return;
    Buffer& b = buffers[o.storage];
    const ByteRange r = range_of(o);
    if (b.storage < 0) {
      b.storage = o.storage;
      b.first = node;
      b.lo = r.lo;
      b.hi = r.hi;
    }
    b.last = node;
    if (r.lo < r.hi) {
      b.lo = std::min(b.lo, r.lo);
      b.hi = std::max(b.hi, r.hi);
    }
  };
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    for (const PlanOperand& o : plan.nodes[i].inputs) visit(static_cast<int>(i), o);
    for (const PlanOperand& o : plan.nodes[i].outputs) visit(static_cast<int>(i), o);
  }
  for (const PlanOperand& o : plan.outputs) {  // never Transient today; left alone if ever
    used[o.storage] = true;
    buffers[o.storage].storage = -1;
  }
  // One arena per device, in order of first appearance.
  std::vector<Device> devices;
  std::vector<std::vector<Buffer*>> by_device;
  for (Buffer& b : buffers) {
    if (b.storage < 0) continue;
    b.lo = align_down(b.lo);
    b.hi = std::max(b.lo, align_up(b.hi));
    const Device d = plan.storages[b.storage].device;
    size_t k = std::find(devices.begin(), devices.end(), d) - devices.begin();
    if (k == devices.size()) {
      devices.push_back(d);
      by_device.emplace_back();
    }
    by_device[k].push_back(&b);
  }
  int64_t before = 0, after = 0;
  int planned = 0, released = 0;
  for (size_t s = 0; s < nstorages; ++s) {
    const PlanStorage& ps = plan.storages[s];
    if (ps.cls == StorageClass::Transient && !ps.arena && ps.storage) before += static_cast<int64_t>(ps.nbytes);
  }
  // Unused Transient storages: no node needs their memory any more.
  for (size_t s = 0; s < nstorages; ++s) {
    PlanStorage& ps = plan.storages[s];
    if (ps.cls == StorageClass::Transient && !ps.arena && ps.storage && !used[s]) {
      ps.storage.reset();
      ++released;
    }
  }
  // Groups: each buffer alone, then in-place handoffs join the output's
  // buffer to the input's group (nodes in order: the output is still alone).
  std::vector<Group> groups;
  for (Buffer& b : buffers) {
    if (b.storage < 0) continue;
    b.group = static_cast<int>(groups.size());
    b.rel = 0;
    groups.push_back(Group{b.first, b.last, 0, b.size(), 0});
  }
  int in_place = 0;
  const std::vector<std::pair<int, int>> pairs = in_place_pairs(plan, buffers);
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    if (pairs[i].first < 0) continue;
    const PlanOperand& in = plan.nodes[i].inputs[pairs[i].first];
    const PlanOperand& out = plan.nodes[i].outputs[pairs[i].second];
    const Buffer& a = buffers[in.storage];
    Buffer& b = buffers[out.storage];
    Group& g = groups[a.group];
    // out's element 0 at in's element 0: rel_b - b.lo + out.offset == rel_a - a.lo + in.offset
    b.rel = a.rel - a.lo + in.byte_offset + b.lo - out.byte_offset;
    groups[b.group].last = -1;  // empty now
    b.group = a.group;
    g.lo = std::min(g.lo, align_down(b.rel));  // extents stay aligned, so offsets do
    g.hi = std::max(g.hi, align_up(b.rel + b.size()));
    g.first = std::min(g.first, b.first);
    g.last = std::max(g.last, b.last);
    ++in_place;
  }
  // The most bytes live at one node (groups counted whole): what any
  // placement of these groups needs at least.
  int64_t live_peak = 0;
  {
    std::vector<int64_t> delta(plan.nodes.size() + 1, 0);
    for (const Group& g : groups)
      if (g.last >= 0) {
        delta[g.first] += g.size();
        delta[g.last + 1] -= g.size();
      }
    int64_t live = 0;
    for (int64_t d : delta) live_peak = std::max(live_peak, live += d);
  }
  std::vector<int> arena_of(nstorages, -1);
  for (size_t k = 0; k < devices.size(); ++k) {
    std::vector<Buffer*>& list = by_device[k];
    std::vector<Group*> order;
    for (Buffer* b : list)
      if (groups[b->group].last >= 0 && std::find(order.begin(), order.end(), &groups[b->group]) == order.end())
        order.push_back(&groups[b->group]);
    std::stable_sort(order.begin(), order.end(), [](const Group* a, const Group* b) {
      return a->size() != b->size() ? a->size() > b->size() : a->first < b->first;
    });
    std::vector<const Group*> placed;
    int64_t total = 0;
    for (Group* g : order) {
      g->offset = place(*g, placed);
      placed.push_back(g);
      total = std::max(total, g->offset + g->size());
    }
    // The traced blocks go first, so that the arena can reuse their memory.
    for (Buffer* b : list) plan.storages[b->storage].storage.reset();
    PlanStorage arena;
    arena.cls = StorageClass::Transient;
    arena.device = devices[k];
    arena.nbytes = static_cast<size_t>(total);
    arena.storage = Storage::allocate(devices[k], arena.nbytes);
    arena.written = true;
    arena.arena = true;
    const int index = static_cast<int>(plan.storages.size());
    plan.storages.push_back(std::move(arena));
    for (Buffer* b : list) {
      const Group& g = groups[b->group];
      PlanStorage& ps = plan.storages[b->storage];
      ps.placed_in = index;
      ps.arena_shift = g.offset - g.lo + b->rel - b->lo;  // byte lo of the storage lands at offset + rel - lo
      arena_of[b->storage] = index;
      ++planned;
    }
    after += total;
  }
  for (PlanNode& n : plan.nodes)
    for (std::vector<PlanOperand>* ops : {&n.inputs, &n.outputs})
      for (PlanOperand& o : *ops) {
        const int a = arena_of[o.storage];
        if (a < 0) continue;
        o.byte_offset += plan.storages[o.storage].arena_shift;
        o.storage = a;
      }
  for (size_t s = 0; s < nstorages; ++s) {  // what stayed out of the arenas still counts
    const PlanStorage& ps = plan.storages[s];
    if (ps.cls == StorageClass::Transient && !ps.arena && ps.storage) after += static_cast<int64_t>(ps.nbytes);
  }
  std::ostringstream os;
  os << "transient " << bytes_str(before) << " -> " << bytes_str(after);
  if (devices.size() == 1) os << " in one arena";
  else if (devices.size() > 1) os << " in " << devices.size() << " arenas";
  os << " (" << planned << " buffers";
  if (in_place) os << ", " << in_place << " written in place";
  if (released) os << ", " << released << " unused released";
  if (planned) os << "; " << bytes_str(live_peak) << " live at most";
  if (moved) os << "; " << moved << " updates moved early";
  if (forwarded) os << "; " << forwarded << " copies forwarded";
  os << ")";
  return os.str();
}

PlanMemory Plan::memory() const {
  PlanMemory m;
  for (const PlanStorage& s : storages) {
    const auto n = static_cast<int64_t>(s.nbytes);
    switch (s.cls) {
      case StorageClass::Persistent:
        if (s.storage) m.persistent += n;
        break;
      case StorageClass::Transient:
        if (!s.arena) m.transient_traced += n;
        if (s.storage) m.transient += n;
        break;
      case StorageClass::Output: m.output += n; break;
      case StorageClass::Input: break;
    }
  }
  return m;
}

std::string format_bytes(int64_t n) { return bytes_str(n); }

}  // namespace monoflow::graph
