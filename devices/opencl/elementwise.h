// Elementwise kernels generated from a body of OpenCL C (Note [Elementwise
// bodies]) and launched over an N-d strided iteration space.
#pragma once

#include "launch.h"

namespace mfocl {

// Note [Elementwise bodies]
//   An op is a few lines of OpenCL C run once per element. Inside a body:
//   C is the compute type of the kernel dtype (float for half types) and U its
//   unsigned twin (for wrapping integer arithmetic); Xk is operand k loaded as
//   its compute type (outputs first, then inputs), Rk the raw element lvalue;
//   STk(v) stores v into operand k with the CPU's cast rules; SI0..SI3 and SF0..SF3
//   are the op's scalar attributes (their i and f, in order) (integer / floating); FAIL(code) records an
//   asynchronous error (KernelError) read at the next synchronize.
// One kernel of a program (Note [Programs hold families]).
struct ElementwiseMember {
  std::string name;             // the kernel's name in the program
  std::vector<int32_t> dtypes;  // per operand, outputs first
  Value result;
  std::string body;
};

struct ElementwiseSpec {
  const char* op;
  std::string key;              // names the body; launch adds the dtypes
  int32_t kernel_dtype;         // whose compute type C is
  std::vector<int32_t> dtypes;  // per operand, outputs first
  int num_outputs;
  Value result;                 // kind of the values the body stores
  std::string body;
  // The other kernels built in the same program (may be empty); the launched
  // one is always added. The key must name the family and its dtypes.
  std::vector<ElementwiseMember> family;
  std::string family_key;
  int64_t si[4] = {0, 0, 0, 0};
  double sf[4] = {0, 0, 0, 0};
};

// Resolves the operands (every one with the output's shape) and launches.
void launch_elementwise(const MFKernelCall* call, Stream* s, const ElementwiseSpec& spec);

}  // namespace mfocl
