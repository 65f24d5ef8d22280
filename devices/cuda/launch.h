// The host half of every kernel: check the MFKernelCall, pack its shapes and
// strides into a by-value argument struct (kernel_args.h), launch.
#pragma once

#include <monoflow/plugin.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "context.h"
#include "kernel_args.h"

namespace mfcuda {

// Kernel name suffixes in MFDType order (kernels.cu's MFC_DTYPES).
inline const char* dtype_suffix(int32_t dtype) {
  static const char* const names[] = {"b8", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  if (dtype < 0 || dtype > MF_FLOAT64) fail(MF_ERR_UNSUPPORTED, "no kernels for dtype " + std::to_string(dtype));
  return names[dtype];
}
inline size_t dtype_size(int32_t dtype) {
  static const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  dtype_suffix(dtype);
  return sizes[dtype];
}
inline const char* size_suffix(size_t bytes) {
  switch (bytes) {
    case 1: return "1";
    case 2: return "2";
    case 4: return "4";
    case 8: return "8";
  }
  fail(MF_ERR_UNSUPPORTED, "no kernels for elements of " + std::to_string(bytes) + " bytes");
}
inline bool is_floating(int32_t dtype) { return dtype >= MF_FLOAT16 && dtype <= MF_FLOAT64; }

inline std::string kernel_name(const char* family, const char* suffix) {
  return std::string("mfc_") + family + "_" + suffix;
}

inline const MFAttr* find_attr(const MFKernelCall* call, const char* name) {
  for (int32_t i = 0; i < call->num_attrs; ++i)
    if (call->attrs[i].name && std::strcmp(call->attrs[i].name, name) == 0) return &call->attrs[i];
  return nullptr;
}
inline const MFAttr& scalar_attr(const char* op, const MFKernelCall* call, const char* name) {
  const MFAttr* a = find_attr(call, name);
  if (!a || a->kind != MF_ATTR_SCALAR) invalid(op, std::string("missing scalar attribute '") + name + "'");
  return *a;
}

// The common checks; returns the device, made current.
Device& check_call(const char* op, const MFKernelCall* call, int num_inputs, int num_outputs);

// Elementwise operands: out first, then the inputs, all of out's shape.
// Dims are coalesced again (size-1 dims dropped, mergeable neighbours merged)
// so that at most MFC_MAX_DIMS remain; returns false when there is nothing
// to do (zero elements).
bool pack_elementwise(const char* op, const MFTensorDesc* const* operands, int n, ElemArgs* out);
// The same for a call's outputs[0] followed by its inputs.
bool pack_call(const char* op, const MFKernelCall* call, ElemArgs* out);

// The bits of `attr` stored as `dtype` (floating kernels read f, others i).
int64_t scalar_bits(int32_t dtype, const MFAttr& attr);

// cuBLAS (kernels_matmul.cpp): the device's handle (NULL without cuBLAS),
// and one column-major strided-batched GEMM on `stream`:
// C = op(A) op(B) (+ C when accumulating), in the dtype, float32 or float64 compute.
cublasHandle_t blas_handle(Device& d);
void gemm(Device& d, MFStream stream, int32_t dtype, int ta, int tb, int64_t m, int64_t n, int64_t k, const void* A,
          int64_t lda, int64_t sA, const void* B, int64_t ldb, int64_t sB, void* C, int64_t ldc, int64_t sC,
          int64_t batch, bool accumulate);

// Registration helper: keeps the first failure.
class Registrar {
 public:
  explicit Registrar(const MFHostApi* host) : host_(host) {}
  void done() const {
    if (status_ != MF_OK) fail(status_, "registering kernel '" + failed_ + "' failed");
  }
  void add(const char* op, int32_t in, int32_t out, MFKernelFn fn) {
    const MFStatus s = host_->register_kernel(host_->registry, op, in, out, fn);
    if (s != MF_OK && status_ == MF_OK) status_ = s, failed_ = op;
  }

 private:
  const MFHostApi* host_;
  MFStatus status_ = MF_OK;
  std::string failed_;
};

}  // namespace mfcuda
