// The backward of the common activations as one fused pass (Note [Fused
// activation backward] in ops_math_grad_fused.cc).
#pragma once

#include "monoflow/ops_math.h"

namespace monoflow::math_grad {

// g times the derivative of unary op `op` at x (or from its result y), in
// one fused_elementwise launch; a null Tensor where there is none: no
// program for `op`, no fused kernel for the dtype, operands that differ in
// dtype or shape, or grad mode on (a create_graph backward must record
// differentiable ops).
Tensor unary_fused(int op, const Tensor& g, const Tensor& x, const Tensor& y, UnaryParams p);

}  // namespace monoflow::math_grad
