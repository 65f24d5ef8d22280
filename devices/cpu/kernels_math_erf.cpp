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

// gelu's two forms, each its own map loop: one form per element keeps the
// loop branch-free (the flag lives in memory the loop's stores might alias,
// so GCC cannot hoist a test of it) at the arithmetic of one form.
struct GeluErf : NoAttrs {
  static constexpr const char* name = "gelu";
  static constexpr const char* attr0 = "approximate";
  template <class C>
  inline __attribute__((always_inline)) C operator()(C x) const {
    return x * C(0.5) * (C(1) + erf_of(x * C(M_SQRT1_2)));
  }
};
struct GeluTanh : GeluErf {
  template <class C>
  inline __attribute__((always_inline)) C operator()(C x) const {
    const C kBeta = C(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = C(0.044715);
    return C(0.5) * x * (C(1) + tanh_of(kBeta * (x + kKappa * x * x * x)));
  }
};

// approximate: 0 = "none" (exact, with erf), 1 = "tanh": picks the loop.
template <class S>
MFStatus launch_gelu(const MFKernelCall* call) {
  const MFAttr* a = find_attr(call, "approximate");
  return a && a->kind == MF_ATTR_SCALAR && a->i != 0 ? launch_map<S, S, GeluTanh>(call)
                                                     : launch_map<S, S, GeluErf>(call);
}

}  // namespace

void register_math_erf_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) {
      add_map<S, S, Erf>(r);
      r.add(GeluErf::name, dtype_of<S>, dtype_of<S>, &launch_gelu<S>);
    }
  });
}

}  // namespace mfcpu
