// Derivatives of the math ops (recorded by ops_math.cc; see autograd.h). The
// formulas are PyTorch's (its conventions at singular points included: log's
// gradient at 0 is inf, pow's exponent gradient at 0 ** b, b >= 0, is 0),
// written with the differentiable op API so that they differentiate again.
#include <cmath>

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_math_grad_fused.h"

namespace monoflow {
namespace math_grad {

using autograd::NeedsGrad;
using autograd::TensorList;

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // d/dx erf(x) at 0
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluC = 0.044715;

Tensor mul(const Tensor& a, const Tensor& b) { return monoflow::binary(kOp_mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return monoflow::binary(kOp_div, a, b); }
Tensor add(const Tensor& a, const Tensor& b) { return monoflow::binary(kOp_add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return monoflow::binary(kOp_sub, a, b); }
Tensor neg(const Tensor& a) { return monoflow::unary(kOp_neg, a); }
Tensor sq(const Tensor& a) { return mul(a, a); }
Tensor f(int op, const Tensor& a) { return math_unary(op, a); }
Tensor scale(const Tensor& a, double c) { return binary_scalar(kOp_mul_scalar, a, Scalar::from_float(c)); }
Tensor shift(const Tensor& a, double c) { return binary_scalar(kOp_add_scalar, a, Scalar::from_float(c)); }
// c - a
Tensor rsub(const Tensor& a, double c) { return binary_scalar(kOp_rsub_scalar, a, Scalar::from_float(c)); }
Tensor cmp(int op, const Tensor& a, const Tensor& b) { return monoflow::binary(op, a, b); }
Tensor cmp(int op, const Tensor& a, double c) {
  return monoflow::binary(op, a, scalar_operand(a, Scalar::from_float(c)));
}
Tensor both(const Tensor& a, const Tensor& b) {
  return math_binary(kOp_logical_and, TensorOrScalar::of(a), TensorOrScalar::of(b));
}
Tensor either(const Tensor& a, const Tensor& b) {
  return math_binary(kOp_logical_or, TensorOrScalar::of(a), TensorOrScalar::of(b));
}
Tensor zeros(const Tensor& like) { return full(like->shape, Scalar{}, like->dtype, like->device()); }
// g where cond holds, 0 elsewhere (and the reverse).
Tensor pass(const Tensor& cond, const Tensor& g) {
  return monoflow::where(cond, TensorOrScalar::of(g), TensorOrScalar::of(Scalar::from_int(0)));
}
Tensor block(const Tensor& cond, const Tensor& g) {
  return monoflow::where(cond, TensorOrScalar::of(Scalar::from_int(0)), TensorOrScalar::of(g));
}
// A Python-number operand as a 0-dim tensor like g (the compute dtype).
Tensor as_tensor(const TensorOrScalar& v, const Tensor& like) {
  return v.is_scalar ? scalar_operand(like, v.scalar) : v.tensor;
}
Scalar minus_one(Scalar e) {
  return e.kind == Scalar::Float ? Scalar::from_float(e.f - 1) : Scalar::from_int(e.i - 1);
}
bool is_zero(Scalar s) { return s.kind == Scalar::Float ? s.f == 0.0 : s.i == 0; }
double to_double(Scalar s) { return s.kind == Scalar::Float ? s.f : static_cast<double>(s.i); }

Tensor gelu_grad(const Tensor& g, const Tensor& x, bool tanh_approximation) {
  if (!tanh_approximation) {
    // Phi(x) + x phi(x)
    Tensor cdf = scale(shift(f(kOp_erf, scale(x, kInvSqrt2)), 1.0), 0.5);
    Tensor pdf = scale(f(kOp_exp, scale(sq(x), -0.5)), kInvSqrt2Pi);
    return mul(g, add(cdf, mul(x, pdf)));
  }
  // y = x/2 (1 + tanh(u)), u = k (x + c x^3): y' = (1 + t)/2 + x/2 (1 - t^2) k (1 + 3c x^2)
  Tensor x2 = sq(x);
  Tensor t = f(kOp_tanh, scale(mul(x, shift(scale(x2, kGeluC), 1.0)), kSqrt2OverPi));
  Tensor du = scale(shift(scale(x2, 3 * kGeluC), 1.0), kSqrt2OverPi);
  Tensor d = add(scale(shift(t, 1.0), 0.5), mul(scale(x, 0.5), mul(rsub(sq(t), 1.0), du)));
  return mul(g, d);
}

}  // namespace

bool unary_uses_input(int op) {
  // derivatives written with the output need no input; neg's is constant, and
  // the rounding functions' (and sign's) are zero
  if (unary_uses_output(op)) return false;
  switch (op) {
    case kOp_neg:
    case kOp_sign:
    case kOp_floor:
    case kOp_ceil:
    case kOp_round:
    case kOp_round_decimals:
    case kOp_trunc: return false;
    default: return true;
  }
}

bool unary_uses_output(int op) {
  switch (op) {
    case kOp_exp:
    case kOp_exp2:
    case kOp_expm1:
    case kOp_sqrt:
    case kOp_rsqrt:
    case kOp_tan:
    case kOp_tanh:
    case kOp_sigmoid:
    case kOp_reciprocal:
    case kOp_relu: return true;
    default: return false;
  }
}

Tensor unary(int op, const Tensor& g, const Tensor& x, const Tensor& y, UnaryParams p) {
  if (Tensor fused = unary_fused(op, g, x, y, p)) return fused;  // Note [Fused activation backward]
  switch (op) {
    case kOp_exp: return mul(g, y);
    case kOp_exp2: return mul(g, scale(y, kLn2));
    case kOp_log: return div(g, x);
    case kOp_log2: return div(g, scale(x, kLn2));
    case kOp_log10: return div(g, scale(x, kLn10));
    case kOp_log1p: return div(g, shift(x, 1.0));
    case kOp_expm1: return mul(g, shift(y, 1.0));
    case kOp_sqrt: return div(g, scale(y, 2.0));
    case kOp_rsqrt: return mul(g, scale(mul(y, sq(y)), -0.5));
    case kOp_sin: return mul(g, f(kOp_cos, x));
    case kOp_cos: return mul(g, neg(f(kOp_sin, x)));
    case kOp_tan: return mul(g, shift(sq(y), 1.0));
    case kOp_asin: return mul(g, f(kOp_rsqrt, rsub(sq(x), 1.0)));
    case kOp_acos: return mul(g, neg(f(kOp_rsqrt, rsub(sq(x), 1.0))));
    case kOp_atan: return div(g, shift(sq(x), 1.0));
    case kOp_sinh: return mul(g, f(kOp_cosh, x));
    case kOp_cosh: return mul(g, f(kOp_sinh, x));
    case kOp_tanh: return mul(g, rsub(sq(y), 1.0));
    case kOp_asinh: return mul(g, f(kOp_rsqrt, shift(sq(x), 1.0)));
    case kOp_acosh: return mul(g, f(kOp_rsqrt, shift(sq(x), -1.0)));
    case kOp_atanh: return div(g, rsub(sq(x), 1.0));
    case kOp_sigmoid: return mul(g, mul(y, rsub(y, 1.0)));
    case kOp_erf: return mul(g, scale(f(kOp_exp, neg(sq(x))), kTwoOverSqrtPi));
    case kOp_erfc: return mul(g, scale(f(kOp_exp, neg(sq(x))), -kTwoOverSqrtPi));
    case kOp_reciprocal: return mul(g, neg(sq(y)));
    case kOp_abs: return mul(g, f(kOp_sign, x));
    case kOp_square: return mul(g, scale(x, 2.0));
    case kOp_relu:  // 0 at 0, as torch; Note [Formal inputs of piecewise-linear backward]
      return autograd::formally_depends_on(pass(cmp(kOp_gt, y, 0.0), g), y);
    case kOp_silu: {
      Tensor s = f(kOp_sigmoid, x);
      return mul(g, mul(s, shift(mul(x, rsub(s, 1.0)), 1.0)));
    }
    case kOp_gelu: return gelu_grad(g, x, p.a != 0.0);
    case kOp_softplus: {
      // Linear where beta x > threshold; sigmoid(beta x) rather than
      // e/(e + 1) keeps the unselected branch finite for double backward.
      Tensor bx = scale(x, p.a);
      return monoflow::where(cmp(kOp_gt, bx, p.b), TensorOrScalar::of(g),
                             TensorOrScalar::of(mul(g, f(kOp_sigmoid, bx))));
    }
    case kOp_neg: return neg(g);
    case kOp_sign:
    case kOp_floor:
    case kOp_ceil:
    case kOp_round:
    case kOp_round_decimals:
    case kOp_trunc: return zeros(g);  // zero, as torch (not "no gradient")
    default: throw NotImplementedError(str_cat(op_def(op).name, ": no derivative"));
  }
}

bool binary_saves_operands(int op, NeedsGrad n) {
  switch (op) {
    case kOp_pow:
    case kOp_atan2:
    case kOp_clamp_min:
    case kOp_clamp_max: return true;
    case kOp_remainder:
    case kOp_fmod: return n[1];
    default: return false;
  }
}

bool binary_saves_output(int op, NeedsGrad n) { return op == kOp_pow && n[1]; }

TensorList binary(int op, const Tensor& g, const TensorOrScalar& a, const TensorOrScalar& b, const Tensor& out,
                  NeedsGrad n) {
  if (op == kOp_pow && b.is_scalar) {
    // x ** e: e x^(e-1), and exactly 0 for e == 0 (whatever x is)
    if (is_zero(b.scalar)) return {zeros(g), nullptr};
    Tensor d = binary_scalar(kOp_mul_scalar, math_binary(kOp_pow, a, TensorOrScalar::of(minus_one(b.scalar))),
                             b.scalar);
    return {mul(g, d), nullptr};
  }
  if (op == kOp_pow && a.is_scalar) {
    // s ** y: s^y log(s); 0 where s == 0 and y >= 0 (NaN for s < 0, as torch)
    double s = to_double(a.scalar);
    Tensor gb = mul(g, scale(out, std::log(s)));
    if (s == 0.0) gb = block(cmp(kOp_ge, b.tensor, 0.0), gb);
    return {nullptr, gb};
  }
  Tensor ta_or = a.present() ? as_tensor(a, g) : nullptr;
  Tensor tb = b.present() ? as_tensor(b, g) : nullptr;
  switch (op) {
    case kOp_pow: {
      Tensor ga, gb;
      if (n[0]) {
        // b a^(b-1), and exactly 0 where b == 0
        Tensor b1 = binary_scalar(kOp_sub_scalar, tb, Scalar::from_int(1));
        Tensor d = mul(tb, math_binary(kOp_pow, TensorOrScalar::of(ta_or), TensorOrScalar::of(b1)));
        ga = block(cmp(kOp_eq, tb, 0.0), mul(g, d));
      }
      if (n[1]) {
        Tensor zero_base = both(cmp(kOp_eq, ta_or, 0.0), cmp(kOp_ge, tb, 0.0));
        gb = mul(g, block(zero_base, mul(out, f(kOp_log, ta_or))));
      }
      return {ga, gb};
    }
    case kOp_atan2: {
      Tensor r = f(kOp_reciprocal, add(sq(ta_or), sq(tb)));
      return {n[0] ? mul(g, mul(tb, r)) : nullptr, n[1] ? mul(g, mul(neg(ta_or), r)) : nullptr};
    }
    case kOp_remainder:
    case kOp_fmod: {
      Tensor gb;
      if (n[1]) gb = neg(mul(g, f(op == kOp_remainder ? kOp_floor : kOp_trunc, div(ta_or, tb))));
      return {g, gb};
    }
    case kOp_clamp_min:
      return {n[0] ? pass(cmp(kOp_ge, ta_or, tb), g) : nullptr, n[1] ? pass(cmp(kOp_lt, ta_or, tb), g) : nullptr};
    case kOp_clamp_max:
      return {n[0] ? pass(cmp(kOp_le, ta_or, tb), g) : nullptr, n[1] ? pass(cmp(kOp_gt, ta_or, tb), g) : nullptr};
    default: return {nullptr, nullptr};
  }
}

TensorList clamp(const Tensor& g, const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max,
                 NeedsGrad n) {
  // As torch: x's gradient passes where min <= x <= max; a bound's where it
  // is the one that binds (max wins when min > max).
  Tensor lo = min.present() ? as_tensor(min, x) : nullptr;
  Tensor hi = max.present() ? as_tensor(max, x) : nullptr;
  Tensor gx, gmin, gmax;
  if (n[0]) {
    Tensor ok = lo ? cmp(kOp_ge, x, lo) : nullptr;
    if (hi) ok = ok ? both(ok, cmp(kOp_le, x, hi)) : cmp(kOp_le, x, hi);
    gx = pass(ok, g);
  }
  if (n[1]) gmin = pass(hi ? both(cmp(kOp_lt, x, lo), cmp(kOp_lt, lo, hi)) : cmp(kOp_lt, x, lo), g);
  if (n[2]) gmax = pass(lo ? either(cmp(kOp_gt, x, hi), cmp(kOp_lt, hi, lo)) : cmp(kOp_gt, x, hi), g);
  return {gx, gmin, gmax};
}

TensorList where(const Tensor& g, const Tensor& cond, NeedsGrad n) {
  return {n[0] ? pass(cond, g) : nullptr, n[1] ? block(cond, g) : nullptr};
}

TensorList lerp(const Tensor& g, const Tensor& start, const Tensor& end, const TensorOrScalar& weight,
                NeedsGrad n) {
  if (weight.is_scalar) {
    double w = weight.scalar.f;
    return {n[0] ? scale(g, 1.0 - w) : nullptr, n[1] ? scale(g, w) : nullptr, nullptr};
  }
  const Tensor& w = weight.tensor;
  return {n[0] ? mul(g, rsub(w, 1.0)) : nullptr, n[1] ? mul(g, w) : nullptr,
          n[2] ? mul(g, sub(end, start)) : nullptr};
}

}  // namespace math_grad
}  // namespace monoflow
