// The math ops' C++ API: unary functions and activations, pow, atan2,
// remainder/fmod, logical and bitwise ops, clamp, where, lerp.
//
// Python numbers take part like PyTorch's wrapped numbers: they promote with
// PromotionState::add_scalar (int tensor + 2.5 -> float32, float16 tensor * 3.0
// -> float16) and are then converted to the compute dtype, an integer wrapping
// (uint8 tensor + 300 adds 44). Kernel conventions: docs/kernels/math.md.
#pragma once
#include <optional>

#include "monoflow/autograd.h"
#include "monoflow/op_registry.h"
#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

// An operand that Python may give as a tensor or as a number.
struct TensorOrScalar {
  Tensor tensor;  // null for a number (or an absent operand)
  Scalar scalar;
  bool is_scalar = false;

  static TensorOrScalar of(const Tensor& t) { return TensorOrScalar{t, Scalar{}, false}; }
  static TensorOrScalar of(Scalar s) { return TensorOrScalar{nullptr, s, true}; }
  bool present() const { return is_scalar || tensor != nullptr; }
};

// A Python number as a 0-dim tensor of its own dtype (bool, int64, float64)
// marked wrapped_number, for ops that only take tensors (comparisons).
Tensor wrapped_scalar(Scalar s, Device device);

// Unary ops of ops/math.def without attributes (exp ... logical_not). The
// in-place forms refuse a result dtype that can't be cast back to self's.
Tensor math_unary(int op, const Tensor& x);
void math_unary_(int op, const Tensor& self);
// torch.round(x, decimals=d): floating only. (Not `round`, which <cmath> owns.)
Tensor round_decimals(const Tensor& x, int64_t decimals);
void round_decimals_(const Tensor& self, int64_t decimals);
Tensor gelu(const Tensor& x, bool tanh_approximation);
Tensor softplus(const Tensor& x, double beta, double threshold);

// Binary ops (pow ... bitwise_xor); at least one operand is a tensor.
Tensor math_binary(int op, const TensorOrScalar& a, const TensorOrScalar& b);
void math_binary_(int op, const Tensor& self, const TensorOrScalar& b);

// clamp(x, min, max): min and/or max may be absent (not both).
Tensor clamp(const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max);
void clamp_(const Tensor& self, const TensorOrScalar& min, const TensorOrScalar& max);
// where(cond, x, y): cond is bool; x, y promote together.
Tensor where(const Tensor& cond, const TensorOrScalar& x, const TensorOrScalar& y);
// lerp(start, end, weight) = start + weight * (end - start), floating only.
Tensor lerp(const Tensor& start, const Tensor& end, const TensorOrScalar& weight);
void lerp_(const Tensor& self, const Tensor& end, const TensorOrScalar& weight);

// Derivatives of the ops above (ops_math_grad.cc), for their recorders. Each
// returns one gradient per input (null where not needed or not a tensor); a
// Python-number operand's gradient is always null.
namespace math_grad {
struct UnaryParams {
  double a = 0, b = 0;  // gelu: a = tanh approximation; softplus: a = beta, b = threshold
};
// Which of x and the result the backward of a unary op reads.
bool unary_uses_input(int op);
bool unary_uses_output(int op);
Tensor unary(int op, const Tensor& g, const Tensor& x, const Tensor& y, UnaryParams p);
bool binary_saves_operands(int op, autograd::NeedsGrad n);
bool binary_saves_output(int op, autograd::NeedsGrad n);
autograd::TensorList binary(int op, const Tensor& g, const TensorOrScalar& a, const TensorOrScalar& b,
                            const Tensor& out, autograd::NeedsGrad n);
autograd::TensorList clamp(const Tensor& g, const Tensor& x, const TensorOrScalar& min, const TensorOrScalar& max,
                           autograd::NeedsGrad n);
autograd::TensorList where(const Tensor& g, const Tensor& cond, autograd::NeedsGrad n);
autograd::TensorList lerp(const Tensor& g, const Tensor& start, const Tensor& end, const TensorOrScalar& weight,
                          autograd::NeedsGrad n);
}  // namespace math_grad

}  // namespace monoflow
