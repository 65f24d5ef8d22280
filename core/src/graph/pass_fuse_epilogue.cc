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
//
// Note [Conv epilogue fusion]
//   conv2d fuses the same way into a conv_epilogue node: the conv kernel
//   adds the bias itself (init rows + beta 1 GEMM), so what follows a conv
//   is the activation, or a fused chain reading the conv's output
//   elementwise. The kernel runs kernels_conv.cpp's own loop and applies
//   the program to each chunk of images as the chunk is finished (Note
//   [Conv epilogues] there). Differences from the matmul case: the node
//   keeps the conv's attributes (stride, padding, dilation, groups) and
//   says whether a bias is passed ("bias"); the program may see the
//   conv's output through another contiguous view of the same bytes whose
//   dim 0 is the batch (conv1d's squeeze(-2) of the [N, O, 1, L] result);
//   and the conv's output may have readers after the program's node
//   (gelu's backward reads its input) or be a result of the graph (Output
//   memory): then it stays output 0 of the fused
//   node, stored by an extra load of program input 0 (it is written back
//   unchanged; the readers still get it) and only the epilogue's pass over
//   memory is saved. conv_transpose2d (conv2d's input gradient, and the
//   layer) fuses the same way ("transpose" 1): its chunks of images are
//   finished after their col2im, so `relu(conv_transpose2d(...))` and a
//   backward's input gradient followed by the previous ReLU's mask become
//   one node; it is read through its own view only (output_padding makes
//   its shape part of the geometry). The weight gradient, a reduction over
//   the batch, is not fused.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "monoflow/dispatch.h"
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

int64_t numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// How a conv's program may read its output: the very view, or another
// row-major view of the same bytes with the batch first (Note [Conv epilogue fusion]).
bool reads_conv_output(const PlanOperand& conv_out, const PlanOperand& product) {
  if (fusion::same_view(conv_out, product)) return true;
  return product.storage == conv_out.storage && product.byte_offset == conv_out.byte_offset &&
         product.dtype == conv_out.dtype && row_major(product) && row_major(conv_out) && !product.shape.empty() &&
         product.shape[0] == conv_out.shape[0] && numel(product.shape) == numel(conv_out.shape);
}

// Stores program input 0 (the conv's output, still read after the node) as
// output 0, through a register of its own.
bool keep_product_first(fusion::Program& p, const PlanOperand& product) {
  if (p.registers + 1 > MF_FUSED_MAX_REGISTERS || product.shape != p.shape || !row_major(product)) return false;
  for (const PlanOperand& o : p.outputs)
    if (fusion::overlaps(o, product)) return false;
  const int64_t r = p.registers++;
  p.code.insert(p.code.end(), {MF_FUSED_LOAD, r, 0, 0, 0});
  PlanOperand o = product;
  o.kernel_shape = o.shape;
  o.kernel_strides = o.strides;
  p.outputs.insert(p.outputs.begin(), o);
  p.output_regs.insert(p.output_regs.begin(), r);
  return true;
}

// The conv's attributes, then whether it passes a bias and whether it is
// conv_transpose2d.
void add_conv_attrs(PlanNode& f, const PlanNode& conv) {
  for (size_t k = 0; k < conv.attrs.size(); ++k) {
    f.attrs.push_back(conv.attrs[k]);
    f.ints.push_back(k < conv.ints.size() ? conv.ints[k] : std::vector<int64_t>{});
  }
  f.attrs.push_back(int_attr("bias", conv.inputs.size() == 3 ? 1 : 0));
  f.ints.emplace_back();
  f.attrs.push_back(int_attr("transpose", conv.op_id == kOp_conv_transpose2d ? 1 : 0));
  f.ints.emplace_back();
}

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
  int matmuls = 0, convs = 0;
  for (int e = 0; e < n; ++e) {
    const PlanNode& epi = plan.nodes[static_cast<size_t>(e)];
    const bool is_fused = !epi.host && epi.op_id == kOp_fused_elementwise;
    if (!is_fused && (!fusion::fusible(epi) || fusion::is_fill(epi))) continue;
    for (size_t x = 0; x < epi.inputs.size(); ++x) {
      const PlanOperand& product = epi.inputs[x];
      const int s = product.storage;
      if (uses.writers[s].size() != 1) continue;
      const int m = uses.writers[s][0];
      if (m >= e || taken[static_cast<size_t>(m)]) continue;
      const PlanNode& mm = plan.nodes[static_cast<size_t>(m)];
      const bool is_transpose = !mm.host && mm.op_id == kOp_conv_transpose2d;
      const bool is_conv = is_transpose || (!mm.host && mm.op_id == kOp_conv2d);
      const StorageClass cls = plan.storages[s].cls;
      const std::vector<int>& readers = uses.readers[s];
      // A conv's output may have readers after the epilogue, or be a result
      // of the graph (Note [Conv epilogue fusion]).
      const bool only_reader = readers == std::vector<int>{e};
      const bool keep = is_conv && readers.front() == e && (!only_reader || cls == StorageClass::Output);
      if (!(cls == StorageClass::Transient && only_reader) &&
          !(keep && (cls == StorageClass::Transient || cls == StorageClass::Output)))
        continue;
      if (mm.host || (mm.op_id != kOp_matmul && !is_conv) || mm.kernel_dtype != epi.kernel_dtype ||
          mm.outputs.size() != 1 || product.dtype != mm.kernel_dtype || product.shape.size() < (is_conv ? 1 : 2))
        continue;
      // conv_transpose2d's output is the 4-D geometry itself (output_padding).
      const bool view_ok = is_conv && !is_transpose ? reads_conv_output(mm.outputs[0], product)
                                                    : fusion::same_view(mm.outputs[0], product);
      if (!view_ok || (is_conv ? mm.inputs.size() != 2 && mm.inputs.size() != 3 : mm.inputs.size() != 2))
        continue;
      const int fused_op = is_conv ? kOp_conv_epilogue : kOp_matmul_epilogue;
      MFKernelFn fn;
      if (!fusion::has_kernel(mm.device, fused_op, mm.kernel_dtype, &fn) || mm.device != epi.device ||
          !fusion::fuses_like_its_members(mm, fn) || !fusion::fuses_like_its_members(epi, fn))
        continue;  // Note [Fusing on a device without fused kernels] in graph/fusion.h
      fusion::Program p;
      if (is_fused) {
        if (!program_of_fused(epi, x, p)) continue;
      } else if (!fusion::build_program(plan, uses, {e}, {product}, p).empty()) {
        continue;
      }
      if (!(keep ? keep_product_first(p, product) : product_output_first(p, product))) continue;
      bool ok = p.inputs.size() + mm.inputs.size() - 1 + p.outputs.size() <= 8;
      for (size_t k = 1; k < p.inputs.size(); ++k) ok &= p.inputs[k].storage != s;  // only output 0 holds the product
      for (const PlanOperand& o : p.outputs) {
        for (size_t k = 1; k < p.inputs.size(); ++k) ok &= !fusion::overlaps(p.inputs[k], o);
        for (const PlanOperand& in : mm.inputs) ok &= !fusion::overlaps(in, o);
      }
      if (!ok || !fusion::can_place_at_last(plan, {m, e})) continue;
      PlanNode f;
      f.op_id = fused_op;
      f.kernel_dtype = mm.kernel_dtype;
      f.device = mm.device;
      f.kernel = fn;
      f.stream = mm.stream;
      f.inputs = mm.inputs;
      f.inputs.insert(f.inputs.end(), p.inputs.begin() + 1, p.inputs.end());
      f.outputs = p.outputs;
      fusion::set_program_attrs(f, p);
      if (is_conv) add_conv_attrs(f, mm);
      ++(is_conv ? convs : matmuls);
      taken[static_cast<size_t>(m)] = taken[static_cast<size_t>(e)] = 1;
      groups.push_back({m, e});
      fused.push_back(std::move(f));
      break;
    }
  }
  fusion::replace_groups(plan, groups, std::move(fused));
  std::ostringstream os;
  os << "fused " << matmuls << " matmuls and " << convs << " convs with their epilogues";
  return os.str();
}

}  // namespace monoflow::graph
