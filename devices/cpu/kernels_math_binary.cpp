// Binary math kernels: pow, atan2, remainder, fmod, logical and bitwise ops,
// clamp_min/clamp_max and lerp with a scalar weight. Both inputs share the
// kernel's dtype (the core promotes and broadcasts them).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels_math.h"

namespace mfcpu {
namespace {

template <class C>
using W = wrap_t<C>;

// Integer power by squaring in wrapping arithmetic (so overflow wraps as in
// torch). A negative exponent gives 1 for base 1, +-1 for base -1 and 0
// otherwise (torch's integer pow; a Python-number exponent < 0 is refused by
// the core before this).
template <class C>
C ipow(C base, C exp) {
  if constexpr (std::is_signed<C>::value) {
    if (exp < 0) {
      if (base == 1) return C(1);
      if (base == -1) return (exp & 1) ? C(-1) : C(1);
      return C(0);
    }
  }
  W<C> result = 1, b = W<C>(base);
  for (uint64_t e = uint64_t(exp); e; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return C(result);
}

struct Pow : NoAttrs {
  static constexpr const char* name = "pow";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      return ipow(a, b);
    } else {
      // x ** 2 (the common case, usually a scalar exponent) without a libm
      // call: pow(a, 2) is the correctly rounded a * a, so the result is the same.
      if (b == C(2)) return a * a;
      return std::pow(a, b);
    }
  }
};

struct Atan2 : NoAttrs {
  static constexpr const char* name = "atan2";
  template <class C>
  C operator()(C a, C b) const {
    return std::atan2(a, b);
  }
};

// Python's %: the result takes the divisor's sign. x % -1 is 0 (computed
// apart, as INT_MIN % -1 traps on x86).
struct Remainder : ZeroDivisionFlag {
  static constexpr const char* name = "remainder";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      if (b == 0) {
        raise();
        return 0;
      }
      if constexpr (std::is_signed<C>::value) {
        if (b == -1) return 0;
        C r = C(a % b);
        if (r != 0 && ((r < 0) != (b < 0))) r = C(r + b);
        return r;
      } else {
        return C(a % b);
      }
    } else {
      C mod = std::fmod(a, b);
      if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
      return mod;
    }
  }
};

// C's %: the result takes the dividend's sign.
struct Fmod : ZeroDivisionFlag {
  static constexpr const char* name = "fmod";
  template <class C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral<C>::value) {
      if (b == 0) {
        raise();
        return 0;
      }
      if constexpr (std::is_signed<C>::value)
        if (b == -1) return 0;
      return C(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

struct LogicalAnd : NoAttrs {
  static constexpr const char* name = "logical_and";
  template <class C>
  bool operator()(C a, C b) const {
    return (a != C(0)) && (b != C(0));
  }
};
struct LogicalOr : NoAttrs {
  static constexpr const char* name = "logical_or";
  template <class C>
  bool operator()(C a, C b) const {
    return (a != C(0)) || (b != C(0));
  }
};
struct LogicalXor : NoAttrs {
  static constexpr const char* name = "logical_xor";
  template <class C>
  bool operator()(C a, C b) const {
    return (a != C(0)) != (b != C(0));
  }
};

// Bool computes in int32 holding 0/1, so &, |, ^ stay 0/1.
struct BitwiseAnd : NoAttrs {
  static constexpr const char* name = "bitwise_and";
  template <class C>
  C operator()(C a, C b) const {
    return C(a & b);
  }
};
struct BitwiseOr : NoAttrs {
  static constexpr const char* name = "bitwise_or";
  template <class C>
  C operator()(C a, C b) const {
    return C(a | b);
  }
};
struct BitwiseXor : NoAttrs {
  static constexpr const char* name = "bitwise_xor";
  template <class C>
  C operator()(C a, C b) const {
    return C(a ^ b);
  }
};

// A NaN in either operand gives NaN (torch's clamp_min/clamp_max).
struct ClampMin : NoAttrs {
  static constexpr const char* name = "clamp_min";
  template <class C>
  C operator()(C x, C lo) const {
    if (lo != lo) return lo;
    return x < lo ? lo : x;
  }
};
struct ClampMax : NoAttrs {
  static constexpr const char* name = "clamp_max";
  template <class C>
  C operator()(C x, C hi) const {
    if (hi != hi) return hi;
    return hi < x ? hi : x;
  }
};

struct LerpScalar : NoAttrs {
  static constexpr const char* name = "lerp_scalar";
  static constexpr const char* attr0 = "weight";
  double weight = 0;
  void init(const Task& t) { weight = t.fval[0]; }
  template <class C>
  C operator()(C start, C end) const {
    return lerp(start, end, C(weight));
  }
};

}  // namespace

void register_math_binary_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    add_binary<S, Pow>(r);
    add_binary<S, LogicalAnd, boolean>(r);
    add_binary<S, LogicalOr, boolean>(r);
    add_binary<S, LogicalXor, boolean>(r);
    if constexpr (!std::is_same<S, boolean>::value) {
      add_binary<S, Remainder>(r);
      add_binary<S, Fmod>(r);
      add_binary<S, ClampMin>(r);
      add_binary<S, ClampMax>(r);
    }
    if constexpr (!is_floating_v<S>) {
      add_binary<S, BitwiseAnd>(r);
      add_binary<S, BitwiseOr>(r);
      add_binary<S, BitwiseXor>(r);
    }
    if constexpr (is_floating_v<S>) {
      add_binary<S, Atan2>(r);
      add_binary<S, LerpScalar>(r);
    }
  });
}

}  // namespace mfcpu
