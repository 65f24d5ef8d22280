// Random number kernels (counter-based, reproducible from seed and offset).
#include "launch.h"

namespace mfcpu {

void register_random_kernels(Registrar& r) { (void)r; }

}  // namespace mfcpu
