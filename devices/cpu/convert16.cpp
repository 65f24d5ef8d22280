// Block conversions of 16-bit floats (Note [Staging 16-bit floats through float blocks]).
#include "convert16.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MFCPU_HAVE_F16C_PATH 1
#endif

namespace mfcpu {
namespace {

void widen_half_scalar(const half* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = half_to_float(x[i].bits);
}
void narrow_half_scalar(const float* x, half* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].bits = float_to_half(x[i]);
}

#ifdef MFCPU_HAVE_F16C_PATH
__attribute__((target("avx,f16c"))) void widen_half_f16c(const half* x, float* y, int64_t n) {
  int64_t i = 0;
#ifdef __AVX512F__  // (the AVX-512 build of the plugin: 16 lanes)
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(y + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i))));
#endif
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  widen_half_scalar(x + i, y + i, n - i);
}
__attribute__((target("avx,f16c"))) void narrow_half_f16c(const float* x, half* y, int64_t n) {
  int64_t i = 0;
#ifdef __AVX512F__
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  narrow_half_scalar(x + i, y + i, n - i);
}
const bool kF16C = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
#endif

}  // namespace

void widen_half(const half* x, float* y, int64_t n) {
#ifdef MFCPU_HAVE_F16C_PATH
  if (kF16C) return widen_half_f16c(x, y, n);
#endif
  widen_half_scalar(x, y, n);
}

void narrow_half(const float* x, half* y, int64_t n) {
#ifdef MFCPU_HAVE_F16C_PATH
  if (kF16C) return narrow_half_f16c(x, y, n);
#endif
  narrow_half_scalar(x, y, n);
}

void widen_bfloat16(const bfloat16* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = bfloat16_to_float(x[i].bits);
}

void narrow_bfloat16(const float* x, bfloat16* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i].bits = float_to_bfloat16(x[i]);
}

}  // namespace mfcpu
