// Note [Fused activation backward]
//   The derivatives in ops_math_grad.cc are written with differentiable ops
//   so that they differentiate again, at one kernel pass (and one full-size
//   temporary) per op: GELU's is twelve passes, SiLU's six, tanh's and
//   sigmoid's three, relu's two. When the backward is not itself recorded
//   (no create_graph), the same formulas run as one fused_elementwise
//   program: instruction for instruction the composed chain, the scalars
//   as MF_FUSED_CONST as the graph's fusion emits scalar ops, so results
//   equal the composed ops' bit for bit (Note [Fused programs]).
#include "monoflow/ops_math_grad_fused.h"

#include "monoflow/autograd.h"
#include "monoflow/fused_program.h"
#include "monoflow/fused_run.h"
#include "monoflow/op_registry.h"
#include "monoflow/ops.h"

namespace monoflow::math_grad {

namespace {

constexpr int64_t LD = MF_FUSED_LOAD, K = MF_FUSED_CONST, MUL = MF_FUSED_MUL, ADD = MF_FUSED_ADD,
                  SUB = MF_FUSED_SUB, EXP = MF_FUSED_EXP, ERF = MF_FUSED_ERF, TANH = MF_FUSED_TANH,
                  SIG = MF_FUSED_SIGMOID, GT = MF_FUSED_GT, WHERE = MF_FUSED_WHERE;

constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluC = 0.044715;

// Every program reads input 0 = g, input 1 = x (or y) and writes output 0.

// g (Phi(x) + x phi(x)): gelu_grad's exact form.
const FusedCode kGelu = {{
    LD, 0, 1, 0, 0,   K, 1, 0, 0, 0,     MUL, 2, 0, 1, 0,   ERF, 3, 2, 0, 0,  // erf(x / sqrt 2)
    K, 4, 1, 0, 0,    ADD, 5, 3, 4, 0,   K, 6, 2, 0, 0,     MUL, 7, 5, 6, 0,  // r7 = cdf
    MUL, 8, 0, 0, 0,  K, 9, 3, 0, 0,     MUL, 10, 8, 9, 0,  EXP, 11, 10, 0, 0,
    K, 12, 4, 0, 0,   MUL, 13, 11, 12, 0,                                     // r13 = pdf
    MUL, 14, 0, 13, 0, ADD, 15, 7, 14, 0, LD, 16, 0, 0, 0,  MUL, 17, 16, 15, 0,
    },
    {17}, 18, {kInvSqrt2, 1.0, 0.5, -0.5, kInvSqrt2Pi}};

// The tanh approximation: (1 + t)/2 + x/2 (1 - t^2) k (1 + 3c x^2), t = tanh(k (x + c x^3)).
const FusedCode kGeluTanh = {{
    LD, 0, 1, 0, 0,    MUL, 1, 0, 0, 0,    K, 2, 0, 0, 0,     MUL, 3, 1, 2, 0,   // c x^2
    K, 4, 1, 0, 0,     ADD, 5, 3, 4, 0,    MUL, 6, 0, 5, 0,   K, 7, 2, 0, 0,
    MUL, 8, 6, 7, 0,   TANH, 9, 8, 0, 0,                                        // r9 = t
    K, 10, 3, 0, 0,    MUL, 11, 1, 10, 0,  ADD, 12, 11, 4, 0, MUL, 13, 12, 7, 0, // r13 = du
    ADD, 14, 9, 4, 0,  K, 15, 4, 0, 0,     MUL, 16, 14, 15, 0, MUL, 17, 0, 15, 0,
    MUL, 18, 9, 9, 0,  SUB, 19, 4, 18, 0,  MUL, 20, 19, 13, 0, MUL, 21, 17, 20, 0,
    ADD, 22, 16, 21, 0, LD, 23, 0, 0, 0,   MUL, 24, 23, 22, 0,
    },
    {24}, 25, {kGeluC, 1.0, kSqrt2OverPi, 3 * kGeluC, 0.5}};

// g s (1 + x (1 - s)), s = sigmoid(x).
const FusedCode kSilu = {{
    LD, 0, 1, 0, 0,  SIG, 1, 0, 0, 0,  K, 2, 0, 0, 0,   SUB, 3, 2, 1, 0,  MUL, 4, 0, 3, 0,
    ADD, 5, 4, 2, 0, MUL, 6, 1, 5, 0,  LD, 7, 0, 0, 0,  MUL, 8, 7, 6, 0,
    },
    {8}, 9, {1.0}};

// From the result y. tanh: g (1 - y^2); sigmoid: g y (1 - y); relu: g where y > 0.
const FusedCode kTanh = {{
    LD, 0, 1, 0, 0,  MUL, 1, 0, 0, 0,  K, 2, 0, 0, 0,  SUB, 3, 2, 1, 0,  LD, 4, 0, 0, 0,  MUL, 5, 4, 3, 0,
    },
    {5}, 6, {1.0}};
const FusedCode kSigmoid = {{
    LD, 0, 1, 0, 0,  K, 1, 0, 0, 0,  SUB, 2, 1, 0, 0,  MUL, 3, 0, 2, 0,  LD, 4, 0, 0, 0,  MUL, 5, 4, 3, 0,
    },
    {5}, 6, {1.0}};
const FusedCode kRelu = {{
    LD, 0, 1, 0, 0,  K, 1, 0, 0, 0,  GT, 2, 0, 1, 0,  LD, 3, 0, 0, 0,  WHERE, 4, 2, 3, 1,
    },
    {4}, 5, {0.0}};

}  // namespace

Tensor unary_fused(int op, const Tensor& g, const Tensor& x, const Tensor& y, UnaryParams p) {
  const FusedCode* code = nullptr;
  Tensor arg = x;
  switch (op) {
    case kOp_gelu: code = p.a != 0.0 ? &kGeluTanh : &kGelu; break;
    case kOp_silu: code = &kSilu; break;
    case kOp_tanh: code = &kTanh, arg = y; break;
    case kOp_sigmoid: code = &kSigmoid, arg = y; break;
    case kOp_relu: code = &kRelu, arg = y; break;
    default: return Tensor();
  }
  if (!g || !arg || autograd::grad_enabled() || !is_floating(g->dtype) || g->dtype != arg->dtype ||
      !(g->shape == arg->shape) || g->device() != arg->device() || !has_fused_kernel(g))
    return Tensor();
  Tensor out = empty(arg->shape, arg->dtype, arg->device());
  run_fused(*code, {g, arg}, {out}, /*coalesce=*/false);
  return out;
}

}  // namespace monoflow::math_grad
