// Elementwise math kernels (unary functions, activations, pow, clamp, where,
// logical/bitwise): one file per operand count, registered from here.
#include "kernels_math.h"

namespace mfcpu {

void register_math_kernels(Registrar& r) {
  register_math_unary_kernels(r);
  register_math_binary_kernels(r);
  register_math_ternary_kernels(r);
}

}  // namespace mfcpu
