// What the fusion passes share (Note [Fusing plan nodes] in graph/fusion.h).
#include "monoflow/graph/fusion.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "monoflow/backend.h"
#include "monoflow/error.h"
#include "monoflow/fused_program.h"

namespace monoflow::graph::fusion {

namespace {

constexpr size_t kMaxOperands = 8;        // what a node can pass (actor.cc, dispatch.cc)
constexpr size_t kMaxInstructions = 256;  // keeps programs small; long chains split
constexpr size_t kMaxConstants = 64;      // kernels_graph_fused.cpp

ByteRange range_of(const PlanOperand& o) { return byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype)); }

const MFAttr* attr_of(const PlanNode& n, const char* name) {
  for (const MFAttr& a : n.attrs)
    if (a.name && std::strcmp(a.name, name) == 0) return &a;
  return nullptr;
}
bool has_scalar(const PlanNode& n, const char* name) {
  const MFAttr* a = attr_of(n, name);
  return a && a->kind == MF_ATTR_SCALAR;
}

bool floating(DType d) {
  return d == DType::Float32 || d == DType::Float64 || d == DType::Float16 || d == DType::BFloat16;
}

int unary_opcode(int op) {
  switch (op) {
    case kOp_neg: return MF_FUSED_NEG;
    case kOp_exp: return MF_FUSED_EXP;
    case kOp_log: return MF_FUSED_LOG;
    case kOp_sqrt: return MF_FUSED_SQRT;
    case kOp_rsqrt: return MF_FUSED_RSQRT;
    case kOp_tanh: return MF_FUSED_TANH;
    case kOp_sigmoid: return MF_FUSED_SIGMOID;
    case kOp_relu: return MF_FUSED_RELU;
    case kOp_gelu: return MF_FUSED_GELU;
    case kOp_silu: return MF_FUSED_SILU;
    case kOp_abs: return MF_FUSED_ABS;
    case kOp_square: return MF_FUSED_SQUARE;
    case kOp_reciprocal: return MF_FUSED_RECIPROCAL;
    case kOp_erf: return MF_FUSED_ERF;
    case kOp_expm1: return MF_FUSED_EXPM1;
    case kOp_log1p: return MF_FUSED_LOG1P;
    case kOp_copy: return MF_FUSED_MOVE;  // same dtype only (fusible)
    default: return -1;
  }
}

int binary_opcode(int op) {
  switch (op) {
    case kOp_add: return MF_FUSED_ADD;
    case kOp_sub: return MF_FUSED_SUB;
    case kOp_mul: return MF_FUSED_MUL;
    case kOp_div: return MF_FUSED_DIV;
    case kOp_maximum: return MF_FUSED_MAXIMUM;
    case kOp_minimum: return MF_FUSED_MINIMUM;
    default: return -1;
  }
}

int compare_opcode(int op) {
  switch (op) {
    case kOp_eq: return MF_FUSED_EQ;
    case kOp_ne: return MF_FUSED_NE;
    case kOp_lt: return MF_FUSED_LT;
    case kOp_le: return MF_FUSED_LE;
    case kOp_gt: return MF_FUSED_GT;
    case kOp_ge: return MF_FUSED_GE;
    default: return -1;
  }
}

// The scalar ops: which binary op, and whether the number is on the left.
int scalar_opcode(int op, bool* left) {
  *left = op == kOp_rsub_scalar || op == kOp_rdiv_scalar;
  switch (op) {
    case kOp_add_scalar: return MF_FUSED_ADD;
    case kOp_sub_scalar:
    case kOp_rsub_scalar: return MF_FUSED_SUB;
    case kOp_mul_scalar: return MF_FUSED_MUL;
    case kOp_div_scalar:
    case kOp_rdiv_scalar: return MF_FUSED_DIV;
    default: return -1;
  }
}

// `o` seen with `shape` (right-aligned broadcasting, stride 0 where it repeats).
bool broadcast_view(const PlanOperand& o, const Dims& shape, PlanOperand* out) {
  *out = o;
  const size_t nt = shape.size(), ns = o.shape.size();
  if (ns > nt) return false;
  Dims strides;
  for (size_t d = 0; d < nt; ++d) {
    if (d < nt - ns) {
      strides.push_back(0);
      continue;
    }
    const size_t sd = d - (nt - ns);
    if (o.shape[sd] == shape[d]) strides.push_back(o.strides[sd]);
    else if (o.shape[sd] == 1) strides.push_back(0);
    else return false;
  }
  out->shape = shape;
  out->strides = strides;
  out->kernel_shape = shape;
  out->kernel_strides = strides;
  return true;
}

int64_t double_bits(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

bool contains(const std::vector<int>& sorted, int v) { return std::binary_search(sorted.begin(), sorted.end(), v); }

// SSA form of a program, before registers are assigned.
struct Builder {
  struct Instr {
    int64_t op, dst, a, b, c;  // a, b, c: values (or immediates, per op)
  };
  const Plan& plan;
  const StorageUses& uses;
  const std::vector<int>& members;
  Program& out;
  std::vector<Instr> code;
  int values = 0;
  std::vector<std::pair<PlanOperand, int>> written;  // views members wrote, in order, with their values
  struct Fill {
    PlanOperand view;
    int node;
    int64_t constant;
    int value = -1;  // the CONST_STORED value, once used
  };
  std::vector<Fill> fills;
  std::vector<int> input_values;  // per program input: its LOAD value, or -1

  Builder(const Plan& p, const StorageUses& u, const std::vector<int>& m, Program& o)
      : plan(p), uses(u), members(m), out(o) {}

  int emit(int64_t op, int64_t a = 0, int64_t b = 0, int64_t c = 0) {
    code.push_back(Instr{op, values, a, b, c});
    return values++;
  }

  int64_t constant(double v) {
    const int64_t bits = double_bits(v);
    for (size_t k = 0; k < out.constants.size(); ++k)
      if (out.constants[k] == bits) return static_cast<int64_t>(k);
    out.constants.push_back(bits);
    return static_cast<int64_t>(out.constants.size() - 1);
  }

  int load(size_t input) {
    if (input_values[input] < 0) input_values[input] = emit(MF_FUSED_LOAD, static_cast<int64_t>(input));
    return input_values[input];
  }

  int add_input(const PlanOperand& view) {
    for (size_t k = 0; k < out.inputs.size(); ++k)
      if (same_view(out.inputs[k], view)) return load(k);
    out.inputs.push_back(view);
    input_values.push_back(-1);
    return load(out.inputs.size() - 1);
  }

  // The value a member reads through `o`; -1 (with `why`) when it cannot.
  int value_of(const PlanOperand& o, std::string& why) {
    for (size_t k = written.size(); k-- > 0;) {  // the latest member write of those bytes
      if (!overlaps(written[k].first, o)) continue;
      if (same_view(written[k].first, o)) return written[k].second;
      why = "a member reads another member's output through a different view";
      return -1;
    }
    for (Fill& f : fills) {
      if (f.view.storage != o.storage || !overlaps(f.view, o)) continue;
      const ByteRange w = range_of(f.view), r = range_of(o);
      if (!w.dense || r.lo < w.lo || r.hi > w.hi || o.dtype != f.view.dtype) {
        why = "a member reads part of a fill through another dtype or beyond it";
        return -1;
      }
      if (f.value < 0) f.value = emit(MF_FUSED_CONST_STORED, f.constant);
      return f.value;
    }
    PlanOperand view;
    if (!broadcast_view(o, out.shape, &view)) {
      why = "an input does not broadcast to the group's shape";
      return -1;
    }
    return add_input(view);
  }

  std::string member(int index) {
    const PlanNode& n = plan.nodes[index];
    if (is_fill(n)) {
      fills.push_back(Fill{n.outputs[0], index, constant(attr_of(n, "value")->f)});
      return "";
    }
    std::string why;
    int v[3] = {-1, -1, -1};
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if ((v[k] = value_of(n.inputs[k], why)) < 0) return why;
    const int op = n.op_id;
    int result;
    bool left;
    if (int code = binary_opcode(op); code >= 0) {
      result = emit(code, v[0], v[1]);
    } else if (int code = compare_opcode(op); code >= 0) {
      result = emit(code, v[0], v[1]);
    } else if (int code = scalar_opcode(op, &left); code >= 0) {
      const int c = emit(MF_FUSED_CONST, constant(attr_of(n, "other")->f));
      result = left ? emit(code, c, v[0]) : emit(code, v[0], c);
    } else if (op == kOp_where) {
      result = emit(MF_FUSED_WHERE, v[0], v[1], v[2]);
    } else if (op == kOp_add_alpha) {
      result = emit(MF_FUSED_AXPY, v[0], v[1], constant(attr_of(n, "alpha")->f));
    } else if (op == kOp_copy) {
      result = v[0];  // same dtype: the value itself
    } else if (op == kOp_gelu) {
      result = emit(MF_FUSED_GELU, v[0], attr_of(n, "approximate")->i != 0 ? 1 : 0);
    } else {
      result = emit(unary_opcode(op), v[0]);
    }
    written.emplace_back(n.outputs[0], result);
    return "";
  }

  // Only members touch it, and it is not observable (Note [Storage classes]).
  bool internal(int storage) const {
    if (plan.storages[storage].cls != StorageClass::Transient) return false;
    for (int r : uses.readers[storage])
      if (!contains(members, r)) return false;
    for (int w : uses.writers[storage])
      if (!contains(members, w)) return false;
    return true;
  }

  std::string finish_outputs() {
    std::vector<int> regs_as_values;
    for (size_t k = written.size(); k-- > 0;) {  // the latest write of each view wins
      const PlanOperand& view = written[k].first;
      bool later = false;
      for (size_t j = k + 1; j < written.size(); ++j) later |= same_view(written[j].first, view);
      if (later || internal(view.storage)) continue;
      if (view.shape != out.shape) return "an output has another shape than the group";
      PlanOperand o = view;
      o.kernel_shape = o.shape;
      o.kernel_strides = o.strides;
      out.outputs.insert(out.outputs.begin(), o);
      regs_as_values.insert(regs_as_values.begin(), written[k].second);
    }
    for (const Fill& f : fills) {
      if (internal(f.view.storage)) continue;
      if (f.view.shape != out.shape) return "a fill read outside the group has another shape";
      int v = f.value >= 0 ? f.value : emit(MF_FUSED_CONST_STORED, f.constant);
      PlanOperand o = f.view;
      o.kernel_shape = o.shape;
      o.kernel_strides = o.strides;
      out.outputs.push_back(o);
      regs_as_values.push_back(v);
    }
    if (out.outputs.empty()) return "nothing to store";
    for (size_t i = 0; i < out.outputs.size(); ++i)
      for (size_t j = i + 1; j < out.outputs.size(); ++j)
        if (overlaps(out.outputs[i], out.outputs[j])) return "two outputs overlap";
    for (const PlanOperand& in : out.inputs)
      for (const PlanOperand& o : out.outputs)
        if (overlaps(in, o) && !same_view(in, o)) return "an input overlaps an output through another view";
    if (out.inputs.size() + out.outputs.size() > kMaxOperands) return "more than 8 operands";
    if (code.size() > kMaxInstructions) return "program too long";
    if (out.constants.size() > kMaxConstants) return "too many constants";
    allocate(regs_as_values);
    if (out.registers > MF_FUSED_MAX_REGISTERS) return "more registers than the kernel has";
    return "";
  }

  // Linear scan: a value's register is free after its last read; outputs
  // live to the end. An instruction never writes a register it reads: the
  // kernel's loops declare their registers unaliased, so they vectorise.
  void allocate(const std::vector<int>& output_values) {
    const size_t n = code.size();
    std::vector<size_t> last(static_cast<size_t>(values), 0);
    auto reads = [](const Instr& i, int* v) {
      int count = 0;
      const int64_t op = i.op;
      if (op == MF_FUSED_LOAD || op == MF_FUSED_CONST || op == MF_FUSED_CONST_STORED) return 0;
      v[count++] = static_cast<int>(i.a);
      if (op == MF_FUSED_WHERE || (op >= MF_FUSED_ADD && op <= MF_FUSED_GE) || op == MF_FUSED_AXPY)
        v[count++] = static_cast<int>(i.b);
      if (op == MF_FUSED_WHERE) v[count++] = static_cast<int>(i.c);
      return count;
    };
    for (size_t k = 0; k < n; ++k) {
      int v[3];
      for (int j = 0, c = reads(code[k], v); j < c; ++j) last[static_cast<size_t>(v[j])] = k;
    }
    for (int v : output_values) last[static_cast<size_t>(v)] = n;
    std::vector<int> reg(static_cast<size_t>(values), -1), free_regs;
    int used = 0;
    for (size_t k = 0; k < n; ++k) {
      Instr& ins = code[k];
      int v[3];
      const int c = reads(ins, v);
      int r;
      if (!free_regs.empty()) {
        r = free_regs.back();
        free_regs.pop_back();
      } else {
        r = used++;
      }
      reg[static_cast<size_t>(ins.dst)] = r;
      for (int j = 0; j < c; ++j) {  // after choosing dst's register
        const size_t val = static_cast<size_t>(v[j]);
        if (last[val] == k && std::find(free_regs.begin(), free_regs.end(), reg[val]) == free_regs.end())
          free_regs.push_back(reg[val]);
      }
      // A value nobody reads (e.g. a dead intermediate) frees its register at once.
      if (last[static_cast<size_t>(ins.dst)] <= k && !std::count(output_values.begin(), output_values.end(), ins.dst))
        free_regs.push_back(r);
    }
    out.registers = std::max(used, 1);
    out.code.clear();
    for (const Instr& ins : code) {
      int v[3];
      const int c = reads(ins, v);
      int64_t fields[3] = {ins.a, ins.b, ins.c};
      for (int j = 0; j < c; ++j) fields[j] = reg[static_cast<size_t>(v[j])];
      out.code.insert(out.code.end(), {ins.op, reg[static_cast<size_t>(ins.dst)], fields[0], fields[1], fields[2]});
    }
    out.output_regs.clear();
    for (int v : output_values) out.output_regs.push_back(reg[static_cast<size_t>(v)]);
  }
};

}  // namespace

StorageUses storage_uses(const Plan& plan) {
  StorageUses u;
  u.readers.resize(plan.storages.size());
  u.writers.resize(plan.storages.size());
  auto add = [](std::vector<int>& list, int i) {
    if (list.empty() || list.back() != i) list.push_back(i);
  };
  for (size_t i = 0; i < plan.nodes.size(); ++i) {
    const PlanNode& n = plan.nodes[i];
    const int id = static_cast<int>(i);
    for (const PlanOperand& o : n.inputs) add(u.readers[o.storage], id);
    for (const PlanOperand& o : n.outputs) add(u.writers[o.storage], id);
    if (!n.host && reads_outputs(n.op_id))
      for (const PlanOperand& o : n.outputs) add(u.readers[o.storage], id);
  }
  return u;
}

bool same_view(const PlanOperand& a, const PlanOperand& b) {
  return a.storage == b.storage && a.byte_offset == b.byte_offset && a.dtype == b.dtype && a.shape == b.shape &&
         a.strides == b.strides;
}

bool overlaps(const PlanOperand& a, const PlanOperand& b) {
  if (a.storage != b.storage) return false;
  const ByteRange x = range_of(a), y = range_of(b);
  return x.lo < y.hi && y.lo < x.hi;
}

bool is_fill(const PlanNode& n) { return !n.host && n.op_id == kOp_fill; }

bool fusible(const PlanNode& n) {
  if (n.host || n.generator || n.outputs.size() != 1 || !floating(n.kernel_dtype)) return false;
  const DType s = n.kernel_dtype;
  const int op = n.op_id;
  const PlanOperand& out = n.outputs[0];
  auto inputs_are = [&](std::initializer_list<DType> dtypes) {
    if (n.inputs.size() != dtypes.size()) return false;
    size_t k = 0;
    for (DType d : dtypes) {
      const PlanOperand& in = n.inputs[k++];
      if (in.dtype != d) return false;
      PlanOperand view;
      if (!broadcast_view(in, out.shape, &view)) return false;
    }
    return true;
  };
  bool left;
  if (op == kOp_fill) return n.inputs.empty() && out.dtype == s && has_scalar(n, "value");
  if (compare_opcode(op) >= 0) return out.dtype == DType::Bool && inputs_are({s, s});
  if (out.dtype != s) return false;
  if (binary_opcode(op) >= 0) return inputs_are({s, s});
  if (scalar_opcode(op, &left) >= 0) return inputs_are({s}) && has_scalar(n, "other");
  if (op == kOp_where) return inputs_are({DType::Bool, s, s});
  if (op == kOp_add_alpha) return inputs_are({s, s}) && has_scalar(n, "alpha");
  if (op == kOp_gelu) return inputs_are({s}) && has_scalar(n, "approximate");
  if (unary_opcode(op) >= 0) return inputs_are({s});
  return false;
}

std::string build_program(const Plan& plan, const StorageUses& uses, const std::vector<int>& members,
                          const std::vector<PlanOperand>& preloaded, Program& out) {
  out = Program{};
  const PlanNode* shape_from = nullptr;
  for (int m : members) {
    const PlanNode& n = plan.nodes[m];
    if (!fusible(n)) return str_cat(n.name(), " cannot be fused");
    if (n.device != plan.nodes[members[0]].device || n.kernel_dtype != plan.nodes[members[0]].kernel_dtype)
      return "members on different devices or dtypes";
    if (!is_fill(n) && !shape_from) shape_from = &n;
  }
  if (!shape_from) return "only fills";
  out.dtype = shape_from->kernel_dtype;
  out.shape = shape_from->outputs[0].shape;
  for (int m : members)
    if (!is_fill(plan.nodes[m]) && plan.nodes[m].outputs[0].shape != out.shape) return "members of different shapes";
  Builder b(plan, uses, members, out);
  for (const PlanOperand& p : preloaded) {
    PlanOperand view;
    if (!broadcast_view(p, out.shape, &view)) return "a preloaded value has another shape";
    out.inputs.push_back(view);
    b.input_values.push_back(-1);
  }
  for (int m : members)
    if (std::string why = b.member(m); !why.empty()) return why;
  return b.finish_outputs();
}

bool can_place_at_last(const Plan& plan, const std::vector<int>& members) {
  const int last = members.back();
  for (size_t k = 0; k + 1 < members.size(); ++k) {
    const PlanNode& m = plan.nodes[members[k]];
    for (int i = members[k] + 1; i < last; ++i) {
      if (contains(members, i)) continue;
      const PlanNode& n = plan.nodes[i];
      for (const PlanOperand& w : n.outputs) {
        for (const PlanOperand& o : m.inputs)
          if (overlaps(w, o)) return false;
        for (const PlanOperand& o : m.outputs)
          if (overlaps(w, o)) return false;
      }
      for (const PlanOperand& r : n.inputs)
        for (const PlanOperand& o : m.outputs)
          if (overlaps(r, o)) return false;
    }
  }
  return true;
}

bool holds_memory_longer(const Plan& plan, const StorageUses& uses, const std::vector<int>& members) {
  const int last = members.back();
  auto writes_transient = [&](int i) {
    for (const PlanOperand& w : plan.nodes[static_cast<size_t>(i)].outputs)
      if (plan.storages[w.storage].cls == StorageClass::Transient) return true;
    return false;
  };
  for (size_t k = 0; k + 1 < members.size(); ++k) {
    const int m = members[k];
    for (const PlanOperand& o : plan.nodes[static_cast<size_t>(m)].inputs) {
      if (plan.storages[o.storage].cls != StorageClass::Transient) continue;
      // the latest non-member reader: the input lives until then anyway
      int live_until = m;
      for (int r : uses.readers[o.storage])
        if (!contains(members, r)) live_until = std::max(live_until, r);
      if (live_until >= last) continue;
      for (int i = live_until + 1; i < last; ++i)
        if (!contains(members, i) && writes_transient(i)) return true;
    }
  }
  return false;
}

void set_program_attrs(PlanNode& node, const Program& p) {
  node.attrs.clear();
  node.ints.clear();
  auto ints = [&](const char* name, const std::vector<int64_t>& v) {
    node.attrs.push_back(MFAttr{name, MF_ATTR_INTS, static_cast<int32_t>(v.size()), 0, 0.0, nullptr});
    node.ints.push_back(v);
  };
  ints("program", p.code);
  ints("outputs", p.output_regs);
  ints("constants", p.constants);
  node.attrs.push_back(int_attr("registers", p.registers));
  node.ints.emplace_back();
}

bool fuses_like_its_members(const PlanNode& node, MFKernelFn fused_kernel) {
  return fused_kernel != nullptr || node.kernel == nullptr || is_fill(node) ||
         (node.op_id == kOp_copy && node.inputs.size() == 1 && node.inputs[0].dtype == node.outputs[0].dtype);
}

bool has_kernel(const Device& device, int op_id, DType dtype, MFKernelFn* fn) {
  Backend& be = DeviceRegistry::get().backend(device);
  *fn = be.find_kernel(op_id, dtype, dtype);
  if (*fn) return true;
  return !device.is_cpu() && DeviceRegistry::get().backend(0).find_kernel(op_id, dtype, dtype) != nullptr;
}

void replace_groups(Plan& plan, const std::vector<std::vector<int>>& groups, std::vector<PlanNode> fused) {
  const size_t n = plan.nodes.size();
  std::vector<int> group_of(n, -1);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int m : groups[g]) group_of[static_cast<size_t>(m)] = static_cast<int>(g);
  std::vector<int> index(n, -1);
  std::vector<PlanNode> kept;
  kept.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const int g = group_of[i];
    if (g < 0) {
      index[i] = static_cast<int>(kept.size());
      kept.push_back(std::move(plan.nodes[i]));
    } else if (static_cast<int>(i) == groups[static_cast<size_t>(g)].back()) {
      kept.push_back(std::move(fused[static_cast<size_t>(g)]));
    }
  }
  for (int& r : plan.random_nodes) r = index[static_cast<size_t>(r)];  // random nodes are never fused
  plan.nodes = std::move(kept);
}

size_t redirect_copies(Plan& plan, bool (*same_bytes)(const PlanOperand& src, const PlanOperand& dst)) {
  size_t redirected = 0;
  for (bool again = true; again;) {
    again = false;
    const StorageUses uses = storage_uses(plan);
    for (size_t c = 0; c < plan.nodes.size() && !again; ++c) {
      const PlanNode& copy = plan.nodes[c];
      if (copy.host || copy.op_id != kOp_copy || copy.inputs.size() != 1 || copy.outputs.size() != 1) continue;
      const PlanOperand &src = copy.inputs[0], &dst = copy.outputs[0];
      const int s = src.storage;
      if (src.dtype != dst.dtype || s == dst.storage || plan.storages[s].cls != StorageClass::Transient ||
          uses.writers[s].size() != 1 || uses.readers[s] != std::vector<int>{static_cast<int>(c)} ||
          !same_bytes(src, dst))
        continue;
      const int p = uses.writers[s][0];
      const PlanNode& producer = plan.nodes[static_cast<size_t>(p)];
      if (p >= static_cast<int>(c) || producer.host || reads_outputs(producer.op_id)) continue;
      // The producer must have written exactly src's bytes (in any layout).
      const ByteRange from = byte_range(src.byte_offset, src.shape, src.strides, itemsize(src.dtype));
      int which = -1, count = 0;
      for (size_t k = 0; k < producer.outputs.size(); ++k) {
        const PlanOperand& o = producer.outputs[k];
        if (o.storage != s) continue;
        ++count;
        const ByteRange r = byte_range(o.byte_offset, o.shape, o.strides, itemsize(o.dtype));
        if (o.dtype == src.dtype && r.dense && r.lo == from.lo && r.hi == from.hi) which = static_cast<int>(k);
      }
      // The destination now changes at the producer: nothing in between,
      // the producer's own inputs included, may touch it.
      bool ok = count == 1 && which >= 0;
      for (const PlanOperand& in : producer.inputs) ok = ok && !overlaps(in, dst);
      for (size_t i = static_cast<size_t>(p) + 1; ok && i < c; ++i) {
        for (const PlanOperand& o : plan.nodes[i].inputs) ok = ok && !overlaps(o, dst);
        for (const PlanOperand& o : plan.nodes[i].outputs) ok = ok && !overlaps(o, dst);
      }
      if (!ok) continue;
      PlanOperand& o = plan.nodes[static_cast<size_t>(p)].outputs[static_cast<size_t>(which)];
      o.byte_offset += dst.byte_offset - src.byte_offset;  // its own layout, in the destination's bytes
      o.storage = dst.storage;
      plan.nodes.erase(plan.nodes.begin() + static_cast<std::ptrdiff_t>(c));
      for (int& r : plan.random_nodes)
        if (r > static_cast<int>(c)) --r;
      ++redirected;
      again = true;  // the uses changed
    }
  }
  return redirected;
}

}  // namespace monoflow::graph::fusion
