// Elementwise math kernels (unary functions, activations, pow, clamp, where, logical/bitwise).
#include "launch.h"

namespace mfcpu {

void register_math_kernels(Registrar& r) { (void)r; }

}  // namespace mfcpu
