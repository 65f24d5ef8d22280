// Unary math kernels: floating functions and activations (float dtypes; the
// core casts integer inputs first), dtype-keeping ops (abs, sign, relu,
// rounding, square, bitwise_not) and bool-valued tests. Formulas follow
// PyTorch's CPU kernels so results agree to rounding. Float exp, tanh, erf
// and sigmoid use the vectorisable forms of fast_math.h (Note [Vectorisable
// transcendentals]); erf and gelu live in kernels_math_erf.cpp.
#include <cmath>
#include <limits>
#include <type_traits>

#include "fast_math.h"
#include "kernels_math.h"

namespace mfcpu {
namespace {

#define MF_INLINE inline __attribute__((always_inline))

// ------------------------------------------------------------ floating functions

// (Functors are always inlined: a call left in the map loop keeps it scalar,
// and GCC declines to inline the longer fast_math.h bodies on its own.)
#define MF_FLOAT_UNARY(Name, op_name, expr)         \
  struct Name : NoAttrs {                           \
    static constexpr const char* name = op_name;    \
    template <class C>                              \
    MF_INLINE C operator()(C x) const {             \
      return expr;                                  \
    }                                               \
  };

MF_FLOAT_UNARY(Exp, "exp", exp_of(x))
MF_FLOAT_UNARY(Exp2, "exp2", std::exp2(x))
MF_FLOAT_UNARY(Log, "log", std::log(x))
MF_FLOAT_UNARY(Log2, "log2", std::log2(x))
MF_FLOAT_UNARY(Log10, "log10", std::log10(x))
MF_FLOAT_UNARY(Log1p, "log1p", std::log1p(x))
MF_FLOAT_UNARY(Expm1, "expm1", std::expm1(x))
MF_FLOAT_UNARY(Sqrt, "sqrt", std::sqrt(x))
MF_FLOAT_UNARY(Rsqrt, "rsqrt", C(1) / std::sqrt(x))
MF_FLOAT_UNARY(Sin, "sin", std::sin(x))
MF_FLOAT_UNARY(Cos, "cos", std::cos(x))
MF_FLOAT_UNARY(Tan, "tan", std::tan(x))
MF_FLOAT_UNARY(Asin, "asin", std::asin(x))
MF_FLOAT_UNARY(Acos, "acos", std::acos(x))
MF_FLOAT_UNARY(Atan, "atan", std::atan(x))
MF_FLOAT_UNARY(Sinh, "sinh", std::sinh(x))
MF_FLOAT_UNARY(Cosh, "cosh", std::cosh(x))
MF_FLOAT_UNARY(Tanh, "tanh", tanh_of(x))
MF_FLOAT_UNARY(Asinh, "asinh", std::asinh(x))
MF_FLOAT_UNARY(Acosh, "acosh", std::acosh(x))
MF_FLOAT_UNARY(Atanh, "atanh", std::atanh(x))

MF_FLOAT_UNARY(Erfc, "erfc", std::erfc(x))
MF_FLOAT_UNARY(Reciprocal, "reciprocal", C(1) / x)

MF_FLOAT_UNARY(Floor, "floor", std::floor(x))
MF_FLOAT_UNARY(Ceil, "ceil", std::ceil(x))
MF_FLOAT_UNARY(Trunc, "trunc", std::trunc(x))
MF_FLOAT_UNARY(Round, "round", std::nearbyint(x))  // half to even (the default rounding mode)
#undef MF_FLOAT_UNARY

struct Sigmoid : NoAttrs {
  static constexpr const char* name = "sigmoid";
  template <class C>
  MF_INLINE C operator()(C x) const {
    return sigmoid_of(x);
  }
};

struct Silu : NoAttrs {
  static constexpr const char* name = "silu";
  template <class C>
  MF_INLINE C operator()(C x) const {
    return silu_of(x);
  }
};

// x where beta * x > threshold (linear there, and exp would overflow), else
// log1p(exp(beta * x)) / beta.
struct Softplus : NoAttrs {
  static constexpr const char* name = "softplus";
  static constexpr const char* attr0 = "beta";
  static constexpr const char* attr1 = "threshold";
  double beta = 1, threshold = 20;
  void init(const Task& t) { beta = t.fval[0], threshold = t.fval[1]; }
  template <class C>
  MF_INLINE C operator()(C x) const {
    const C b = C(beta);
    if constexpr (std::is_same<C, float>::value)  // (both sides computed: the loop vectorises)
      return fast::select(x * b > C(threshold), x, softplus_of(x * b) / b);
    else
      return x * b > C(threshold) ? x : softplus_of(x * b) / b;
  }
};

// round(x, decimals): scales by 10^|decimals| at compute precision, rounds
// half to even, scales back (torch's formula, so 10^400 gives NaN as there).
struct RoundDecimals : NoAttrs {
  static constexpr const char* name = "round_decimals";
  static constexpr const char* attr0 = "decimals";
  bool negative = false;
  double ten_pow = 1;
  void init(const Task& t) {
    negative = t.ival[0] < 0;
    ten_pow = std::pow(10.0, double(negative ? -t.ival[0] : t.ival[0]));
  }
  template <class C>
  C operator()(C x) const {
    const C p = C(ten_pow);
    return negative ? std::nearbyint(x / p) * p : std::nearbyint(x * p) / p;
  }
};

// ------------------------------------------------------------ dtype-keeping ops on any dtype

template <class C>
using W = wrap_t<C>;

struct Abs : NoAttrs {
  static constexpr const char* name = "abs";
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) return std::fabs(x);
    else if constexpr (std::is_unsigned<C>::value) return x;
    else return x < 0 ? C(W<C>(0) - W<C>(x)) : x;  // abs(INT_MIN) wraps to INT_MIN, as in torch
  }
};

// NaN gives 0 and -0.0 gives 0, as torch's CPU kernel: (0 < x) - (x < 0).
struct Sign : NoAttrs {
  static constexpr const char* name = "sign";
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned<C>::value) return C(x != 0);
    else return C(int(C(0) < x) - int(x < C(0)));
  }
};

// relu(x) = x < 0 ? 0 : x: keeps -0.0 and NaN, as torch does.
struct Relu : NoAttrs {
  static constexpr const char* name = "relu";
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned<C>::value) return x;
    else return x < C(0) ? C(0) : x;
  }
};

struct Square : NoAttrs {
  static constexpr const char* name = "square";
  template <class C>
  C operator()(C x) const {
    if constexpr (std::is_integral<C>::value) return C(W<C>(x) * W<C>(x));
    else return x * x;
  }
};

struct BitwiseNot : NoAttrs {
  static constexpr const char* name = "bitwise_not";
  template <class C>
  C operator()(C x) const {
    return C(~x);
  }
};
// On bool (0/1 in an int32 compute value) ~ would give -2, i.e. true again.
struct BoolNot : NoAttrs {
  static constexpr const char* name = "bitwise_not";
  template <class C>
  C operator()(C x) const {
    return C(x == 0);
  }
};

// ------------------------------------------------------------ bool-valued

struct IsNan : NoAttrs {
  static constexpr const char* name = "isnan";
  template <class C>
  bool operator()(C x) const {
    return x != x;
  }
};
struct IsInf : NoAttrs {
  static constexpr const char* name = "isinf";
  template <class C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) return std::isinf(x);
    else return false;
  }
};
struct IsFinite : NoAttrs {
  static constexpr const char* name = "isfinite";
  template <class C>
  bool operator()(C x) const {
    if constexpr (std::is_floating_point<C>::value) return std::isfinite(x);
    else return true;
  }
};
struct LogicalNot : NoAttrs {
  static constexpr const char* name = "logical_not";
  template <class C>
  bool operator()(C x) const {
    return x == C(0);
  }
};

template <class S>
void register_floating(Registrar& r) {
  add_map<S, S, Exp>(r);
  add_map<S, S, Exp2>(r);
  add_map<S, S, Log>(r);
  add_map<S, S, Log2>(r);
  add_map<S, S, Log10>(r);
  add_map<S, S, Log1p>(r);
  add_map<S, S, Expm1>(r);
  add_map<S, S, Sqrt>(r);
  add_map<S, S, Rsqrt>(r);
  add_map<S, S, Sin>(r);
  add_map<S, S, Cos>(r);
  add_map<S, S, Tan>(r);
  add_map<S, S, Asin>(r);
  add_map<S, S, Acos>(r);
  add_map<S, S, Atan>(r);
  add_map<S, S, Sinh>(r);
  add_map<S, S, Cosh>(r);
  add_map<S, S, Tanh>(r);
  add_map<S, S, Asinh>(r);
  add_map<S, S, Acosh>(r);
  add_map<S, S, Atanh>(r);
  add_map<S, S, Sigmoid>(r);
  add_map<S, S, Erfc>(r);
  add_map<S, S, Reciprocal>(r);
  add_map<S, S, Silu>(r);
  add_map<S, S, Softplus>(r);
  add_map<S, S, Floor>(r);
  add_map<S, S, Ceil>(r);
  add_map<S, S, Trunc>(r);
  add_map<S, S, Round>(r);
  add_map<S, S, RoundDecimals>(r);
}

}  // namespace

void register_math_erf_kernels(Registrar& r);  // kernels_math_erf.cpp

void register_math_unary_kernels(Registrar& r) {
  register_math_erf_kernels(r);
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) register_floating<S>(r);
    if constexpr (!std::is_same<S, boolean>::value) {
      add_map<S, S, Abs>(r);
      add_map<S, S, Relu>(r);
      add_map<S, S, Square>(r);
    }
    if constexpr (is_integer_v<S>) add_map<S, S, BitwiseNot>(r);
    if constexpr (std::is_same<S, boolean>::value) add_map<S, S, BoolNot>(r);
    add_map<S, S, Sign>(r);
    add_map<boolean, S, IsNan>(r);
    add_map<boolean, S, IsInf>(r);
    add_map<boolean, S, IsFinite>(r);
    add_map<boolean, S, LogicalNot>(r);
  });
}

}  // namespace mfcpu
