// Epilogue fusion: a matmul whose product only one elementwise node reads
// (a bias add, an activation, a fused_elementwise chain of them) becomes one
// matmul_epilogue node that applies that node's program to each slice of
// the product right after the GEMM wrote it.
//
// Note [Epilogue fusion]
//   `relu(x @ w.t() + b)` is matmul, add, relu: after elementwise fusion a
//   matmul and one fused_elementwise node reading its product. The product
//   is Transient memory written by the matmul and read by that node only;
//   the epilogue node writes the GEMM into its first output (which must be
//   row-major with the product's shape and dtype: the elementwise node's
//   result, typically the activation) and runs the program on each slice of
//   rows (the slices the GEMM is split into over the OpenMP team) while it
//   is still in cache, reading the slice back as program input 0. One
//   kernel and one buffer less per layer, and the bias add and activation
//   no longer stream the product through memory again. Backward's
//   `g @ w` followed by relu's `where(y > 0, g', 0)` fuses the same way.
//   The GEMM is called exactly as the matmul kernel calls it, so results
//   are bit for bit the unfused plan's (Note [Fused kernels are the unfused
//   chain] in devices/cpu/kernels_graph_fused.cpp).
//   Conditions, besides Note [Fusing plan nodes] in graph/fusion.h (the
//   matmul moves to the elementwise node's place): a floating dtype shared
//   by both; the product read through exactly the view the matmul wrote; no
//   input (the matrices included) overlapping an output, since output 0
//   holds the product before the program reads anything; at most 8
//   operands. If the pre-activation value is read elsewhere (it is not, for
//   relu, whose backward reads the output), its producer is not the
//   matmul-reading node's only consumer and it stays an output of it.
//   Conv is not fused (left to do).
#include <algorithm>
#include <cstring>
#include <sstream>

#include "monoflow/fused_program.h"
#include "monoflow/graph/fusion.h"
#include "monoflow/graph/pass.h"

namespace monoflow::graph {

namespace {

const std::vector<int64_t>* ints_of(const PlanNode& n, const char* name) {
  for (size_t k = 0; k < n.attrs.size(); ++k)
    if (n.attrs[k].name && std::strcmp(n.attrs[k].name, name) == 0 && n.attrs[k].kind == MF_ATTR_INTS)
      return &n.ints[k];
  return nullptr;
}

// The program of a fused_elementwise node, with input `first` moved to 0.
bool program_of_fused(const PlanNode& n, size_t first, fusion::Program& p) {
  const std::vector<int64_t>* code = ints_of(n, "program");
  const std::vector<int64_t>* outs = ints_of(n, "outputs");
  const std::vector<int64_t>* consts = ints_of(n, "constants");
  int64_t registers = -1;
  for (const MFAttr& a : n.attrs)
    if (a.name && std::strcmp(a.name, "registers") == 0) registers = a.i;
  if (!code || !outs || !consts || registers < 1) return false;
  p = fusion::Program{};
  p.dtype = n.kernel_dtype;
  p.shape = n.outputs[0].shape;
  p.code = *code;
  p.output_regs = *outs;
  p.constants = *consts;
  p.registers = static_cast<int>(registers);
  p.outputs = n.outputs;
  p.inputs = n.inputs;
  std::rotate(p.inputs.begin(), p.inputs.begin() + static_cast<std::ptrdiff_t>(first),
              p.inputs.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  const int64_t f = static_cast<int64_t>(first);
  for (size_t k = 0; k < p.code.size(); k += MF_FUSED_WIDTH) {
    if (p.code[k] != MF_FUSED_LOAD) continue;
    int64_t& in = p.code[k + 2];
    in = in == f ? 0 : (in < f ? in + 1 : in);
  }
  return true;
}

bool row_major(const PlanOperand& o) { return o.strides == contiguous_strides(o.shape); }

// Puts an output that can hold the product (row-major, its shape and dtype) first.
bool product_output_first(fusion::Program& p, const PlanOperand& product) {
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    const PlanOperand& o = p.outputs[k];
    if (o.dtype != product.dtype || o.shape != product.shape || !row_major(o)) continue;
    std::rotate(p.outputs.begin(), p.outputs.begin() + static_cast<std::ptrdiff_t>(k),
                p.outputs.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    std::rotate(p.output_regs.begin(), p.output_regs.begin() + static_cast<std::ptrdiff_t>(k),
                p.output_regs.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    return true;
  }
  return false;
}

}  // namespace

std::string fuse_epilogue(Plan& plan) {
  const fusion::StorageUses uses = fusion::storage_uses(plan);
  const int n = static_cast<int>(plan.nodes.size());
  std::vector<char> taken(static_cast<size_t>(n), 0);
  std::vector<std::vector<int>> groups;
  std::vector<PlanNode> fused;
  for (int e = 0; e < n; ++e) {
    const PlanNode& epi = plan.nodes[static_cast<size_t>(e)];
    const bool is_fused = !epi.host && epi.op_id == kOp_fused_elementwise;
    if (!is_fused && (!fusion::fusible(epi) || fusion::is_fill(epi))) continue;
    for (size_t x = 0; x < epi.inputs.size(); ++x) {
      const PlanOperand& product = epi.inputs[x];
      const int s = product.storage;
      if (plan.storages[s].cls != StorageClass::Transient || uses.writers[s].size() != 1 ||
          uses.readers[s] != std::vector<int>{e})
        continue;
      const int m = uses.writers[s][0];
      const PlanNode& mm = plan.nodes[static_cast<size_t>(m)];
      if (m >= e || taken[static_cast<size_t>(m)] || mm.host || mm.op_id != kOp_matmul ||
          mm.kernel_dtype != epi.kernel_dtype || mm.inputs.size() != 2 || mm.outputs.size() != 1 ||
          !fusion::same_view(mm.outputs[0], product) || product.dtype != mm.kernel_dtype || product.shape.size() < 2)
        continue;
      MFKernelFn fn;
      if (!fusion::has_kernel(mm.device, kOp_matmul_epilogue, mm.kernel_dtype, &fn) || mm.device != epi.device)
        continue;
      fusion::Program p;
      if (is_fused) {
        if (!program_of_fused(epi, x, p)) continue;
      } else if (!fusion::build_program(plan, uses, {e}, {product}, p).empty()) {
        continue;
      }
      if (!product_output_first(p, product)) continue;
      bool ok = p.inputs.size() + 1 + p.outputs.size() <= 8;
      for (size_t k = 1; k < p.inputs.size(); ++k) ok &= p.inputs[k].storage != s;  // only output 0 holds the product
      for (const PlanOperand& o : p.outputs) {
        for (size_t k = 1; k < p.inputs.size(); ++k) ok &= !fusion::overlaps(p.inputs[k], o);
        for (const PlanOperand& in : mm.inputs) ok &= !fusion::overlaps(in, o);
      }
      if (!ok || !fusion::can_place_at_last(plan, {m, e})) continue;
      PlanNode f;
      f.op_id = kOp_matmul_epilogue;
      f.kernel_dtype = mm.kernel_dtype;
      f.device = mm.device;
      f.kernel = fn;
      f.stream = mm.stream;
      f.inputs = mm.inputs;
      f.inputs.insert(f.inputs.end(), p.inputs.begin() + 1, p.inputs.end());
      f.outputs = p.outputs;
      fusion::set_program_attrs(f, p);
      taken[static_cast<size_t>(m)] = taken[static_cast<size_t>(e)] = 1;
      groups.push_back({m, e});
      fused.push_back(std::move(f));
      break;
    }
  }
  fusion::replace_groups(plan, groups, std::move(fused));
  std::ostringstream os;
  os << "fused " << groups.size() << " matmuls with their epilogues";
  return os.str();
}

}  // namespace monoflow::graph
