// Fused elementwise updates (add with alpha, addcmul, addcdiv): checks,
// broadcasting and derivatives. Operands of one floating dtype on one device
// go to a single kernel; anything else (integers, mixed dtypes, devices that
// differ, which the foundation ops then report) is composed from add/mul/div,
// which also gives it their promotion rules and derivatives.
#include "monoflow/ops_fused.h"

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/op_registry.h"
#include "monoflow/ops.h"

namespace monoflow {

using autograd::NeedsGrad;
using autograd::Recorder;
using autograd::SavedTensor;
using autograd::TensorList;

namespace {

bool fusable(std::initializer_list<const Tensor*> ts) {
  const Tensor& first = **ts.begin();
  if (!is_floating(first->dtype)) return false;
  for (const Tensor* t : ts)
    if ((*t)->dtype != first->dtype || (*t)->device() != first->device()) return false;
  return true;
}

bool is_one(Scalar s) { return s.kind == Scalar::Float ? s.f == 1.0 : s.i == 1; }

Tensor scaled(const Tensor& t, Scalar s) { return is_one(s) ? t : binary_scalar(kOp_mul_scalar, t, s); }

double as_double(Scalar s) { return s.kind == Scalar::Float ? s.f : static_cast<double>(s.i); }

// a + alpha * b with b in a narrower floating dtype than a's, which is the result's: b is widened
// before the scaling, so that alpha * b is not rounded to b's dtype first (torch computes it in the
// result's dtype). A 0-dim a does not decide the dtype against a dimensioned b (torch's rule).
bool widen_other(const Tensor& a, const Tensor& b) {
  return is_floating(a->dtype) && is_floating(b->dtype) && a->dtype != b->dtype &&
         promote_types(a->dtype, b->dtype) == a->dtype && (a->dim() > 0 || b->dim() == 0);
}

void check_addcdiv_dtypes(const Tensor& t1, const Tensor& t2) {
  MF_CHECK(is_floating(t1->dtype) || is_floating(t2->dtype), RuntimeError,
           "addcdiv: integer division of tensor1 by tensor2 is not supported; use a floating dtype for one of them");
}

// ------------------------------------------------------------ derivatives

TensorList add_alpha_grads(const Tensor& g, Scalar alpha, NeedsGrad n) {
  return {n[0] ? g : Tensor(), n[1] ? scaled(g, alpha) : Tensor()};
}

TensorList addcmul_grads(const Tensor& g, const Tensor& t1, const Tensor& t2, Scalar value, NeedsGrad n) {
  return {n[0] ? g : Tensor(), n[1] ? scaled(binary(kOp_mul, g, t2), value) : Tensor(),
          n[2] ? scaled(binary(kOp_mul, g, t1), value) : Tensor()};
}

// d/dt2 (v * t1 / t2) = -v * t1 / t2^2
TensorList addcdiv_grads(const Tensor& g, const Tensor& t1, const Tensor& t2, Scalar value, NeedsGrad n) {
  Tensor g1, g2;
  if (n[1]) g1 = scaled(binary(kOp_div, g, t2), value);
  if (n[2]) {
    Tensor q = binary(kOp_div, binary(kOp_mul, g, t1), binary(kOp_mul, t2, t2));
    g2 = binary_scalar(kOp_mul_scalar, q, Scalar::from_float(-as_double(value)));
  }
  return {n[0] ? g : Tensor(), g1, g2};
}

// ------------------------------------------------------------ kernels

void run_add_alpha(const Tensor& a, const Tensor& b, Scalar alpha, const Dims& shape, const Tensor& out) {
  launch(kOp_add_alpha, out->dtype, {expand(a, shape), expand(b, shape)}, out,
         {float_attr("alpha", as_double(alpha))}, /*coalesce=*/true);
}

void run_addc(int op, const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value, const Dims& shape,
              const Tensor& out) {
  launch(op, out->dtype, {expand(self, shape), expand(t1, shape), expand(t2, shape)}, out,
         {float_attr("value", as_double(value))}, /*coalesce=*/true);
}

Dims shape3(const Tensor& a, const Tensor& b, const Tensor& c, const char* op) {
  return broadcast_shapes(broadcast_shapes(a->shape, b->shape, op), c->shape, op);
}

}  // namespace

// ------------------------------------------------------------ add with alpha

Tensor add_alpha(const Tensor& a, const Tensor& b, Scalar alpha) {
  if (!is_one(alpha) && widen_other(a, b)) return add_alpha(a, cast(b, a->dtype), alpha);
  if (!fusable({&a, &b}) || is_one(alpha)) return binary(kOp_add, a, scaled(b, alpha));
  Recorder rec("add", {a, b});
  Dims shape = broadcast_shapes(a->shape, b->shape, "add");
  Tensor out = empty(shape, a->dtype, a->device());
  run_add_alpha(a, b, alpha, shape, out);
  if (rec)
    rec.finish({out}, [alpha](const TensorList& g, NeedsGrad n) { return add_alpha_grads(g[0], alpha, n); });
  return out;
}

void add_alpha_(const Tensor& self, const Tensor& b, Scalar alpha) {
  if (!is_one(alpha) && widen_other(self, b)) return add_alpha_(self, cast(b, self->dtype), alpha);
  if (!fusable({&self, &b}) || is_one(alpha)) return binary_(kOp_add, self, scaled(b, alpha));
  check_writable("add", self);
  Recorder rec(Recorder::InPlace{}, "add", {self, b});
  if (rec) {
    add_alpha_(self, b, alpha);
    rec.finish_inplace(self, [alpha](const TensorList& g, NeedsGrad n) { return add_alpha_grads(g[0], alpha, n); });
    return;
  }
  Dims shape = inplace_broadcast_shape("add", self, b->shape);
  run_add_alpha(self, unaliased("add", self, b), alpha, shape, self);
  self->bump_version();
}

// ------------------------------------------------------------ addcmul / addcdiv

namespace {

Tensor addc_composed(int op, const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  return binary(kOp_add, self, scaled(binary(op == kOp_addcmul ? kOp_mul : kOp_div, t1, t2), value));
}

Tensor addc(int op, const char* name, const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  if (op == kOp_addcdiv) check_addcdiv_dtypes(t1, t2);
  if (!fusable({&self, &t1, &t2})) return addc_composed(op, self, t1, t2, value);
  Recorder rec(name, {self, t1, t2});
  Dims shape = shape3(self, t1, t2, name);
  Tensor out = empty(shape, self->dtype, self->device());
  run_addc(op, self, t1, t2, value, shape, out);
  if (rec) {
    NeedsGrad n = rec.needs();
    // t1's gradient needs t2 and the other way round (addcdiv's t2 needs both).
    bool keep1 = n[2], keep2 = n[1] || (op == kOp_addcdiv && n[2]);
    rec.finish({out}, [op, value, s1 = SavedTensor(keep1 ? t1 : nullptr, false),
                       s2 = SavedTensor(keep2 ? t2 : nullptr, false)](const TensorList& g, NeedsGrad n) {
      return op == kOp_addcmul ? addcmul_grads(g[0], s1.unpack(), s2.unpack(), value, n)
                               : addcdiv_grads(g[0], s1.unpack(), s2.unpack(), value, n);
    });
  }
  return out;
}

void addc_(int op, const char* name, const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  if (op == kOp_addcdiv) check_addcdiv_dtypes(t1, t2);
  if (!fusable({&self, &t1, &t2})) {
    binary_(kOp_add, self, scaled(binary(op == kOp_addcmul ? kOp_mul : kOp_div, t1, t2), value));
    return;
  }
  check_writable(name, self);
  Recorder rec(Recorder::InPlace{}, name, {self, t1, t2});
  if (rec) {
    NeedsGrad n = rec.needs();
    bool keep1 = n[2], keep2 = n[1] || (op == kOp_addcdiv && n[2]);
    SavedTensor s1(keep1 ? t1 : nullptr, false), s2(keep2 ? t2 : nullptr, false);
    addc_(op, name, self, t1, t2, value);
    rec.finish_inplace(self, [op, value, s1, s2](const TensorList& g, NeedsGrad n) {
      return op == kOp_addcmul ? addcmul_grads(g[0], s1.unpack(), s2.unpack(), value, n)
                               : addcdiv_grads(g[0], s1.unpack(), s2.unpack(), value, n);
    });
    return;
  }
  Dims shape = shape3(self, t1, t2, name);
  check_inplace_shape(name, self, shape);
  run_addc(op, self, unaliased(name, self, t1), unaliased(name, self, t2), value, shape, self);
  self->bump_version();
}

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  return addc(kOp_addcmul, "addcmul", self, t1, t2, value);
}
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  addc_(kOp_addcmul, "addcmul", self, t1, t2, value);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  return addc(kOp_addcdiv, "addcdiv", self, t1, t2, value);
}
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value) {
  addc_(kOp_addcdiv, "addcdiv", self, t1, t2, value);
}

// ------------------------------------------------------------ SGD momentum

void sgd_momentum_(const Tensor& p, const Tensor& buf, const Tensor& g, double momentum, double scale, double lr) {
  bool recording = autograd::grad_enabled() &&
                   (autograd::requires_grad(p) || autograd::requires_grad(buf) || autograd::requires_grad(g));
  bool fused = !recording && fusable({&p, &buf, &g}) && p->shape == buf->shape && p->shape == g->shape &&
               !p->has_internal_overlap() && !buf->has_internal_overlap() && overlap(p, buf) == Overlap::No &&
               overlap(p, g) == Overlap::No && overlap(buf, g) == Overlap::No;
  if (!fused) {
    binary_scalar_(kOp_mul_scalar, buf, Scalar::from_float(momentum));
    add_alpha_(buf, g, Scalar::from_float(scale));
    add_alpha_(p, buf, Scalar::from_float(-lr));
    return;
  }
  Tensor outs[2] = {p, buf};
  MFAttr attrs[3] = {float_attr("momentum", momentum), float_attr("scale", scale), float_attr("lr", lr)};
  LaunchArgs a{&op_def(kOp_sgd_momentum), p->dtype};
  a.inputs = &g;
  a.num_inputs = 1;
  a.outputs = outs;
  a.num_outputs = 2;
  a.attrs = attrs;
  a.num_attrs = 3;
  a.coalesce = true;
  launch(a);
  p->bump_version();
  buf->bump_version();
}

}  // namespace monoflow
