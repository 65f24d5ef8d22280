// Element types: the C++ storage type of every MFDType, the type kernels
// compute in, exact casts between them, and the runtime -> template dispatch.
#pragma once

#include <monoflow/plugin.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "half.h"

namespace mfcpu {

// Bool tensors are one byte holding 0 or 1 (numpy's layout). A distinct type
// (not uint8_t) so templates can tell bool and uint8 apart.
struct boolean {
  uint8_t v;
};

template <class S>
struct Traits {  // integers and native floats compute in themselves
  using compute = S;
};
template <>
struct Traits<boolean> {
  using compute = int32_t;  // arithmetic on 0/1, stored back as (result != 0)
};
template <>
struct Traits<half> {
  using compute = float;
};
template <>
struct Traits<bfloat16> {
  using compute = float;
};

template <class S>
using compute_t = typename Traits<S>::compute;

template <class S>
constexpr bool is_floating_v = std::is_floating_point<S>::value || std::is_same<S, half>::value ||
                               std::is_same<S, bfloat16>::value;
template <class S>
constexpr bool is_integer_v = std::is_integral<S>::value;  // excludes boolean

// ------------------------------------------------------------ load / store

template <class S>
inline compute_t<S> load(S x) {
  if constexpr (std::is_same<S, boolean>::value) return x.v != 0;
  else if constexpr (std::is_same<S, half>::value) return half_to_float(x.bits);
  else if constexpr (std::is_same<S, bfloat16>::value) return bfloat16_to_float(x.bits);
  else return x;
}

// Stores a compute-type value (the single rounding step for half/bfloat16).
template <class S>
inline S store(compute_t<S> c) {
  if constexpr (std::is_same<S, boolean>::value) return boolean{uint8_t(c != 0)};
  else if constexpr (std::is_same<S, half>::value) return half{float_to_half(c)};
  else if constexpr (std::is_same<S, bfloat16>::value) return bfloat16{float_to_bfloat16(c)};
  else return c;
}

// Integer arithmetic wraps (two's complement) instead of being UB: operate in
// an unsigned type of at least `unsigned` width, then narrow.
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) <= sizeof(uint32_t)), uint32_t, uint64_t>;

// ------------------------------------------------------------ casts (copy)

// Float -> integer truncates toward zero; out-of-range saturates and NaN gives
// 0 (C++ leaves those undefined, numpy merely warns).
template <class I, class F>
inline I float_to_int(F v) {
  if (!(v == v)) return 0;
  if (v <= F(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= F(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return I(v);
}

template <class To, class From>
inline To cast(From x) {
  if constexpr (std::is_same<To, From>::value) {
    return x;
  } else if constexpr (std::is_same<From, half>::value || std::is_same<From, bfloat16>::value) {
    return cast<To>(load(x));  // exact widening to float
  } else if constexpr (std::is_same<From, boolean>::value) {
    return cast<To>(uint8_t(x.v != 0));
  } else if constexpr (std::is_same<To, boolean>::value) {
    return boolean{uint8_t(x != 0)};
  } else if constexpr (std::is_same<To, half>::value || std::is_same<To, bfloat16>::value) {
    if constexpr (std::is_same<From, float>::value) return store<To>(x);
    if constexpr (std::is_integral<From>::value && sizeof(From) <= 2) return store<To>(float(x));
    const double d = double(x);  // exact for double and |ints| < 2^53
    if constexpr (std::is_same<To, half>::value) return half{double_to_half(d)};
    else return bfloat16{double_to_bfloat16(d)};
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    return float_to_int<To>(x);
  } else {
    return static_cast<To>(x);  // int->int wraps (modular), int->float / float->float round
  }
}

// ------------------------------------------------------------ dispatch

template <class S>
struct Tag {
  using type = S;
};

template <class S>
struct DTypeOf;
#define MFCPU_DTYPE(T, D) \
  template <>             \
  struct DTypeOf<T> {     \
    static constexpr MFDType value = D; \
  };
MFCPU_DTYPE(boolean, MF_BOOL)
MFCPU_DTYPE(uint8_t, MF_UINT8)
MFCPU_DTYPE(int8_t, MF_INT8)
MFCPU_DTYPE(int16_t, MF_INT16)
MFCPU_DTYPE(int32_t, MF_INT32)
MFCPU_DTYPE(int64_t, MF_INT64)
MFCPU_DTYPE(half, MF_FLOAT16)
MFCPU_DTYPE(bfloat16, MF_BFLOAT16)
MFCPU_DTYPE(float, MF_FLOAT32)
MFCPU_DTYPE(double, MF_FLOAT64)
#undef MFCPU_DTYPE

template <class S>
constexpr MFDType dtype_of = DTypeOf<S>::value;

// Calls f(Tag<S>{}) for the storage type S of `dtype`; returns false if unknown.
template <class F>
bool dispatch_dtype(int32_t dtype, F&& f) {
  switch (dtype) {
    case MF_BOOL: f(Tag<boolean>{}); return true;
    case MF_UINT8: f(Tag<uint8_t>{}); return true;
    case MF_INT8: f(Tag<int8_t>{}); return true;
    case MF_INT16: f(Tag<int16_t>{}); return true;
    case MF_INT32: f(Tag<int32_t>{}); return true;
    case MF_INT64: f(Tag<int64_t>{}); return true;
    case MF_FLOAT16: f(Tag<half>{}); return true;
    case MF_BFLOAT16: f(Tag<bfloat16>{}); return true;
    case MF_FLOAT32: f(Tag<float>{}); return true;
    case MF_FLOAT64: f(Tag<double>{}); return true;
    default: return false;
  }
}

// Calls f(Tag<S>{}) for every dtype (used at registration time).
template <class F>
void for_each_dtype(F&& f) {
  for (int32_t d = 0; d < MF_NUM_DTYPES; ++d) dispatch_dtype(d, f);
}

inline size_t dtype_size(int32_t dtype) {
  size_t size = 0;
  dispatch_dtype(dtype, [&](auto tag) { size = sizeof(typename decltype(tag)::type); });
  return size;
}

// Data-movement kernels (gather, flip, ...) only copy bits: one unsigned
// type per element size serves every dtype of that size.
template <size_t N>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = uint8_t;
};
template <>
struct BitsOf<2> {
  using type = uint16_t;
};
template <>
struct BitsOf<4> {
  using type = uint32_t;
};
template <>
struct BitsOf<8> {
  using type = uint64_t;
};
template <class S>
using bits_t = typename BitsOf<sizeof(S)>::type;

}  // namespace mfcpu
