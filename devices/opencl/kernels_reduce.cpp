#include "kernels.h"
namespace mfocl {
void register_reduce_kernels(Registrar&) {}
}
