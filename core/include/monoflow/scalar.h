// Scalar: a Python number crossing into the core (bool, int or float).
#pragma once
#include <cstdint>

#include "monoflow/dtype.h"

namespace monoflow {

struct Scalar {
  enum Kind : int8_t { Bool, Int, Float } kind = Int;
  int64_t i = 0;
  double f = 0.0;

  static Scalar from_bool(bool v) { return Scalar{Bool, v ? 1 : 0, v ? 1.0 : 0.0}; }
  static Scalar from_int(int64_t v) { return Scalar{Int, v, static_cast<double>(v)}; }
  static Scalar from_float(double v) {
    // `i` truncates like a C cast where that is defined; NaN and values
    // outside int64 get 0 (the fill/copy paths check ranges themselves).
    bool fits = v > -9223372036854775808.0 && v < 9223372036854775808.0;
    return Scalar{Float, fits ? static_cast<int64_t>(v) : 0, v};
  }
  // The dtype PyTorch gives a Python number for type promotion.
  DType dtype() const { return kind == Bool ? DType::Bool : kind == Int ? DType::Int64 : DType::Float64; }
};

}  // namespace monoflow
