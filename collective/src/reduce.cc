// Elementwise reductions used by the engines' reduce callbacks and by the
// local step of reduce-scatter.
#include <algorithm>
#include <cstdint>
#include <string>

#include "monoflow/collective/types.h"

namespace monoflow::collective {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "SUM";
    case ReduceOp::Prod: return "PRODUCT";
    case ReduceOp::Min: return "MIN";
    case ReduceOp::Max: return "MAX";
    case ReduceOp::Avg: return "AVG";
  }
  return "?";
}

namespace {

template <typename T, typename F>
void apply(void* out, const void* a, const void* b, size_t n, F f) {
  auto* o = static_cast<T*>(out);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
}

template <typename T>
void reduce_typed(void* out, const void* a, const void* b, size_t n, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return apply<T>(out, a, b, n, [](T x, T y) { return T(x + y); });
    case ReduceOp::Prod: return apply<T>(out, a, b, n, [](T x, T y) { return T(x * y); });
    case ReduceOp::Min: return apply<T>(out, a, b, n, [](T x, T y) { return std::min(x, y); });
    case ReduceOp::Max: return apply<T>(out, a, b, n, [](T x, T y) { return std::max(x, y); });
  }
}

// bool as PyTorch reduces it: sum/max = any, prod/min = all.
void reduce_bool(void* out, const void* a, const void* b, size_t n, ReduceOp op) {
  bool any = op == ReduceOp::Sum || op == ReduceOp::Max || op == ReduceOp::Avg;
  if (any) return apply<uint8_t>(out, a, b, n, [](uint8_t x, uint8_t y) { return uint8_t(x | y); });
  apply<uint8_t>(out, a, b, n, [](uint8_t x, uint8_t y) { return uint8_t(x & y); });
}

}  // namespace

void reduce_into(void* out, const void* a, const void* b, size_t n, DType dtype, ReduceOp op) {
  switch (dtype) {
    case DType::Bool: return reduce_bool(out, a, b, n, op);
    case DType::UInt8: return reduce_typed<uint8_t>(out, a, b, n, op);
    case DType::Int8: return reduce_typed<int8_t>(out, a, b, n, op);
    case DType::Int16: return reduce_typed<int16_t>(out, a, b, n, op);
    case DType::Int32: return reduce_typed<int32_t>(out, a, b, n, op);
    case DType::Int64: return reduce_typed<int64_t>(out, a, b, n, op);
    case DType::Float32: return reduce_typed<float>(out, a, b, n, op);
    case DType::Float64: return reduce_typed<double>(out, a, b, n, op);
    default:
      throw CommError(std::string("reduction on ") + dtype_name(dtype) +
                      " is computed through float32 staging; the engine got it unstaged");
  }
}

void divide_by(void* buf, size_t n, DType dtype, int k) {
  if (dtype == DType::Float32) {
    auto* p = static_cast<float*>(buf);
    for (size_t i = 0; i < n; ++i) p[i] /= float(k);
  } else if (dtype == DType::Float64) {
    auto* p = static_cast<double*>(buf);
    for (size_t i = 0; i < n; ++i) p[i] /= double(k);
  } else {
    throw CommError(std::string("ReduceOp.AVG needs a floating dtype, got ") + dtype_name(dtype));
  }
}

}  // namespace monoflow::collective
