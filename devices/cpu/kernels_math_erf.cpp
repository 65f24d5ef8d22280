// erf and gelu, the unary kernels built on fast_math.h's longest bodies. They
// have a file of their own because in kernels_math_unary.cpp's many
// instantiations GCC stops inlining (--param inline-unit-growth) before the
// map loop's functor call, which leaves that loop a scalar call per element.
#include <cmath>
#include <type_traits>

#include "fast_math.h"
#include "kernels_math.h"

namespace mfcpu {
namespace {

struct Erf : NoAttrs {
  static constexpr const char* name = "erf";
  template <class C>
  inline __attribute__((always_inline)) C operator()(C x) const {
    return erf_of(x);
  }
};

// approximate: 0 = "none" (exact, with erf), 1 = "tanh".
struct Gelu : NoAttrs {
  static constexpr const char* name = "gelu";
  static constexpr const char* attr0 = "approximate";
  bool tanh_approximation = false;
  void init(const Task& t) { tanh_approximation = t.ival[0] != 0; }
  template <class C>
  static C with_tanh(C x) {
    const C kBeta = C(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = C(0.044715);
    return C(0.5) * x * (C(1) + tanh_of(kBeta * (x + kKappa * x * x * x)));
  }
  template <class C>
  static C with_erf(C x) {
    return x * C(0.5) * (C(1) + erf_of(x * C(M_SQRT1_2)));
  }
  // For float both forms are computed and one picked without a branch (a
  // branch keeps the loop scalar: the flag lives in memory the loop's stores
  // might alias, so GCC cannot hoist it); twice the arithmetic, 8 lanes wide.
  template <class C>
  inline __attribute__((always_inline)) C operator()(C x) const {
    if constexpr (std::is_same<C, float>::value) return fast::select(tanh_approximation, with_tanh(x), with_erf(x));
    else return tanh_approximation ? with_tanh(x) : with_erf(x);
  }
};

}  // namespace

void register_math_erf_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) {
      add_map<S, S, Erf>(r);
      add_map<S, S, Gelu>(r);
    }
  });
}

}  // namespace mfcpu
