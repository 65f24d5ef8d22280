// Elementwise ops: broadcasting, type promotion and in-place rules as in PyTorch.
#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

Dims broadcast_shapes(const Dims& a, const Dims& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Dims out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    // PyTorch's and OneFlow's wording, then the shapes.
    MF_CHECK(da == db || da == 1 || db == 1, RuntimeError, op, ": The size of tensor a (", da,
             ") must match the size of tensor b (", db, ") at non-singleton dimension ", i, ": shapes ", shape_str(a),
             " and ", shape_str(b), " cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
// OneFlow prints shapes as "(2,3)".
std::string oneflow_shape(const Dims& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}
}  // namespace

void check_inplace_shape(const char* op, const Tensor& self, const Dims& shape) {
  MF_CHECK(shape == self->shape, RuntimeError, op, "_: output with shape ", shape_str(self->shape),
           " doesn't match the broadcast shape ", shape_str(shape), " (Can not expand origin shape ",
           oneflow_shape(shape), " to ", oneflow_shape(self->shape), ")");
}

Dims inplace_broadcast_shape(const char* op, const Tensor& self, const Dims& other) {
  Dims shape;
  try {
    shape = broadcast_shapes(self->shape, other, op);
  } catch (const RuntimeError& e) {
    throw RuntimeError(str_cat(op, "_: Tensor with shape ", oneflow_shape(self->shape),
                               " doesn't match the broadcast shape in an inplace operation (", e.what(), ")"));
  }
  check_inplace_shape(op, self, shape);
  return shape;
}

namespace {
void check_same_device(const OpDef& op, const Tensor& a, const Tensor& b) {
  MF_CHECK(a->device() == b->device(), RuntimeError, op.name,
           ": expected all tensors to be on the same device, but found at least two devices, ", a->device().str(),
           " and ", b->device().str());
}


// `a` and `b`: the operands' own dtypes (a Python bool counts as Bool), as
// PyTorch refuses a subtraction with any bool operand, whatever the result.
void check_dtype_supported(const OpDef& op, DType compute, DType a, DType b = DType::Float32) {
  bool is_sub = op.id == kOp_sub || op.id == kOp_sub_scalar || op.id == kOp_rsub_scalar;
  const char* sub_name = op.id == kOp_rsub_scalar ? "rsub" : "sub";  // the user's op, not the kernel's
  MF_CHECK(!(is_sub && a == DType::Bool && b == DType::Bool), RuntimeError, sub_name,
           ": subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
           "`logical_xor()` operator instead.");
  MF_CHECK(!(is_sub && (a == DType::Bool || b == DType::Bool)), RuntimeError, sub_name,
           ": subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a "
           "mask, use the `~` or `logical_not()` operator instead.");
  MF_CHECK(!(compute == DType::Bool && op.id == kOp_neg), RuntimeError, op.name,
           ": negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
           "use the `~` or `logical_not()` operator instead.");
  MF_CHECK(!(compute == DType::Bool && op.id == kOp_floor_divide), NotImplementedError, op.name,
           ": not implemented for 'Bool'");
}

using autograd::NeedsGrad;
using autograd::SavedTensor;
using autograd::TensorList;

// d(a op b)/da and /db for the differentiable binary ops; `a_old` is a's
// value before an in-place op (a itself otherwise). Broadcast gradients are
// summed down by the engine.
TensorList binary_grads(int op, const Tensor& g, const Tensor& a, const Tensor& b, const Tensor& out,
                        NeedsGrad n) {
  switch (op) {
    case kOp_add: return {g, n[1] ? g : nullptr};
    case kOp_sub: return {g, n[1] ? unary(kOp_neg, g) : nullptr};
    case kOp_mul: return {n[0] ? binary(kOp_mul, g, b) : nullptr, n[1] ? binary(kOp_mul, g, a) : nullptr};
    case kOp_div: {
      Tensor ga = binary(kOp_div, g, b);
      return {ga, n[1] ? unary(kOp_neg, binary(kOp_mul, ga, out)) : nullptr};  // -g a / b^2
    }
    case kOp_maximum:
    case kOp_minimum: {
      // Ties split the gradient evenly, as in PyTorch.
      Tensor wins = binary(op == kOp_maximum ? kOp_gt : kOp_lt, a, b);
      Tensor ties = binary(kOp_eq, a, b);
      Tensor wa = binary(kOp_add, cast(wins, g->dtype), binary_scalar(kOp_mul_scalar, cast(ties, g->dtype),
                                                                       Scalar::from_float(0.5)));
      Tensor ga = binary(kOp_mul, g, wa);
      return {ga, n[1] ? binary(kOp_sub, g, ga) : nullptr};
    }
    default: return {nullptr, nullptr};  // floor_divide: zero almost everywhere
  }
}

bool saves_operands(int op) { return op == kOp_mul || op == kOp_div || op == kOp_maximum || op == kOp_minimum; }

TensorList scalar_grads(int op, const Tensor& g, const Tensor& x, const Tensor& out, Scalar s) {
  switch (op) {
    case kOp_add_scalar:
    case kOp_sub_scalar: return {g};
    case kOp_rsub_scalar: return {unary(kOp_neg, g)};
    case kOp_mul_scalar: return {binary_scalar(kOp_mul_scalar, g, s)};
    case kOp_div_scalar: return {binary_scalar(kOp_div_scalar, g, s)};
    case kOp_rdiv_scalar: return {unary(kOp_neg, binary(kOp_mul, g, binary(kOp_div, out, x)))};
    default: return {nullptr};
  }
}

// Elementwise: every operand has out's shape, so dims can be coalesced.
void run(const OpDef& op, DType kernel_dtype, std::initializer_list<Tensor> inputs, const Tensor& out,
         std::initializer_list<MFAttr> attrs = {}) {
  launch(op.id, kernel_dtype, inputs, out, attrs, /*coalesce=*/true);
}
}  // namespace

Tensor binary(int op_id, const Tensor& a, const Tensor& b) {
  const OpDef& op = op_def(op_id);
  autograd::Recorder rec(op.name, {a, b});
  check_same_device(op, a, b);
  PromotionState ps;
  add_operand(ps, a);
  add_operand(ps, b);
  DType compute = compute_dtype(op, ps.result());
  check_dtype_supported(op, compute, a->dtype, b->dtype);
  Dims shape = broadcast_shapes(a->shape, b->shape, op.name);
  Tensor out = empty(shape, output_dtype(op, compute), a->device());
  run(op, compute, {expand(cast(a, compute), shape), expand(cast(b, compute), shape)}, out);
  if (rec) {
    bool save = saves_operands(op_id);
    // b is saved before a, as torch and OneFlow order them (saved-tensor hooks see that order)
    rec.finish({out}, [op_id, sb = SavedTensor(save ? b : nullptr, false), sa = SavedTensor(save ? a : nullptr, false),
                       so = SavedTensor(op_id == kOp_div ? out : nullptr, true)](const TensorList& g, NeedsGrad n) {
      return binary_grads(op_id, g[0], sa.unpack(), sb.unpack(), so.unpack(), n);
    });
  }
  return out;
}

void binary_(int op_id, const Tensor& self, const Tensor& b) {
  const OpDef& op = op_def(op_id);
  check_same_device(op, self, b);
  check_writable(op.name, self);
  autograd::Recorder rec(autograd::Recorder::InPlace{}, op.name, {self, b});
  if (rec) {
    // mul_ needs self's old value for b's gradient; div_ uses its result.
    Tensor old = op_id == kOp_mul && rec.needs()[1] ? autograd::Recorder::value_before(self) : nullptr;
    bool save = saves_operands(op_id);
    binary_(op_id, self, b);
    rec.finish_inplace(self, [op_id, sa = SavedTensor(save ? (old ? old : self) : nullptr, old == nullptr),
                              sb = SavedTensor(save ? b : nullptr, false),
                              so = SavedTensor(op_id == kOp_div ? self : nullptr, true)](const TensorList& g,
                                                                                          NeedsGrad n) {
      return binary_grads(op_id, g[0], sa.unpack(), sb.unpack(), so.unpack(), n);
    });
    return;
  }
  PromotionState ps;
  add_operand(ps, self);
  add_operand(ps, b);
  DType compute = compute_dtype(op, ps.result());
  check_dtype_supported(op, compute, self->dtype, b->dtype);
  DType result = output_dtype(op, compute);
  check_result_castable(op.name, result, self->dtype);
  Dims shape = inplace_broadcast_shape(op.name, self, b->shape);
  Tensor other = unaliased(op.name, self, b);
  if (result == self->dtype && compute == self->dtype) {
    run(op, compute, {self, expand(cast(other, compute), shape)}, self);
    self->bump_version();
  } else {
    copy_(self, binary(op_id, self, other));
  }
}

Tensor binary_scalar(int op_id, const Tensor& a, Scalar s) {
  const OpDef& op = op_def(op_id);
  autograd::Recorder rec(op.name, {a});
  PromotionState ps;
  ps.add_tensor(a->dtype, a->dim() == 0);
  ps.add_scalar(s.dtype());
  DType compute = compute_dtype(op, ps.result());
  check_dtype_supported(op, compute, a->dtype, s.dtype());
  Tensor out = empty(a->shape, output_dtype(op, compute), a->device());
  run(op, compute, {cast(a, compute)}, out, {scalar_attr("other", s)});
  if (rec) {
    bool rdiv = op_id == kOp_rdiv_scalar;
    rec.finish({out}, [op_id, s, sx = SavedTensor(rdiv ? a : nullptr, false),
                       so = SavedTensor(rdiv ? out : nullptr, true)](const TensorList& g, NeedsGrad) {
      return scalar_grads(op_id, g[0], sx.unpack(), so.unpack(), s);
    });
  }
  return out;
}

// The in-place scalar kernels refuse in the name of the op called:
// t.div_(2) is div_, not the kernel's div_scalar_.
static std::string shown_name(const char* kernel) {
  std::string n(kernel);
  static const std::string suffix = "_scalar";
  if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
    n.resize(n.size() - suffix.size());
  return n;
}

void binary_scalar_(int op_id, const Tensor& self, Scalar s) {
  const OpDef& op = op_def(op_id);
  const std::string shown = shown_name(op.name);
  check_writable(shown.c_str(), self);
  autograd::Recorder rec(autograd::Recorder::InPlace{}, op.name, {self});
  if (rec) {
    binary_scalar_(op_id, self, s);
    rec.finish_inplace(self, [op_id, s](const TensorList& g, NeedsGrad) {
      return scalar_grads(op_id, g[0], nullptr, nullptr, s);
    });
    return;
  }
  PromotionState ps;
  ps.add_tensor(self->dtype, self->dim() == 0);
  ps.add_scalar(s.dtype());
  DType compute = compute_dtype(op, ps.result());
  check_dtype_supported(op, compute, self->dtype, s.dtype());
  DType result = output_dtype(op, compute);
  check_result_castable(shown.c_str(), result, self->dtype);
  if (result == self->dtype && compute == self->dtype) {
    run(op, compute, {self}, self, {scalar_attr("other", s)});
    self->bump_version();
  } else {
    copy_(self, binary_scalar(op_id, self, s));
  }
}

Tensor scalar_operand(const Tensor& other, Scalar s) {
  PromotionState ps;
  ps.add_tensor(other->dtype, other->dim() == 0);
  ps.add_scalar(s.dtype());
  Tensor t = empty(Dims{}, ps.result(), other->device());
  fill_(t, s, /*check_range=*/false);  // int8 tensor < 1000 compares with 1000 wrapped, as in torch
  return t;
}

Tensor unary(int op_id, const Tensor& x) {
  const OpDef& op = op_def(op_id);
  autograd::Recorder rec(op.name, {x});
  DType compute = compute_dtype(op, x->dtype);
  check_dtype_supported(op, compute, x->dtype);
  Tensor out = empty(x->shape, output_dtype(op, compute), x->device());
  run(op, compute, {cast(x, compute)}, out);
  if (rec) {
    MF_CHECK(op_id == kOp_neg, NotImplementedError, op.name, ": no derivative");
    rec.finish({out}, [](const TensorList& g, NeedsGrad) { return TensorList{unary(kOp_neg, g[0])}; });
  }
  return out;
}

}  // namespace monoflow
