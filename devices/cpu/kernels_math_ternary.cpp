// Ternary math kernels: clamp(x, lo, hi), where(cond, x, y), lerp(start, end,
// weight). Operands arrive broadcast to the output's shape; where's cond is
// bool, every other operand has the kernel's dtype.
#include <type_traits>

#include "kernels_math.h"

namespace mfcpu {
namespace {

// A NaN bound gives NaN; lo > hi gives hi everywhere (torch's clamp).
struct Clamp {
  static constexpr const char* name = "clamp";
  template <class S>
  S operator()(S x, S lo, S hi) const {
    const auto xv = load(x), lv = load(lo), hv = load(hi);
    if (lv != lv) return lo;
    if (hv != hv) return hi;
    const S r = xv < lv ? lo : x;
    return hv < load(r) ? hi : r;
  }
};

// Copies the selected value's bits (no round trip through a compute type).
struct Where {
  static constexpr const char* name = "where";
  template <class S>
  S operator()(boolean c, S x, S y) const {
    return c.v ? x : y;
  }
};

struct Lerp {
  static constexpr const char* name = "lerp";
  template <class S>
  S operator()(S start, S end, S weight) const {
    return store<S>(lerp(load(start), load(end), load(weight)));
  }
};

}  // namespace

void register_math_ternary_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    add_ternary<S, boolean, S, S, Where>(r);
    if constexpr (!std::is_same<S, boolean>::value) add_ternary<S, S, S, S, Clamp>(r);
    if constexpr (is_floating_v<S>) add_ternary<S, S, S, S, Lerp>(r);
  });
}

}  // namespace mfcpu
