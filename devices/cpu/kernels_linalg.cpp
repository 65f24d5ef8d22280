// Linear algebra kernels beyond matmul.
#include "launch.h"

namespace mfcpu {

void register_linalg_kernels(Registrar& r) { (void)r; }

}  // namespace mfcpu
