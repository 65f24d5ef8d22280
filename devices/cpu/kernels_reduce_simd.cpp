// Float row primitives of the reduce family (max/min with NaN, exp-sums,
// softmax rows) at several vector widths, picked once at run time.
//
// The code is written once over a width W in GCC/Clang vector extensions
// and instantiated inside functions compiled for AVX-512 (W = 16), AVX2
// (W = 8) and the x86-64 baseline, SSE2 (W = 4): the plugin itself is built
// for the baseline, so wider units are used only where the CPU has them.
// MONOFLOW_CPU_SIMD=baseline|avx2|avx512 caps the choice (to test the
// narrower paths on a wide machine).
#include <cstdlib>
#include <cstring>

#include "kernels_reduce.h"

// Wide vectors only live inside always-inlined helpers, so the ABI of
// passing them (which differs between the baseline and AVX) never matters.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace mfcpu {
namespace red {
namespace simd {
namespace {

#define MFCPU_INLINE inline __attribute__((always_inline))

template <int W>
struct Vec {
  typedef float f __attribute__((vector_size(4 * W)));
  typedef int32_t i __attribute__((vector_size(4 * W)));
};
template <int W>
using fv = typename Vec<W>::f;
template <int W>
using iv = typename Vec<W>::i;

// (Vectors travel by reference: passing a 64-byte vector by value from code
// built for the baseline would have a different ABI than from AVX-512 code.)
template <int W>
MFCPU_INLINE fv<W> vload(const float* p) {
  fv<W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <int W>
MFCPU_INLINE void vstore(float* p, const fv<W>& v) {
  std::memcpy(p, &v, sizeof v);
}
template <int W>
MFCPU_INLINE fv<W> vsplat(float x) {
  return fv<W>{} + x;
}

// exp: Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, the Cephes expf
// polynomial (~1 ulp), 2^n built in the exponent bits. Below -86.9 the
// result flushes to 0 (e^-86.9 ~ 2e-38: subnormal territory); above
// ln(FLT_MAX) it is +inf; NaN stays NaN.
template <int W>
MFCPU_INLINE fv<W> vexp(const fv<W>& x) {
  const fv<W> lo = vsplat<W>(-86.9f), hi = vsplat<W>(88.7228394f);
  fv<W> xc = x > lo ? x : lo;  // (NaN -> lo: lanes stay finite, fixed below)
  xc = xc < hi ? xc : hi;
  const fv<W> t = xc * 1.44269504088896341f;
  const iv<W> ni = __builtin_convertvector(t + (t < 0 ? vsplat<W>(-0.5f) : vsplat<W>(0.5f)), iv<W>);  // round
  const fv<W> n = __builtin_convertvector(ni, fv<W>);
  fv<W> r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  fv<W> p = vsplat<W>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // 2^n = 2 * 2^(n-1): n - 1 + 127 stays within [1, 254] for n in [-125, 128]
  const fv<W> scale = (fv<W>)((ni + 126) << 23);
  fv<W> y = p * 2.0f * scale;
  y = x < lo ? vsplat<W>(0.0f) : y;
  y = x > hi ? vsplat<W>(std::numeric_limits<float>::infinity()) : y;
  return x != x ? x : y;
}

// The maximum (kMax) or minimum of n floats, NaN if any is NaN (the first
// one, payload kept); -inf (+inf) for n = 0. Four independent accumulators
// take plain compare-selects (maxps / minps), and NaN is tracked apart, in
// float arithmetic: x - x is 0 for finite x and NaN for NaN (and for inf,
// which costs a rescan that finds no NaN).
template <int W, bool kMax>
MFCPU_INLINE float extreme_impl(const float* p, int64_t n) {
  float m = kMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  bool nan = false;
  int64_t i = 0;
  if (n >= 4 * W) {
    fv<W> m0 = vsplat<W>(m), m1 = m0, m2 = m0, m3 = m0;
    fv<W> bad = vsplat<W>(0.0f);
    for (; i + 4 * W <= n; i += 4 * W) {
      const fv<W> a = vload<W>(p + i), b = vload<W>(p + i + W), c = vload<W>(p + i + 2 * W),
                  d = vload<W>(p + i + 3 * W);
      m0 = (kMax ? a > m0 : a < m0) ? a : m0;
      m1 = (kMax ? b > m1 : b < m1) ? b : m1;
      m2 = (kMax ? c > m2 : c < m2) ? c : m2;
      m3 = (kMax ? d > m3 : d < m3) ? d : m3;
      bad += ((a - a) + (b - b)) + ((c - c) + (d - d));
    }
    m0 = (kMax ? m1 > m0 : m1 < m0) ? m1 : m0;
    m2 = (kMax ? m3 > m2 : m3 < m2) ? m3 : m2;
    m0 = (kMax ? m2 > m0 : m2 < m0) ? m2 : m0;
    for (int l = 0; l < W; ++l) {
      nan = nan || bad[l] != 0.0f;
      m = (kMax ? m0[l] > m : m0[l] < m) ? m0[l] : m;
    }
  }
  for (int64_t j = i; j < n; ++j) {
    nan = nan || p[j] != p[j];
    m = (kMax ? p[j] > m : p[j] < m) ? p[j] : m;
  }
  if (nan)
    for (int64_t j = 0; j < n; ++j)
      if (p[j] != p[j]) return p[j];
  return m;
}

template <int W>
MFCPU_INLINE float exp_sum_impl(const float* p, float m, int64_t n, float* out) {
  const fv<W> mv = vsplat<W>(m);
  fv<W> s0 = vsplat<W>(0.0f), s1 = s0;
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const fv<W> e0 = vexp<W>(vload<W>(p + i) - mv), e1 = vexp<W>(vload<W>(p + i + W) - mv);
    if (out) vstore<W>(out + i, e0), vstore<W>(out + i + W, e1);
    s0 += e0;
    s1 += e1;
  }
  for (; i < n; i += W) {  // a tail padded with -inf (exp -> 0)
    float tail[W];
    const int64_t k = std::min<int64_t>(W, n - i);
    for (int l = 0; l < W; ++l) tail[l] = l < k ? p[i + l] : -std::numeric_limits<float>::infinity();
    const fv<W> e = vexp<W>(vload<W>(tail) - mv);
    if (out)
      for (int l = 0; l < k; ++l) out[i + l] = e[l];
    s0 += e;
  }
  s0 += s1;
  float s = 0;
  for (int l = 0; l < W; ++l) s += s0[l];
  return s;
}

// The maximum is subtracted first so exp never overflows; a NaN anywhere
// makes the row NaN, as in PyTorch (so does a row of -inf: -inf - -inf).
template <int W>
MFCPU_INLINE void softmax_row_impl(const float* x, float* o, int64_t n, bool log) {
  const float m = extreme_impl<W, true>(x, n);
  if (log) {
    const float log_s = std::log(exp_sum_impl<W>(x, m, n, nullptr));
    for (int64_t i = 0; i < n; ++i) o[i] = (x[i] - m) - log_s;
  } else {
    const float inv = 1.0f / exp_sum_impl<W>(x, m, n, o);
    for (int64_t i = 0; i < n; ++i) o[i] *= inv;
  }
}

// Column forms: b adjacent rows at once, element-wise across them.
template <int W, bool kMax>
MFCPU_INLINE void extreme_cols_impl(float* m, const float* x, int64_t b) {
  int64_t r = 0;
  for (; r + W <= b; r += W) {
    const fv<W> a = vload<W>(x + r), c = vload<W>(m + r);
    vstore<W>(m + r, ((kMax ? a > c : a < c) | (a != a)) ? a : c);
  }
  for (; r < b; ++r) m[r] = ((kMax ? x[r] > m[r] : x[r] < m[r]) || x[r] != x[r]) ? x[r] : m[r];
}

template <int W>
MFCPU_INLINE void exp_cols_impl(const float* x, const float* m, float* o, float* s, int64_t b) {
  int64_t r = 0;
  for (; r + W <= b; r += W) {
    const fv<W> e = vexp<W>(vload<W>(x + r) - vload<W>(m + r));
    if (o) vstore<W>(o + r, e);
    vstore<W>(s + r, vload<W>(s + r) + e);
  }
  for (; r < b; ++r) {
    float xt[W], mt[W];  // a padded tail (exp(-inf - 0) = 0)
    for (int l = 0; l < W; ++l) xt[l] = -std::numeric_limits<float>::infinity(), mt[l] = 0.0f;
    xt[0] = x[r];
    mt[0] = m[r];
    const float e = vexp<W>(vload<W>(xt) - vload<W>(mt))[0];
    if (o) o[r] = e;
    s[r] += e;
  }
}

struct Table {
  float (*max_nan)(const float*, int64_t);
  float (*min_nan)(const float*, int64_t);
  float (*exp_sum)(const float*, float, int64_t, float*);
  void (*softmax_row)(const float*, float*, int64_t, bool);
  void (*max_cols)(float*, const float*, int64_t);
  void (*min_cols)(float*, const float*, int64_t);
  void (*exp_cols)(const float*, const float*, float*, float*, int64_t);
};

#define MFCPU_SIMD_TABLE(SUFFIX, TARGET, W, WCOLS)                                                            \
  TARGET float max_nan_##SUFFIX(const float* p, int64_t n) { return extreme_impl<W, true>(p, n); }           \
  TARGET float min_nan_##SUFFIX(const float* p, int64_t n) { return extreme_impl<W, false>(p, n); }          \
  TARGET float exp_sum_##SUFFIX(const float* p, float m, int64_t n, float* out) {                           \
    return exp_sum_impl<W>(p, m, n, out);                                                                    \
  }                                                                                                           \
  TARGET void softmax_row_##SUFFIX(const float* x, float* o, int64_t n, bool log) {                         \
    softmax_row_impl<W>(x, o, n, log);                                                                       \
  }                                                                                                           \
  TARGET void max_cols_##SUFFIX(float* m, const float* x, int64_t b) { extreme_cols_impl<WCOLS, true>(m, x, b); } \
  TARGET void min_cols_##SUFFIX(float* m, const float* x, int64_t b) {                                      \
    extreme_cols_impl<WCOLS, false>(m, x, b);                                                                \
  }                                                                                                           \
  TARGET void exp_cols_##SUFFIX(const float* x, const float* m, float* o, float* s, int64_t b) {             \
    exp_cols_impl<W>(x, m, o, s, b);                                                                         \
  }                                                                                                           \
  constexpr Table kTable_##SUFFIX{&max_nan_##SUFFIX,     &min_nan_##SUFFIX,  &exp_sum_##SUFFIX,            \
                                  &softmax_row_##SUFFIX, &max_cols_##SUFFIX, &min_cols_##SUFFIX,           \
                                  &exp_cols_##SUFFIX};

MFCPU_SIMD_TABLE(baseline, , 4, 4)
#if defined(__x86_64__)
// The wide tables contract a * b + c into fused multiply-adds (the build
// itself does not: -ffp-contract=off), which halves exp's polynomial; both
// contract the same expressions, so their exps agree.
MFCPU_SIMD_TABLE(avx2, __attribute__((target("avx2,fma"), optimize("fp-contract=fast"))), 8, 8)
// (Column extremes run 8 wide on AVX-512 too: GCC 12 turns their 16-lane
// selects on OR-ed masks into scalar code.)
MFCPU_SIMD_TABLE(avx512, __attribute__((target("avx512f,fma"), optimize("fp-contract=fast"))), 16, 8)
#endif

const Table& table() {
  static const Table t = [] {
    int level = 0;  // 0 baseline, 1 avx2, 2 avx512
#if defined(__x86_64__)
    __builtin_cpu_init();
    const bool fma = __builtin_cpu_supports("fma");
    level = fma && __builtin_cpu_supports("avx512f") ? 2 : fma && __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    if (const char* cap = std::getenv("MONOFLOW_CPU_SIMD")) {
      if (std::strcmp(cap, "baseline") == 0) level = 0;
      else if (std::strcmp(cap, "avx2") == 0) level = std::min(level, 1);
    }
#if defined(__x86_64__)
    if (level == 2) return kTable_avx512;
    if (level == 1) return kTable_avx2;
#endif
    return kTable_baseline;
  }();
  return t;
}

}  // namespace

float max_nan(const float* p, int64_t n) { return table().max_nan(p, n); }
float min_nan(const float* p, int64_t n) { return table().min_nan(p, n); }
float exp_sum(const float* p, float m, int64_t n, float* out) { return table().exp_sum(p, m, n, out); }
void softmax_row(const float* x, float* o, int64_t n, bool log) { table().softmax_row(x, o, n, log); }
void max_cols(float* m, const float* x, int64_t b) { table().max_cols(m, x, b); }
void min_cols(float* m, const float* x, int64_t b) { table().min_cols(m, x, b); }
void exp_cols(const float* x, const float* m, float* o, float* s, int64_t b) { table().exp_cols(x, m, o, s, b); }

}  // namespace simd
}  // namespace red
}  // namespace mfcpu
