// Float exp, tanh, erf and sigmoid written so that the compiler can vectorise a
// loop over them (Note [Vectorisable transcendentals]).
//
// Note [Vectorisable transcendentals]
//   libm's expf/tanhf are scalar calls: a loop over them runs one element at
//   a time (tanh ~30 ns an element here), which made the LSTM cell and
//   GELU's tanh form several times slower than PyTorch's SIMD kernels. These
//   versions have no calls and no branches: both sides of each choice are
//   computed and picked with bit masks (`select`; a plain `c ? a : b` whose
//   arm holds a float operation stays a branch under -ftrapping-math, which
//   blocks vectorisation), so inside the AVX2 clones of the map loops
//   (MFCPU_SIMD_CLONES) GCC turns them into 8-wide code. Accuracy is that of
//   the Cephes float polynomials, within 2 ulp of libm over the whole range,
//   subnormal results included; NaN stays NaN, +-inf give libm's limits.
//   Double keeps libm (the overloads below are float only).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mfcpu {
namespace fast {

#define MFCPU_FAST_INLINE inline __attribute__((always_inline))

MFCPU_FAST_INLINE float from_bits(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

MFCPU_FAST_INLINE int32_t to_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

// c ? a : b without a branch.
MFCPU_FAST_INLINE float select(bool c, float a, float b) {
  const int32_t m = -static_cast<int32_t>(c);
  return from_bits((to_bits(a) & m) | (to_bits(b) & ~m));
}

MFCPU_FAST_INLINE float abs(float x) { return from_bits(to_bits(x) & 0x7fffffff); }

// a * b + c: one rounding in the AVX2 and AVX-512 builds of the plugin, two in the
// baseline one (Note [Three builds of the CPU plugin] in CMakeLists.txt). The
// polynomials below are written with it, so the build decides, not the
// compiler's contraction choices (-ffp-contract=off).
MFCPU_FAST_INLINE float fmadd(float a, float b, float c) {
#ifdef __FMA__
  return __builtin_fmaf(a, b, c);
#else
  return a * b + c;
#endif
}

// e^x: x = n ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 in two parts), the
// Cephes expf polynomial for e^r, and 2^n as two factors 2^(n/2) 2^(n-n/2)
// so that results down to the smallest subnormal come out right.
// e^xc for xc in [-104, 88.72] with n = round(xc / ln2): the polynomial on
// the reduced argument, then the two factors of 2^n.
MFCPU_FAST_INLINE float exp_reduced(float xc, float n) {
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = fmadd(p, r, 1.3981999507e-3f);
  p = fmadd(p, r, 8.3334519073e-3f);
  p = fmadd(p, r, 4.1665795894e-2f);
  p = fmadd(p, r, 1.6666665459e-1f);
  p = fmadd(p, r, 5.0000001201e-1f);
  p = fmadd(p, r * r, r) + 1.0f;
  const int32_t ni = static_cast<int32_t>(n), n1 = ni >> 1, n2 = ni - n1;  // n in [-150, 128]: both halves normal
  return p * from_bits((n1 + 127) << 23) * from_bits((n2 + 127) << 23);
}

MFCPU_FAST_INLINE float exp(float x) {
  constexpr float kHi = 88.7228394f, kLo = -104.0f;  // e^kHi = FLT_MAX; e^kLo < half the smallest subnormal
  float xc = select(x < kHi, x, kHi);  // (NaN lanes compute garbage, replaced at the end)
  xc = select(xc > kLo, xc, kLo);
  // round(xc / ln2) by the 1.5 * 2^23 trick: exact for |t| < 2^22
  const float t = xc * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;
  const float y = exp_reduced(xc, n);
  return select(x != x, x, select(x < kHi, y, std::numeric_limits<float>::infinity()));
}

// e^x for x <= 0 (sigmoid's e^-|x|): exp without the overflow side; NaN
// stays NaN.
MFCPU_FAST_INLINE float exp_nonpositive(float x) {
  constexpr float kLo = -104.0f;
  const float xc = select(x > kLo, x, kLo);  // (NaN -> kLo, replaced at the end)
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  return select(x != x, x, exp_reduced(xc, n));
}

// tanh: the Cephes odd polynomial for |x| < 0.625 (where 1 - 2/(e^2x + 1)
// would cancel), that formula above it; e^2x = inf past 44 gives exactly 1.
// Computed for |x|, then x's sign put back (so tanh(-0) is -0).
MFCPU_FAST_INLINE float tanh(float x) {
  const float ax = abs(x);
  const float z = ax * ax;
  float p = -5.70498872745e-3f;
  p = fmadd(p, z, 2.06390887954e-2f);
  p = fmadd(p, z, -5.37397155531e-2f);
  p = fmadd(p, z, 1.33314422036e-1f);
  p = fmadd(p, z, -3.33332819422e-1f);
  const float small = p * z * ax + ax;
  const float big = 1.0f - 2.0f / (exp(2.0f * ax) + 1.0f);  // NaN stays NaN through exp
  const float t = select(ax < 0.625f, small, big);
  return from_bits(to_bits(t) | (to_bits(x) & INT32_MIN));
}

// erf: for |x| < 1, x P(x^2); above, 1 - e^(-x^2 + L(|x|)) with L a fit of
// log(erfc(x) e^(x^2)) on [1, 4] (polynomials fitted here by least squares
// on Chebyshev nodes, within 2.5 ulp in float); from 4 on erf is 1 in float.
// x's sign put back at the end, so erf(-0) is -0.
MFCPU_FAST_INLINE float erf(float x) {
  const float ax = abs(x);
  const float t = ax * ax;
  float p = 7.88250372e-5f;
  p = fmadd(p, t, -8.01886301e-4f);
  p = fmadd(p, t, 5.18931368e-3f);
  p = fmadd(p, t, -2.68543303e-2f);
  p = fmadd(p, t, 1.12835975e-1f);
  p = fmadd(p, t, -3.76126269e-1f);
  p = fmadd(p, t, 1.12837917f);
  const float small = p * ax;
  const float ac = select(ax < 4.0f, ax, 4.0f);  // NaN -> 4: replaced at the end
  const float u = ac - 2.5f;
  float l = 1.61404523e-6f;
  l = fmadd(l, u, -1.33094112e-5f);
  l = fmadd(l, u, 7.73944900e-5f);
  l = fmadd(l, u, -4.20144497e-4f);
  l = fmadd(l, u, 2.16516023e-3f);
  l = fmadd(l, u, -1.08585171e-2f);
  l = fmadd(l, u, 5.61063598e-2f);
  l = fmadd(l, u, -3.52680681e-1f);
  l = fmadd(l, u, -1.55681528f);
  const float big = 1.0f - exp(l - ac * ac);
  const float r = select(ax < 1.0f, small, big);
  return select(x != x, x, from_bits(to_bits(r) | (to_bits(x) & INT32_MIN)));
}

// 1 / (1 + e^-x), as e^x / (1 + e^x) for x < 0 so that nothing overflows.
MFCPU_FAST_INLINE float sigmoid(float x) {
  const float e = exp_nonpositive(-abs(x));  // NaN stays NaN
  return select(x < 0.0f, e, 1.0f) / (1.0f + e);
}

// log(w) for w in [1, 2] (softplus's log1p): w = 2^e m with m in [sqrt(1/2), sqrt(2)), the
// Cephes logf polynomial in m - 1, ln2 in two parts.
MFCPU_FAST_INLINE float log_1_to_2(float w) {
  const bool high = w > 1.41421356f;
  const float x = select(high, w * 0.5f, w) - 1.0f;
  const float e = select(high, 1.0f, 0.0f);
  const float z = x * x;
  float p = 7.0376836292e-2f;
  p = fmadd(p, x, -1.1514610310e-1f);
  p = fmadd(p, x, 1.1676998740e-1f);
  p = fmadd(p, x, -1.2420140846e-1f);
  p = fmadd(p, x, 1.4249322787e-1f);
  p = fmadd(p, x, -1.6668057665e-1f);
  p = fmadd(p, x, 2.0000714765e-1f);
  p = fmadd(p, x, -2.4999993993e-1f);
  p = fmadd(p, x, 3.3333331174e-1f);
  float y = p * x * z;
  y = fmadd(e, -2.12194440e-4f, y);
  y = fmadd(z, -0.5f, y);
  return fmadd(e, 0.693359375f, x + y);
}

// log(1 + e^-|z|) for any z, the smooth part of softplus: u = e^-|z| in (0, 1] and
// log1p(u) = log(w) u / (w - 1) with w = 1 + u rounded (exact to a few ulp even when u is
// far below w's ulp, where it is u itself). NaN stays NaN.
MFCPU_FAST_INLINE float log1p_exp_neg_abs(float z) {
  const float u = exp_nonpositive(-abs(z));
  const float w = 1.0f + u;
  return select(w == 1.0f, u, log_1_to_2(w) * (u / (w - 1.0f)));
}

#undef MFCPU_FAST_INLINE

}  // namespace fast

// The forms every kernel uses (so that a fused program equals the unfused
// chain): fast:: for float (and half types, computed in float), libm else.
// Always inlined: a call in a loop body keeps the loop scalar.
template <class C>
inline __attribute__((always_inline)) C exp_of(C x) {
  if constexpr (std::is_same<C, float>::value) return fast::exp(x);
  else return std::exp(x);
}
template <class C>
inline __attribute__((always_inline)) C tanh_of(C x) {
  if constexpr (std::is_same<C, float>::value) return fast::tanh(x);
  else return std::tanh(x);
}
template <class C>
inline __attribute__((always_inline)) C erf_of(C x) {
  if constexpr (std::is_same<C, float>::value) return fast::erf(x);
  else return std::erf(x);
}
// 1 / (1 + exp(-x)), with exp(x) / (1 + exp(x)) for x < 0 so that exp never
// overflows: sigmoid(-89) is then 2.2e-39 in float32 instead of 1 / inf = 0.
template <class C>
inline __attribute__((always_inline)) C sigmoid_of(C x) {
  if constexpr (std::is_same<C, float>::value) {
    return fast::sigmoid(x);
  } else {
    if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
    const C e = std::exp(x);  // NaN lands here too
    return e / (C(1) + e);
  }
}
// x * sigmoid(x), without overflow: silu(-89) is -1.98e-37 in float32, not -0.
template <class C>
inline __attribute__((always_inline)) C silu_of(C x) {
  if constexpr (std::is_same<C, float>::value) {
    return x * fast::sigmoid(x);
  } else {
    if (x >= C(0)) return x / (C(1) + std::exp(-x));
    const C e = std::exp(x);
    return x * e / (C(1) + e);
  }
}
// log1p(exp(z)) = max(z, 0) + log1p(exp(-|z|)): softplus's body, exp never overflowing.
template <class C>
inline __attribute__((always_inline)) C softplus_of(C z) {
  if constexpr (std::is_same<C, float>::value) {
    return fast::select(z > 0.0f, z, 0.0f) + fast::log1p_exp_neg_abs(z);
  } else {
    return std::log1p(std::exp(z));
  }
}
}  // namespace mfcpu
