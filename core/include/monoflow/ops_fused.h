// Fused elementwise updates: add with alpha, addcmul, addcdiv (as torch's).
// Each is one kernel pass for operands of one floating dtype; other dtype
// mixes are composed from add/mul/div (same results, more passes).
#pragma once

#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

// a + alpha * b, broadcasting.
Tensor add_alpha(const Tensor& a, const Tensor& b, Scalar alpha);
void add_alpha_(const Tensor& self, const Tensor& b, Scalar alpha);
// self + value * t1 * t2, broadcasting.
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
void addcmul_(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
// self + value * t1 / t2, broadcasting; t1 and t2 must not both be integral.
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);
void addcdiv_(const Tensor& self, const Tensor& t1, const Tensor& t2, Scalar value);

// SGD's momentum update in one pass, in place on p and buf:
//   buf = momentum * buf + scale * g  (scale = 1 - dampening);  p = p + (-lr) * buf
// rounded as the three-op chain buf.mul_(momentum).add_(g, alpha=scale),
// p.add_(buf, alpha=-lr). Not differentiable (optimizers run under no_grad);
// with grad mode on and a tensor that requires grad, it runs that chain.
void sgd_momentum_(const Tensor& p, const Tensor& buf, const Tensor& g, double momentum, double scale, double lr);

}  // namespace monoflow
