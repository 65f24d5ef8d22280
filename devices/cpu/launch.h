// The launch half of every kernel: validate the MFKernelCall cheaply (what
// would otherwise make the task read out of bounds), copy it into a stream
// task and return. The task half runs later on the stream's worker thread.
#pragma once

#include <monoflow/plugin.h>

#include <cstring>
#include <string>

#include "error.h"
#include "stream.h"

namespace mfcpu {

struct LaunchSpec {
  int num_inputs;
  int num_outputs;
  int32_t in_dtype;   // every input's dtype
  int32_t out_dtype;  // every output's dtype; MF_DTYPE_ANY: not checked
  const char* attrs[kTaskScalars];  // scalar attributes copied into Task::ival/fval
};

inline const MFAttr* find_attr(const MFKernelCall* call, const char* name) {
  for (int32_t i = 0; i < call->num_attrs; ++i)
    if (call->attrs[i].name && std::strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
  return nullptr;
}

inline bool same_shape(const MFTensorDesc& a, const MFTensorDesc& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

[[noreturn]] inline void invalid(const char* op, const char* what) {
  fail(MF_ERR_INVALID_ARGUMENT, std::string(op) + ": " + what);
}

// Row-major contiguous (size-1 dims may have any stride).
inline bool contiguous(const MFTensorDesc& d) {
  int64_t s = 1;
  for (int32_t k = d.ndim - 1; k >= 0; --k) {
    if (d.shape[k] != 1 && d.strides[k] != s) return false;
    s *= d.shape[k];
  }
  return true;
}

// Reads attribute `name` as `n` ints (an ints attribute, or one scalar repeated).
inline void read_ints(const char* op, const MFKernelCall* call, const char* name, int n, int64_t* out) {
  const MFAttr* a = find_attr(call, name);
  if (!a) invalid(op, (std::string("missing attribute '") + name + "'").c_str());
  if (a->kind == MF_ATTR_SCALAR) {
    for (int k = 0; k < n; ++k) out[k] = a->i;
  } else if (a->kind == MF_ATTR_INTS && a->count == n && a->ints) {
    for (int k = 0; k < n; ++k) out[k] = a->ints[k];
  } else {
    invalid(op, (std::string("bad attribute '") + name + "'").c_str());
  }
}

inline void check_call(const char* op, const MFKernelCall* call, const LaunchSpec& spec) {
  if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
  if (call->device != 0) invalid(op, "no such cpu device");
  if (call->num_inputs != spec.num_inputs || call->num_outputs != spec.num_outputs)
    invalid(op, "wrong number of operands");
  for (int i = 0; i < spec.num_inputs; ++i)
    if (call->inputs[i].dtype != spec.in_dtype) invalid(op, "input dtype does not match the kernel");
  if (spec.out_dtype != MF_DTYPE_ANY)
    for (int i = 0; i < spec.num_outputs; ++i)
      if (call->outputs[i].dtype != spec.out_dtype) invalid(op, "output dtype does not match the kernel");
}

// Elementwise ops: every operand has the output's shape.
inline void check_same_shapes(const char* op, const MFKernelCall* call) {
  for (int i = 0; i < call->num_inputs; ++i)
    if (!same_shape(call->inputs[i], call->outputs[0])) invalid(op, "operand shapes differ");
}

inline void enqueue_call(const char* op, const MFKernelCall* call, const LaunchSpec& spec,
                         Task::Fn fn) {
  int64_t ival[kTaskScalars] = {};
  double fval[kTaskScalars] = {};
  for (int k = 0; k < kTaskScalars && spec.attrs[k]; ++k) {
    const MFAttr* attr = find_attr(call, spec.attrs[k]);
    if (!attr || attr->kind != MF_ATTR_SCALAR)
      invalid(op, (std::string("missing scalar attribute '") + spec.attrs[k] + "'").c_str());
    ival[k] = attr->i;
    fval[k] = attr->f;
  }
  stream_from_handle(call->stream)->enqueue([&](Task& task) {
    task.fn = fn;
    task.set_kernel_call(call);
    for (int k = 0; k < kTaskScalars; ++k) {
      task.ival[k] = ival[k];
      task.fval[k] = fval[k];
    }
  });
}

// Registration helper: collects the first failure of a batch of registrations.
class Registrar {
 public:
  explicit Registrar(const MFHostApi* host) : host_(host) {}
  void add(const char* op, int32_t in_dtype, int32_t out_dtype, MFKernelFn fn) {
    const MFStatus s = host_->register_kernel(host_->registry, op, in_dtype, out_dtype, fn);
    if (s != MF_OK && status_ == MF_OK) {
      status_ = s;
      failed_op_ = op;
    }
  }
  MFStatus status() const { return status_; }
  const std::string& failed_op() const { return failed_op_; }

 private:
  const MFHostApi* host_;
  MFStatus status_ = MF_OK;
  std::string failed_op_;
};

void register_elementwise_kernels(Registrar& r);
void register_copy_kernels(Registrar& r);
void register_reduce_kernels(Registrar& r);
void register_matmul_kernels(Registrar& r);
void register_math_kernels(Registrar& r);
void register_shape_kernels(Registrar& r);
void register_random_kernels(Registrar& r);
void register_linalg_kernels(Registrar& r);

}  // namespace mfcpu
