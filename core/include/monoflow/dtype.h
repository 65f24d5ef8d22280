// Element types and PyTorch's type-promotion rules.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "monoflow/plugin.h"

namespace monoflow {

enum class DType : int8_t {
  Bool = MF_BOOL,
  UInt8 = MF_UINT8,
  Int8 = MF_INT8,
  Int16 = MF_INT16,
  Int32 = MF_INT32,
  Int64 = MF_INT64,
  Float16 = MF_FLOAT16,
  BFloat16 = MF_BFLOAT16,
  Float32 = MF_FLOAT32,
  Float64 = MF_FLOAT64,
  Complex64 = MF_COMPLEX64,
  Complex128 = MF_COMPLEX128,
};
constexpr int kNumDTypes = MF_NUM_DTYPES;

size_t itemsize(DType t);
const char* dtype_name(DType t);       // "float32"
const char* dtype_torch_name(DType t); // "Float", as PyTorch's messages say it
inline bool is_floating(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
// complex64 -> float32, complex128 -> float64; other dtypes map to themselves.
inline DType real_dtype(DType t) {
  return t == DType::Complex64 ? DType::Float32 : t == DType::Complex128 ? DType::Float64 : t;
}
inline bool is_integral(DType t, bool include_bool) {
  return (t >= DType::UInt8 && t <= DType::Int64) || (include_bool && t == DType::Bool);
}

// promote_types(a, b): the smallest dtype both convert to (torch.promote_types).
DType promote_types(DType a, DType b);
// can_cast(from, to): whether an op computing in `from` may write into `to`
// (float -> integral and non-bool -> bool are refused, as in PyTorch).
bool can_cast(DType from, DType to);

DType default_float_dtype();
void set_default_float_dtype(DType t);

// Operands of an op for type promotion: tensors with dims outrank 0-dim
// tensors, which outrank Python scalars, unless a lower rank has a higher
// category (bool < integral < floating < complex).
struct PromotionState {
  int dim_result = -1, zero_result = -1, wrapped_result = -1;
  void add_tensor(DType t, bool zero_dim);
  void add_scalar(DType t);  // a Python number: Bool, Int64 or Float64
  DType result() const;
};

}  // namespace monoflow
