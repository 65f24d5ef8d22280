// Dispatch: from prepared operands to a device kernel.
//
// Note [CPU fallback]
//   When a device has no kernel for (op, dtype), the op runs on the CPU: the
//   bytes each operand covers are copied to host memory, the CPU kernel runs
//   on views with the same strides, and the outputs' bytes are copied back.
//   A warning is emitted once per (device, op) and every fallback is counted.
#pragma once
#include <functional>
#include <initializer_list>
#include <string>

#include "monoflow/op_registry.h"
#include "monoflow/plugin.h"
#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

struct LaunchArgs {
  const OpDef* op;
  DType kernel_dtype;  // the dtype the kernel is registered for (inputs' dtype)
  const Tensor* inputs = nullptr;
  int num_inputs = 0;
  const Tensor* outputs = nullptr;
  int num_outputs = 0;
  const MFAttr* attrs = nullptr;
  int num_attrs = 0;
  // Elementwise ops: all operands have one shape, so adjacent dims that are
  // contiguous in every operand can be merged before the call.
  bool coalesce = false;
};

void launch(const LaunchArgs& args);

// The common case: one output, inputs and scalar attributes inline.
void launch(int op_id, DType kernel_dtype, std::initializer_list<Tensor> inputs, const Tensor& out,
            std::initializer_list<MFAttr> attrs = {}, bool coalesce = false);

// Scalar attributes carry the value as both int64 and double (docs/kernels.md).
MFAttr scalar_attr(const char* name, Scalar s);
MFAttr int_attr(const char* name, int64_t v);
// An ints attribute viewing `count` values at `v` (which must outlive the launch).
MFAttr ints_attr(const char* name, const int64_t* v, int32_t count);
MFAttr float_attr(const char* name, double v);  // `i` is 0 where the cast is undefined

// Receives the one-time warnings ("testdev: no kernel for ..."); the Python
// layer installs a handler that turns them into Python warnings.
using WarningHandler = std::function<void(const std::string&)>;
void set_warning_handler(WarningHandler handler);
void warn(const std::string& message);

}  // namespace monoflow
