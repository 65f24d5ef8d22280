// Elementwise reductions used by the engines' reduce callbacks and by the
// local step of reduce-scatter.
//
// Note [Reduction loops and AVX2]
//   The loops are plain C++ that the compiler vectorises. The library is
//   built for baseline x86-64 (SSE2), so every loop is compiled twice: once
//   as is and once inside a target("avx2") function, and the AVX2 copy is
//   picked at run time when the CPU has it. The per-element expression is the
//   same in both, so results are bit-identical (no FMA, no reassociation: each
//   output element is one operation on two inputs).
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

// Inlined into both the baseline and the AVX2 entry points below, so that each
// copy of the loop is vectorised for its own target. out may alias a or b
// (Gloo reduces in place), so no __restrict.
template <typename T, typename F>
[[gnu::always_inline]] inline void apply(void* out, const void* a, const void* b, size_t n, F f) {
  auto* o = static_cast<T*>(out);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  for (size_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
}

template <typename T>
[[gnu::always_inline]] inline void reduce_typed(void* out, const void* a, const void* b, size_t n, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return apply<T>(out, a, b, n, [](T x, T y) { return T(x + y); });
    case ReduceOp::Prod: return apply<T>(out, a, b, n, [](T x, T y) { return T(x * y); });
    case ReduceOp::Min: return apply<T>(out, a, b, n, [](T x, T y) { return std::min(x, y); });
    case ReduceOp::Max: return apply<T>(out, a, b, n, [](T x, T y) { return std::max(x, y); });
  }
}

// bool as PyTorch reduces it: sum/max = any, prod/min = all.
[[gnu::always_inline]] inline void reduce_bool(void* out, const void* a, const void* b, size_t n, ReduceOp op) {
  bool any = op == ReduceOp::Sum || op == ReduceOp::Max || op == ReduceOp::Avg;
  if (any) return apply<uint8_t>(out, a, b, n, [](uint8_t x, uint8_t y) { return uint8_t(x | y); });
  apply<uint8_t>(out, a, b, n, [](uint8_t x, uint8_t y) { return uint8_t(x & y); });
}

// Returns false for the dtypes that need float32 staging.
[[gnu::always_inline]] inline bool reduce_dispatch(void* out, const void* a, const void* b, size_t n, DType dtype,
                                                   ReduceOp op) {
  switch (dtype) {
    case DType::Bool: reduce_bool(out, a, b, n, op); return true;
    case DType::UInt8: reduce_typed<uint8_t>(out, a, b, n, op); return true;
    case DType::Int8: reduce_typed<int8_t>(out, a, b, n, op); return true;
    case DType::Int16: reduce_typed<int16_t>(out, a, b, n, op); return true;
    case DType::Int32: reduce_typed<int32_t>(out, a, b, n, op); return true;
    case DType::Int64: reduce_typed<int64_t>(out, a, b, n, op); return true;
    case DType::Float32: reduce_typed<float>(out, a, b, n, op); return true;
    case DType::Float64: reduce_typed<double>(out, a, b, n, op); return true;
    default: return false;
  }
}

bool reduce_baseline(void* out, const void* a, const void* b, size_t n, DType dtype, ReduceOp op) {
  return reduce_dispatch(out, a, b, n, dtype, op);
}

template <typename T>
[[gnu::always_inline]] inline void divide_typed(void* buf, size_t n, int k) {
  auto* p = static_cast<T*>(buf);
  for (size_t i = 0; i < n; ++i) p[i] /= T(k);
}

bool divide_baseline(void* buf, size_t n, DType dtype, int k) {
  if (dtype == DType::Float32) return divide_typed<float>(buf, n, k), true;
  if (dtype == DType::Float64) return divide_typed<double>(buf, n, k), true;
  return false;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MONOFLOW_REDUCE_AVX2 1
[[gnu::target("avx2")]] bool reduce_avx2(void* out, const void* a, const void* b, size_t n, DType dtype,
                                         ReduceOp op) {
  return reduce_dispatch(out, a, b, n, dtype, op);
}
[[gnu::target("avx2")]] bool divide_avx2(void* buf, size_t n, DType dtype, int k) {
  if (dtype == DType::Float32) return divide_typed<float>(buf, n, k), true;
  if (dtype == DType::Float64) return divide_typed<double>(buf, n, k), true;
  return false;
}
bool have_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

void reduce_into(void* out, const void* a, const void* b, size_t n, DType dtype, ReduceOp op) {
#ifdef MONOFLOW_REDUCE_AVX2
  bool done = have_avx2() ? reduce_avx2(out, a, b, n, dtype, op) : reduce_baseline(out, a, b, n, dtype, op);
#else
  bool done = reduce_baseline(out, a, b, n, dtype, op);
#endif
  if (!done)
    throw CommError(std::string("reduction on ") + dtype_name(dtype) +
                    " is computed through float32 staging; the engine got it unstaged");
}

void divide_by(void* buf, size_t n, DType dtype, int k) {
#ifdef MONOFLOW_REDUCE_AVX2
  bool done = have_avx2() ? divide_avx2(buf, n, dtype, k) : divide_baseline(buf, n, dtype, k);
#else
  bool done = divide_baseline(buf, n, dtype, k);
#endif
  if (!done) throw CommError(std::string("ReduceOp.AVG needs a floating dtype, got ") + dtype_name(dtype));
}

}  // namespace monoflow::collective
