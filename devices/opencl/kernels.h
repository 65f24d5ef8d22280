// Kernel registration: each kernels_*.cpp adds its ops through a Registrar.
#pragma once

#include <array>
#include <string>

#include "launch.h"

namespace mfocl {

class Registrar {
 public:
  explicit Registrar(const MFHostApi* host);
  void add(const char* op, int32_t in_dtype, int32_t out_dtype, MFKernelFn fn);
  // Whether every device has kernels for dtype (float64 needs cl_khr_fp64).
  bool supports(int32_t dtype) const;

 private:
  const MFHostApi* host_;
};

void register_elementwise_kernels(Registrar& r);
void register_reduce_kernels(Registrar& r);
void register_matmul_kernels(Registrar& r);
void register_conv_kernels(Registrar& r);
void register_index_kernels(Registrar& r);

}  // namespace mfocl
