// Elementwise fusion: chains and trees of elementwise kernels become one
// fused_elementwise node that reads its inputs and writes its outputs once.
//
// Note [Elementwise fusion]
//   Eager mode runs `relu(x @ w + b)`'s add and relu, or a backward's
//   `where(y > 0, g, 0)` (fill, gt, fill, where), as separate kernels, each
//   a pass over memory with a buffer between them. In a plan, a value that
//   only later kernels of the same chain read is Transient memory nobody
//   else can see (Note [Storage classes]), so the chain can run as one
//   kernel that keeps such values in registers (Note [Fused programs] in
//   monoflow/fused_program.h).
//   Grouping is greedy in node order. A fusible node (graph/fusion.h: the
//   arithmetic, comparison, activation and where kernels, scalar forms,
//   same-dtype copies and fills, in a floating kernel dtype) joins the
//   groups of the nodes that last wrote what it reads, all of them if the
//   union is still a valid group, else the first one that stays valid,
//   else it starts its own group. Valid means the group's program builds
//   and every member can move to the last member's place (Note [Fusing
//   plan nodes] in graph/fusion.h) without keeping a buffer alive longer
//   (Note [Fusion must not hold memory longer]): values that something outside reads
//   are stored (several outputs are fine), up to 8 operands in all. A fill
//   contributes a constant, so the 0-dim fills that scalar operands make
//   (`y > 0`, `where(c, g, 0)`) disappear too. Groups of one node stay as
//   they were.
//   Results are bit for bit the unfused plan's: the fused kernel computes
//   each instruction exactly as the kernel it replaces and rounds where
//   that kernel stored (Note [Fused kernels are the unfused chain] in
//   devices/cpu/kernels_graph_fused.cpp); float16/bfloat16 included.
//   Not fused: integer/bool kernel dtypes, casts, random kernels, host
//   nodes, reductions and anything else not listed in fusion::fusible.
//
// Note [Copy elision]
//   What stays of the gradient buffers' fill/copy chains after DCE is a
//   copy of a kernel's fresh result into the gradient (`sum` -> bias grad,
//   `conv2d_weight_grad` -> weight grad, a matmul's product made
//   contiguous, a transposed gradient laid out as its parameter). When the
//   copy is the only reader of that result (Transient, one writer, which
//   wrote exactly the bytes the copy reads, in any layout), both sides of
//   the copy are row-major with the same element count and dtype (so each
//   byte moves by one fixed distance), and no node between the producer
//   and the copy (nor the producer's own inputs) touches the destination,
//   the producer writes the destination directly, with its own shape and
//   strides shifted by that distance, and the copy goes: one kernel and
//   one pass over memory less, the same bytes.
#include <algorithm>
#include <set>
#include <sstream>

#include "monoflow/graph/fusion.h"
#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

// The node that last wrote bytes `o` covers before node `before`, or -1.
int last_writer(const Plan& plan, const fusion::StorageUses& uses, const PlanOperand& o, int before) {
  const std::vector<int>& writers = uses.writers[o.storage];
  for (auto it = std::lower_bound(writers.begin(), writers.end(), before); it != writers.begin();) {
    const int w = *--it;
    for (const PlanOperand& out : plan.nodes[w].outputs)
      if (fusion::overlaps(out, o)) return w;
  }
  return -1;
}

// Row-major contiguous (size-1 dims may have any stride).
bool row_major(const PlanOperand& o) {
  int64_t expect = 1;
  for (size_t d = o.shape.size(); d-- > 0;) {
    if (o.shape[d] != 1 && o.strides[d] != expect) return false;
    expect *= o.shape[d];
  }
  return true;
}

// Note [Copy elision]: both sides row-major with one element count and dtype.
bool row_major_pair(const PlanOperand& src, const PlanOperand& dst) {
  return row_major(src) && row_major(dst) && shape_numel(src.shape) == shape_numel(dst.shape);
}

}  // namespace

std::string fuse_elementwise(Plan& plan) {
  const fusion::StorageUses uses = fusion::storage_uses(plan);
  const int n = static_cast<int>(plan.nodes.size());
  std::vector<int> group_of(static_cast<size_t>(n), -1);
  std::vector<std::vector<int>> groups;  // ascending members; emptied when merged into another
  std::vector<fusion::Program> programs;

  auto valid = [&](const std::vector<int>& members, fusion::Program& p) {
    return fusion::build_program(plan, uses, members, {}, p).empty() && fusion::can_place_at_last(plan, members) &&
           !fusion::holds_memory_longer(plan, uses, members);
  };
  for (int i = 0; i < n; ++i) {
    const PlanNode& node = plan.nodes[static_cast<size_t>(i)];
    MFKernelFn fn;
    if (!fusion::fusible(node) || !fusion::has_kernel(node.device, kOp_fused_elementwise, node.kernel_dtype, &fn) ||
        !fusion::fuses_like_its_members(node, fn))  // Note [Fusing on a device without fused kernels]
      continue;
    std::set<int> candidates;
    for (const PlanOperand& o : node.inputs) {
      const int w = last_writer(plan, uses, o, i);
      if (w >= 0 && group_of[static_cast<size_t>(w)] >= 0) candidates.insert(group_of[static_cast<size_t>(w)]);
    }
    auto commit = [&](const std::vector<int>& from, std::vector<int> members, fusion::Program& p) {
      const int g = from.empty() ? static_cast<int>(groups.size()) : from[0];
      if (from.empty()) {
        groups.emplace_back();
        programs.emplace_back();
      }
      for (int f : from)
        if (f != g) groups[static_cast<size_t>(f)].clear();
      for (int m : members) group_of[static_cast<size_t>(m)] = g;
      groups[static_cast<size_t>(g)] = std::move(members);
      programs[static_cast<size_t>(g)] = std::move(p);
    };
    fusion::Program p;
    bool joined = false;
    if (!candidates.empty()) {
      std::vector<int> all{i};
      for (int g : candidates) all.insert(all.end(), groups[static_cast<size_t>(g)].begin(), groups[static_cast<size_t>(g)].end());
      std::sort(all.begin(), all.end());
      if (valid(all, p)) {
        commit(std::vector<int>(candidates.begin(), candidates.end()), all, p);
        joined = true;
      }
      for (auto it = candidates.begin(); !joined && it != candidates.end(); ++it) {
        std::vector<int> one = groups[static_cast<size_t>(*it)];
        one.push_back(i);  // i is after every member
        if (valid(one, p)) {
          commit({*it}, one, p);
          joined = true;
        }
      }
    }
    if (!joined) {
      groups.push_back({i});
      programs.emplace_back();  // a group of one needs no program until it grows
      group_of[static_cast<size_t>(i)] = static_cast<int>(groups.size()) - 1;
    }
  }

  std::vector<std::vector<int>> fused_groups;
  std::vector<PlanNode> fused_nodes;
  size_t members = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].size() < 2) continue;
    const fusion::Program& p = programs[g];
    const PlanNode& last = plan.nodes[static_cast<size_t>(groups[g].back())];
    PlanNode f;
    f.op_id = kOp_fused_elementwise;
    f.kernel_dtype = p.dtype;
    f.device = last.device;
    fusion::has_kernel(f.device, f.op_id, f.kernel_dtype, &f.kernel);
    f.stream = last.stream;
    f.inputs = p.inputs;
    f.outputs = p.outputs;
    fusion::set_program_attrs(f, p);
    fused_groups.push_back(groups[g]);
    fused_nodes.push_back(std::move(f));
    members += groups[g].size();
  }
  fusion::replace_groups(plan, fused_groups, std::move(fused_nodes));
  const size_t copies = fusion::redirect_copies(plan, row_major_pair);
  std::ostringstream os;
  os << "fused " << members << " nodes into " << fused_groups.size();
  if (copies) os << "; " << copies << " copies elided";
  return os.str();
}

}  // namespace monoflow::graph
