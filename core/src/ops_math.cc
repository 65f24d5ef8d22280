// The math ops: dtype rules, argument checks and operand preparation, as in
// PyTorch. Every op reaches its kernel with all operands in one compute dtype
// (except where's bool condition), broadcast to the output's shape.
#include "monoflow/ops_math.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <memory>

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

namespace {


struct Attrs {
  const MFAttr* data = nullptr;
  int size = 0;
};

void run(const OpDef& op, DType kernel_dtype, std::initializer_list<Tensor> inputs, const Tensor& out,
         Attrs attrs = {}) {
  LaunchArgs a{&op, kernel_dtype};
  a.inputs = inputs.begin();
  a.num_inputs = static_cast<int>(inputs.size());
  a.outputs = &out;
  a.num_outputs = 1;
  a.attrs = attrs.data;
  a.num_attrs = attrs.size;
  a.coalesce = true;
  launch(a);
}

// ------------------------------------------------------------ checks

// Whether a Python number converts to `dt` without overflow (c10::overflows,
// which PyTorch applies where an op takes a Scalar argument: pow's exponent,
// clamp's bounds, where's values). Integers wrap into unsigned types from as
// low as -max; a float fits a floating type when within its finite range or
// infinite or NaN.
void check_fits(const char* op, DType dt, Scalar v) {
  if (v.kind == Scalar::Bool) return;
  bool ok = true;
  if (is_floating(dt)) {
    double x = v.kind == Scalar::Float ? v.f : static_cast<double>(v.i);
    double max = dt == DType::Float16    ? 65504.0
                 : dt == DType::BFloat16 ? 3.3895313892515355e38
                 : dt == DType::Float32  ? static_cast<double>(std::numeric_limits<float>::max())
                                         : std::numeric_limits<double>::infinity();
    ok = !std::isfinite(x) || std::fabs(x) <= max;
  } else {
    int64_t lo = 0, hi = 1;
    switch (dt) {
      case DType::UInt8: lo = 0, hi = 255; break;
      case DType::Int8: lo = -128, hi = 127; break;
      case DType::Int16: lo = -32768, hi = 32767; break;
      case DType::Int32: lo = INT32_MIN, hi = INT32_MAX; break;
      case DType::Int64: lo = INT64_MIN, hi = INT64_MAX; break;
      default: break;  // bool: 0 and 1
    }
    if (v.kind == Scalar::Float)
      ok = v.f >= static_cast<double>(lo) && (dt == DType::Int64 ? v.f < 0x1p63 : v.f <= static_cast<double>(hi));
    else if (dt == DType::UInt8)
      ok = v.i <= hi && v.i >= -hi;
    else
      ok = v.i >= lo && v.i <= hi;
  }
  if (ok) return;
  if (v.kind == Scalar::Float)
    throw RuntimeError(str_cat(op, ": value ", v.f, " cannot be converted to type ", dtype_name(dt),
                               " without overflow"));
  throw RuntimeError(str_cat(op, ": value ", v.i, " cannot be converted to type ", dtype_name(dt),
                             " without overflow"));
}

// ------------------------------------------------------------ operands

void add(PromotionState& ps, const TensorOrScalar& v) {
  if (v.is_scalar)
    ps.add_scalar(v.scalar.dtype());
  else if (v.tensor)
    add_operand(ps, v.tensor);
}

const Dims& shape_of(const TensorOrScalar& v) {
  static const Dims kScalarShape = Dims();
  return v.is_scalar || !v.tensor ? kScalarShape : v.tensor->shape;
}

// The device of an op's tensor operands (absent and scalar ones skipped),
// which must all agree.
Device common_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!*t) continue;
    if (!first) {
      first = t;
      continue;
    }
    MF_CHECK((*t)->device() == (*first)->device(), RuntimeError, op,
             ": expected all tensors to be on the same device, but found at least two devices, ",
             (*first)->device().str(), " and ", (*t)->device().str());
  }
  MF_CHECK(first, TypeError, op, ": expected at least one tensor operand");
  return (*first)->device();
}

// An operand in the compute dtype: a tensor is cast, a number becomes a 0-dim
// tensor of that dtype (an integer wraps, as PyTorch converts wrapped numbers).
Tensor operand(const TensorOrScalar& v, DType compute, Device device) {
  if (!v.is_scalar) return cast(v.tensor, compute);
  Tensor t = empty(Dims{}, compute, device);
  fill_(t, v.scalar, /*check_range=*/false);
  return t;
}

// ------------------------------------------------------------ unary

bool one_of(int id, std::initializer_list<int> ids) {
  for (int i : ids)
    if (id == i) return true;
  return false;
}

struct UnaryPlan {
  DType compute, result;
  bool identity;  // floor/ceil/round/trunc of an integer tensor: a copy
};

UnaryPlan plan_unary(const OpDef& op, DType x) {
  if (one_of(op.id, {kOp_gelu, kOp_silu, kOp_softplus, kOp_round_decimals}))
    MF_CHECK(is_floating(x), TypeError, op.id == kOp_round_decimals ? "round" : op.name,
             ": expected a floating-point tensor, got ", dtype_name(x));
  if (one_of(op.id, {kOp_abs, kOp_relu, kOp_floor, kOp_ceil, kOp_round, kOp_trunc}))
    MF_CHECK(x != DType::Bool, NotImplementedError, op.name, ": not implemented for 'Bool'");
  if (op.id == kOp_bitwise_not)
    MF_CHECK(!is_floating(x), TypeError, op.name, ": only integer and bool tensors are supported, got ",
             dtype_name(x));
  DType compute = compute_dtype(op, x);
  if (op.id == kOp_square && x == DType::Bool) compute = DType::Int64;  // pow(x, 2), as in torch
  bool identity = one_of(op.id, {kOp_floor, kOp_ceil, kOp_round, kOp_trunc}) && !is_floating(x);
  return {compute, output_dtype(op, compute), identity};
}

Tensor unary_impl(const OpDef& op, const Tensor& x, Attrs attrs = {}) {
  UnaryPlan p = plan_unary(op, x->dtype);
  if (p.identity) return clone(x);
  Tensor out = empty(x->shape, p.result, x->device());
  run(op, p.compute, {cast(x, p.compute)}, out, attrs);
  return out;
}

void unary_impl_(const OpDef& op, const Tensor& self, Attrs attrs = {}) {
  const char* name = op.id == kOp_round_decimals ? "round" : op.name;
  check_writable(name, self);
  UnaryPlan p = plan_unary(op, self->dtype);
  check_result_castable(name, p.result, self->dtype);
  if (p.identity) {
    self->bump_version();
  } else if (p.compute == self->dtype && p.result == self->dtype) {
    run(op, p.compute, {self}, self, attrs);
    self->bump_version();
  } else {
    copy_(self, unary_impl(op, self, attrs));
  }
}

// ------------------------------------------------------------ binary

struct BinaryPlan {
  DType compute, result;
  Device device;
};

BinaryPlan plan_binary(const OpDef& op, const TensorOrScalar& a, const TensorOrScalar& b) {
  Device device = common_device(op.name, {&a.tensor, &b.tensor});
  PromotionState ps;
  add(ps, a);
  add(ps, b);
  DType compute = compute_dtype(op, ps.result());
  if (one_of(op.id, {kOp_bitwise_and, kOp_bitwise_or, kOp_bitwise_xor}))
    MF_CHECK(!is_floating(compute), TypeError, op.name, ": only integer and bool tensors are supported, got ",
             dtype_name(compute));
  if (one_of(op.id, {kOp_remainder, kOp_fmod}))
    MF_CHECK(compute != DType::Bool, NotImplementedError, op.name, ": not implemented for 'Bool'");
  if (op.id == kOp_pow) {
    // torch has no bool pow kernel; a bool tensor to a Python bool power
    // (x ** True) still works there, through its scalar-exponent shortcuts.
    MF_CHECK(compute != DType::Bool || (b.is_scalar && a.tensor), NotImplementedError, op.name,
             ": not implemented for 'Bool'");
    if (a.tensor && b.is_scalar) {
      MF_CHECK(!(is_integral(a.tensor->dtype, true) && b.scalar.kind == Scalar::Int && b.scalar.i < 0), RuntimeError,
               "pow: Integers to negative integer powers are not allowed.");
      check_fits("pow", compute, b.scalar);
    }
  }
  return {compute, output_dtype(op, compute), device};
}

// The op of math_unary/math_binary (an id from the bindings): of that kind,
// and needing no attributes (those have functions of their own).
const OpDef& checked_op(int id, OpKind kind, const char* api) {
  bool ok = id >= 0 && id < kNumOps && op_def(id).kind == kind &&
            !one_of(id, {kOp_gelu, kOp_softplus, kOp_round_decimals, kOp_lerp_scalar});
  MF_CHECK(ok, ValueError, api, ": op ", id >= 0 && id < kNumOps ? op_def(id).name : "(unknown)",
           " is not one of its ops");
  return op_def(id);
}

// ------------------------------------------------------------ recording

using autograd::NeedsGrad;
using autograd::Recorder;
using autograd::SavedTensor;
using autograd::TensorList;

// A tensor-or-number operand kept for a backward (a number as itself).
struct SavedOperand {
  SavedTensor t;
  Scalar s;
  bool is_scalar = false, present = false;
  SavedOperand() = default;
  SavedOperand(const TensorOrScalar& v, bool keep)
      : t(keep && !v.is_scalar ? v.tensor : nullptr, false),
        s(v.scalar),
        is_scalar(v.is_scalar),
        present(v.present()) {}
  TensorOrScalar unpack() const {
    if (is_scalar) return TensorOrScalar::of(s);
    return TensorOrScalar{present ? t.unpack() : nullptr, Scalar{}, false};
  }
};



// Records a unary op: `x` is its input, or (in-place) a copy of the old self
// when the formula needs it; `out` the result (self for in-place ops).
void record_unary(Recorder& rec, int op, const Tensor& x, const Tensor& out, math_grad::UnaryParams p,
                  bool inplace) {
  if (!is_floating(out->dtype)) return;  // masks and integers: no gradient
  auto fn = [op, p, sx = SavedTensor(math_grad::unary_uses_input(op) ? x : nullptr, false),
             so = SavedTensor(math_grad::unary_uses_output(op) ? out : nullptr, true)](
                const TensorList& g, NeedsGrad) {
    return TensorList{math_grad::unary(op, g[0], sx.unpack(), so.unpack(), p)};
  };
  if (inplace)
    rec.finish_inplace(out, fn);
  else
    rec.finish({out}, fn);
}

Tensor unary_recorded(const OpDef& op, const Tensor& x, Attrs attrs, math_grad::UnaryParams p) {
  Recorder rec(op.name, {x});
  Tensor out = unary_impl(op, x, attrs);
  if (rec) record_unary(rec, op.id, x, out, p, false);
  return out;
}

void unary_recorded_(const OpDef& op, const Tensor& self, Attrs attrs, math_grad::UnaryParams p) {
  Recorder rec(Recorder::InPlace{}, op.id == kOp_round_decimals ? "round" : op.name, {self});
  if (!rec) return unary_impl_(op, self, attrs);
  // The old value is copied only when the formula reads it.
  const bool keep_old = math_grad::unary_uses_input(op.id) && is_floating(self->dtype);
  Tensor old = keep_old ? Recorder::value_before(self) : nullptr;
  unary_impl_(op, self, attrs);
  record_unary(rec, op.id, old, self, p, true);
}

void record_binary(Recorder& rec, int op, const TensorOrScalar& a, const TensorOrScalar& b, const Tensor& out,
                   bool inplace) {
  if (!is_floating(out->dtype)) return;
  NeedsGrad n = rec.needs();
  bool keep = math_grad::binary_saves_operands(op, n);
  auto fn = [op, sa = SavedOperand(a, keep), sb = SavedOperand(b, keep),
             so = SavedTensor(math_grad::binary_saves_output(op, n) ? out : nullptr, true)](const TensorList& g,
                                                                                         NeedsGrad n) {
    return math_grad::binary(op, g[0], sa.unpack(), sb.unpack(), so.unpack(), n);
  };
  if (inplace)
    rec.finish_inplace(out, fn);
  else
    rec.finish({out}, fn);
}

}  // namespace

// ------------------------------------------------------------ public API

Tensor wrapped_scalar(Scalar s, Device device) {
  Tensor t = empty(Dims{}, s.dtype(), device);
  fill_(t, s, /*check_range=*/false);
  t->wrapped_number = true;
  return t;
}

Tensor math_unary(int op_id, const Tensor& x) {
  return unary_recorded(checked_op(op_id, OpKind::Unary, "math_unary"), x, {}, {});
}

void math_unary_(int op_id, const Tensor& self) {
  unary_recorded_(checked_op(op_id, OpKind::Unary, "math_unary_"), self, {}, {});
}

Tensor round_decimals(const Tensor& x, int64_t decimals) {
  MFAttr attr = int_attr("decimals", decimals);
  return unary_recorded(op_def(kOp_round_decimals), x, {&attr, 1}, {});
}

void round_decimals_(const Tensor& self, int64_t decimals) {
  MFAttr attr = int_attr("decimals", decimals);
  unary_recorded_(op_def(kOp_round_decimals), self, {&attr, 1}, {});
}

Tensor gelu(const Tensor& x, bool tanh_approximation) {
  MFAttr attr = int_attr("approximate", tanh_approximation ? 1 : 0);
  return unary_recorded(op_def(kOp_gelu), x, {&attr, 1}, {tanh_approximation ? 1.0 : 0.0, 0.0});
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  MFAttr attrs[2] = {float_attr("beta", beta), float_attr("threshold", threshold)};
  return unary_recorded(op_def(kOp_softplus), x, {attrs, 2}, {beta, threshold});
}

Tensor math_binary(int op_id, const TensorOrScalar& a, const TensorOrScalar& b) {
  const OpDef& op = checked_op(op_id, OpKind::Binary, "math_binary");
  Recorder rec(op.name, {a.tensor, b.tensor});
  BinaryPlan p = plan_binary(op, a, b);
  Dims shape = broadcast_shapes(shape_of(a), shape_of(b), op.name);
  Tensor out = empty(shape, p.result, p.device);
  run(op, p.compute,
      {expand(operand(a, p.compute, p.device), shape), expand(operand(b, p.compute, p.device), shape)}, out);
  if (rec) record_binary(rec, op_id, a, b, out, false);
  return out;
}

void math_binary_(int op_id, const Tensor& self, const TensorOrScalar& b) {
  const OpDef& op = checked_op(op_id, OpKind::Binary, "math_binary_");
  check_writable(op.name, self);
  Recorder rec(Recorder::InPlace{}, op.name, {self, b.tensor});
  if (rec) {
    // The formulas that read self read its old value: a copy, made only here.
    bool keep = math_grad::binary_saves_operands(op_id, rec.needs());
    Tensor old = keep ? Recorder::value_before(self) : self;
    math_binary_(op_id, self, b);  // grad mode is off: not recorded again
    record_binary(rec, op_id, TensorOrScalar::of(old), b, self, true);
    return;
  }
  TensorOrScalar a = TensorOrScalar::of(self);
  BinaryPlan p = plan_binary(op, a, b);
  check_result_castable(op.name, p.result, self->dtype);
  Dims shape = inplace_broadcast_shape(op.name, self, shape_of(b));
  if (p.compute != self->dtype || p.result != self->dtype) {
    copy_(self, math_binary(op_id, a, b));
    return;
  }
  Tensor other = b.is_scalar ? operand(b, p.compute, p.device) : cast(unaliased(op.name, self, b.tensor), p.compute);
  run(op, p.compute, {self, expand(other, shape)}, self);
  self->bump_version();
}

namespace {

struct ClampPlan {
  const OpDef* op;  // clamp, clamp_min or clamp_max
  DType compute;
  Device device;
  Dims shape;
};

ClampPlan plan_clamp(const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max) {
  MF_CHECK(min.present() || max.present(), RuntimeError, "clamp: at least one of 'min' or 'max' must not be None");
  Device device = common_device("clamp", {&x, &min.tensor, &max.tensor});
  PromotionState ps;
  add_operand(ps, x);
  add(ps, min);
  add(ps, max);
  DType compute = ps.result();
  MF_CHECK(compute != DType::Bool, NotImplementedError, "clamp: not implemented for 'Bool'");
  for (const TensorOrScalar* bound : {&min, &max})
    if (bound->is_scalar) check_fits("clamp", compute, bound->scalar);
  Dims shape = broadcast_shapes(broadcast_shapes(x->shape, shape_of(min), "clamp"), shape_of(max), "clamp");
  int id = !max.present() ? kOp_clamp_min : !min.present() ? kOp_clamp_max : kOp_clamp;
  return {&op_def(id), compute, device, shape};
}

// Bounds in the compute dtype, broadcast to `shape`; the absent one dropped.
void run_clamp(const ClampPlan& p, const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max,
               const Tensor& out) {
  Tensor xs = expand(x, p.shape);
  if (p.op->id == kOp_clamp_min)
    run(*p.op, p.compute, {xs, expand(operand(min, p.compute, p.device), p.shape)}, out);
  else if (p.op->id == kOp_clamp_max)
    run(*p.op, p.compute, {xs, expand(operand(max, p.compute, p.device), p.shape)}, out);
  else
    run(*p.op, p.compute,
        {xs, expand(operand(min, p.compute, p.device), p.shape), expand(operand(max, p.compute, p.device), p.shape)},
        out);
}

// A tensor bound of an in-place clamp_/lerp_ that shares memory with self.
TensorOrScalar unaliased(const char* op, const Tensor& self, const TensorOrScalar& v) {
  if (v.is_scalar || !v.tensor) return v;
  return TensorOrScalar::of(monoflow::unaliased(op, self, v.tensor));
}

void check_lerp(const Tensor& start, const Tensor& end, const TensorOrScalar& weight) {
  common_device("lerp", {&start, &end, &weight.tensor});
  MF_CHECK(is_floating(start->dtype), TypeError, "lerp: expected a floating-point tensor, got ",
           dtype_name(start->dtype));
  MF_CHECK(end->dtype == start->dtype, TypeError, "lerp: expected dtype ", dtype_name(start->dtype),
           " for `end` but got dtype ", dtype_name(end->dtype));
  MF_CHECK(weight.present(), TypeError, "lerp: missing `weight`");
  // A 0-dim weight converts to start's dtype, as PyTorch lets a CPU scalar do.
  if (weight.tensor)
    MF_CHECK(weight.tensor->dim() == 0 || weight.tensor->dtype == start->dtype, TypeError, "lerp: expected dtype ",
             dtype_name(start->dtype), " for `weight` but got dtype ", dtype_name(weight.tensor->dtype));
}

Dims lerp_shape(const Tensor& start, const Tensor& end, const TensorOrScalar& weight) {
  return broadcast_shapes(broadcast_shapes(start->shape, end->shape, "lerp"), shape_of(weight), "lerp");
}

// A Python-number weight stays a double attribute (the kernel computes with
// it at float precision for float16/bfloat16, as torch does); a tensor weight
// is a third operand.
void run_lerp(const Tensor& start, const Tensor& end, const TensorOrScalar& weight, const Dims& shape,
              const Tensor& out) {
  DType dt = start->dtype;
  if (weight.is_scalar) {
    MFAttr attr = float_attr("weight", weight.scalar.f);
    run(op_def(kOp_lerp_scalar), dt, {expand(start, shape), expand(end, shape)}, out, {&attr, 1});
  } else {
    run(op_def(kOp_lerp), dt, {expand(start, shape), expand(end, shape), expand(cast(weight.tensor, dt), shape)},
        out);
  }
}

}  // namespace

namespace {
const char* clamp_name(const TensorOrScalar& min, const TensorOrScalar& max) {
  return !max.present() ? "clamp_min" : !min.present() ? "clamp_max" : "clamp";
}

// x: the input (for clamp_, a copy of self's old value); out: the result.
void record_clamp(Recorder& rec, const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max,
                  const Tensor& out, bool inplace) {
  if (!is_floating(out->dtype)) return;
  auto fn = [sx = rec.save(x), smin = SavedOperand(min, true), smax = SavedOperand(max, true)](const TensorList& g,
                                                                                             NeedsGrad n) {
    return math_grad::clamp(g[0], sx.unpack(), smin.unpack(), smax.unpack(), n);
  };
  if (inplace)
    rec.finish_inplace(out, fn);
  else
    rec.finish({out}, fn);
}
}  // namespace

Tensor clamp(const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max) {
  Recorder rec(clamp_name(min, max), {x, min.tensor, max.tensor});
  ClampPlan p = plan_clamp(x, min, max);
  Tensor out = empty(p.shape, p.compute, p.device);
  run_clamp(p, cast(x, p.compute), min, max, out);
  if (rec) record_clamp(rec, x, min, max, out, false);
  return out;
}

void clamp_(const Tensor& self, const TensorOrScalar& min, const TensorOrScalar& max) {
  check_writable("clamp", self);
  Recorder rec(Recorder::InPlace{}, clamp_name(min, max), {self, min.tensor, max.tensor});
  if (rec) {
    Tensor old = Recorder::value_before(self);
    clamp_(self, min, max);
    record_clamp(rec, old, min, max, self, true);
    return;
  }
  ClampPlan p = plan_clamp(self, min, max);
  check_result_castable("clamp", p.compute, self->dtype);
  check_inplace_shape("clamp", self, p.shape);
  if (p.compute != self->dtype) {
    copy_(self, clamp(self, min, max));
    return;
  }
  run_clamp(p, self, unaliased("clamp", self, min), unaliased("clamp", self, max), self);
  self->bump_version();
}

Tensor where(const Tensor& cond, const TensorOrScalar& x, const TensorOrScalar& y) {
  const OpDef& op = op_def(kOp_where);
  Recorder rec("where", {x.tensor, y.tensor});
  Device device = common_device("where", {&cond, &x.tensor, &y.tensor});
  MF_CHECK(cond->dtype == DType::Bool, TypeError, "where: expected condition to be a bool tensor, but got ",
           dtype_name(cond->dtype));
  MF_CHECK(x.present() && y.present(), TypeError, "where: expected both `input` and `other`");
  PromotionState ps;
  add(ps, x);
  add(ps, y);
  DType compute = ps.result();
  for (const TensorOrScalar* v : {&x, &y})
    if (v->is_scalar) check_fits("where", compute, v->scalar);
  Dims shape = broadcast_shapes(broadcast_shapes(cond->shape, shape_of(x), "where"), shape_of(y), "where");
  Tensor out = empty(shape, compute, device);
  run(op, compute,
      {expand(cond, shape), expand(operand(x, compute, device), shape), expand(operand(y, compute, device), shape)},
      out);
  if (rec && is_floating(out->dtype))
    rec.finish({out}, [sc = rec.save(cond)](const TensorList& g, NeedsGrad n) {
      return math_grad::where(g[0], sc.unpack(), n);
    });
  return out;
}

namespace {
// start: the input (for lerp_, a copy of self's old value when needed).
void record_lerp(Recorder& rec, const Tensor& start, const Tensor& end, const TensorOrScalar& weight,
                 const Tensor& out, bool inplace) {
  NeedsGrad n = rec.needs();
  bool keep_w = n[0] || n[1], keep_ends = n[2];
  auto fn = [ss = SavedTensor(keep_ends ? start : nullptr, false), se = SavedTensor(keep_ends ? end : nullptr, false),
             sw = SavedOperand(weight, keep_w)](const TensorList& g, NeedsGrad n) {
    return math_grad::lerp(g[0], ss.unpack(), se.unpack(), sw.unpack(), n);
  };
  if (inplace)
    rec.finish_inplace(out, fn);
  else
    rec.finish({out}, fn);
}
}  // namespace

Tensor lerp(const Tensor& start, const Tensor& end, const TensorOrScalar& weight) {
  Recorder rec("lerp", {start, end, weight.tensor});
  check_lerp(start, end, weight);
  Dims shape = lerp_shape(start, end, weight);
  Tensor out = empty(shape, start->dtype, start->device());
  run_lerp(start, end, weight, shape, out);
  if (rec) record_lerp(rec, start, end, weight, out, false);
  return out;
}

void lerp_(const Tensor& self, const Tensor& end, const TensorOrScalar& weight) {
  check_writable("lerp", self);
  Recorder rec(Recorder::InPlace{}, "lerp", {self, end, weight.tensor});
  if (rec) {
    Tensor old = rec.needs()[2] ? Recorder::value_before(self) : self;
    lerp_(self, end, weight);
    record_lerp(rec, old, end, weight, self, true);
    return;
  }
  check_lerp(self, end, weight);
  Dims shape = lerp_shape(self, end, weight);
  check_inplace_shape("lerp", self, shape);
  run_lerp(self, unaliased("lerp", self, end), unaliased("lerp", self, weight), shape, self);
  self->bump_version();
}

}  // namespace monoflow
