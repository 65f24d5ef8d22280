#include "monoflow/dtype.h"

#include <atomic>

namespace monoflow {

size_t itemsize(DType t) {
  static constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return sizes[static_cast<int>(t)];
}

const char* dtype_name(DType t) {
  static constexpr const char* names[] = {"bool",  "uint8",   "int8",     "int16",   "int32",
                                          "int64", "float16", "bfloat16", "float32", "float64",
                                          "complex64", "complex128"};
  return names[static_cast<int>(t)];
}

const char* dtype_torch_name(DType t) {
  static constexpr const char* names[] = {"Bool", "Byte", "Char",     "Short", "Int",
                                          "Long", "Half", "BFloat16", "Float", "Double",
                                          "ComplexFloat", "ComplexDouble"};
  return names[static_cast<int>(t)];
}

static int category(DType t) {
  return t == DType::Bool ? 0 : is_complex(t) ? 3 : is_floating(t) ? 2 : 1;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Bool) return b;
  if (b == DType::Bool) return a;
  int ca = category(a), cb = category(b);
  if (ca == 3 || cb == 3) {
    // complex with anything: a complex whose parts hold both (torch: float64
    // + complex64 -> complex128; float16 + complex64 -> complex64)
    const DType c = ca == 3 ? a : b, o = ca == 3 ? b : a;
    const bool wide = c == DType::Complex128 || o == DType::Complex128 || o == DType::Float64;
    return wide ? DType::Complex128 : DType::Complex64;
  }
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {  // both floating
    if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
      return DType::Float32;
    return itemsize(a) > itemsize(b) ? a : b;
  }
  // both integral: uint8 mixes with a signed type into the next signed type
  // that holds both
  if (a == DType::UInt8 || b == DType::UInt8) {
    DType s = a == DType::UInt8 ? b : a;
    return s == DType::Int8 ? DType::Int16 : s;
  }
  return itemsize(a) >= itemsize(b) ? a : b;
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

static std::atomic<int> g_default_float{static_cast<int>(DType::Float32)};
DType default_float_dtype() { return static_cast<DType>(g_default_float.load()); }
void set_default_float_dtype(DType t) { g_default_float.store(static_cast<int>(t)); }

static void merge(int& slot, DType t) {
  slot = slot < 0 ? static_cast<int>(t) : static_cast<int>(promote_types(static_cast<DType>(slot), t));
}

void PromotionState::add_tensor(DType t, bool zero_dim) { merge(zero_dim ? zero_result : dim_result, t); }

void PromotionState::add_scalar(DType t) {
  // A Python float takes the default dtype when it decides the category.
  // A Python complex likewise takes the complex dtype of the default one.
  if (t == DType::Complex128)
    t = default_float_dtype() == DType::Float64 ? DType::Complex128 : DType::Complex64;
  else if (t == DType::Float64)
    t = default_float_dtype();
  merge(wrapped_result, t);
}

DType PromotionState::result() const {
  auto combine = [](int higher, int lower) -> int {
    if (higher < 0) return lower;
    if (lower < 0) return higher;
    DType h = static_cast<DType>(higher), l = static_cast<DType>(lower);
    return category(l) > category(h) ? static_cast<int>(promote_types(h, l)) : higher;
  };
  int r = combine(combine(dim_result, zero_result), wrapped_result);
  return r < 0 ? default_float_dtype() : static_cast<DType>(r);
}

}  // namespace monoflow
