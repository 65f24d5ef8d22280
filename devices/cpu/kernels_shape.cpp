// Shape and indexing kernels (cat, flip, roll, gather/scatter, masks, pad, index).
#include "launch.h"

namespace mfcpu {

void register_shape_kernels(Registrar& r) { (void)r; }

}  // namespace mfcpu
