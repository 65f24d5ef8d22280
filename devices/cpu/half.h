// IEEE binary16 ("half") and bfloat16 storage types with round-to-nearest-even
// conversions. Kernels never do arithmetic in these types: they widen to float,
// compute, and round once on store (docs/kernels.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace mfcpu {

struct half {
  uint16_t bits;
};
struct bfloat16 {
  uint16_t bits;
};

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Both conversions are branch-free (selects only) so loops over them
// vectorise; they let the FPU do the rounding, which assumes the default
// round-to-nearest mode (intermediates are never subnormal, so FTZ/DAZ only
// affect inputs that are subnormal floats, which round to zero anyway).
// Verified bit-exact against F16C on all 2^32 floats and 2^16 halves.

inline float half_to_float(uint16_t h) {
  const uint32_t w = uint32_t(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;  // exponent+mantissa at the top, sign dropped
  // Normal (and inf/nan): drop the bits into a float whose exponent is off by
  // 2^112 (0xE0 = 224 = 112 + 112 so inf/nan land on exponent 0xFF), rescale.
  const float normalized = bits_float((two_w >> 4) + (0xE0u << 23)) * 0x1p-112f;
  // Subnormal: mantissa m as 0.5 + m * 2^-24 (exponent 126), minus 0.5, is exact.
  const float denormalized = bits_float((two_w >> 17) | (126u << 23)) - 0.5f;
  const uint32_t use_denormal = 0u - uint32_t(two_w < (1u << 27));  // all-ones mask
  return bits_float(sign | (float_bits(denormalized) & use_denormal) |
                    (float_bits(normalized) & ~use_denormal));
}

inline uint16_t float_to_half(float f) {
  const uint32_t w = float_bits(f);
  const uint32_t shl1_w = w + w;  // sign dropped
  const uint32_t sign = w & 0x80000000u;
  // Scaling by 2^112 * 2^-110 turns values >= 65520 into inf while leaving
  // smaller ones exact; the separate factors keep the product finite otherwise.
  float base = (std::fabs(f) * 0x1p+112f) * 0x1p-110f;
  // Adding 2^(e+2) with e = max(exponent, -14) (as bias) makes the FPU round
  // |f| to 11 significant bits, or to a multiple of 2^-24 for subnormal halves.
  uint32_t bias = shl1_w & 0xFF000000u;
  bias = std::max(bias, 0x71000000u);
  base = bits_float((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = float_bits(base);
  const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
  const uint32_t mantissa_bits = bits & 0x00000FFFu;
  const uint32_t nonsign = exp_bits + mantissa_bits;  // mantissa carry bumps the exponent
  const uint32_t is_nan = 0u - uint32_t(shl1_w > 0xFF000000u);  // all-ones mask
  return uint16_t((sign >> 16) | (0x7E00u & is_nan) | (nonsign & ~is_nan));  // nan -> quiet nan
}

inline float bfloat16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

inline uint16_t float_to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const uint32_t is_nan = 0u - uint32_t((x & 0x7fffffffu) > 0x7f800000u);  // all-ones mask
  return uint16_t((((x >> 16) | 0x40u) & is_nan) | (rounded & ~is_nan));   // nan stays quiet
}

// double -> float rounding to odd. Rounding that result to a format with at most
// 22 significant bits (half: 11, bfloat16: 8) gives the correctly rounded value,
// whereas plain double -> float -> half could round twice.
inline float double_to_float_round_odd(double d) {
  float f = float(d);
  if (double(f) != d && d == d) {
    uint32_t u = float_bits(f);
    if (std::fabs(double(f)) > std::fabs(d)) --u;  // truncate toward zero (u encodes |f| > 0)
    f = bits_float(u | 1u);                       // sticky bit marks "inexact"
  }
  return f;
}

inline uint16_t double_to_half(double d) { return float_to_half(double_to_float_round_odd(d)); }
inline uint16_t double_to_bfloat16(double d) {
  return float_to_bfloat16(double_to_float_round_odd(d));
}

}  // namespace mfcpu
