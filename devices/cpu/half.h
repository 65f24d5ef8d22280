// IEEE binary16 ("half") and bfloat16 storage types with round-to-nearest-even
// conversions. Kernels never do arithmetic in these types: they widen to float,
// compute, and round once on store (docs/kernels.md).
#pragma once

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

inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));  // inf / nan
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
  // Zero or subnormal: man * 2^-24 is exact in float.
  const float mag = float(man) * 0x1p-24f;
  return bits_float(sign | float_bits(mag));
}

inline uint16_t float_to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) {  // inf or nan (nan stays quiet and keeps its top payload bits)
    return uint16_t(sign | (a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u));
  }
  if (a >= 0x47800000u) return uint16_t(sign | 0x7c00u);  // >= 65536: overflows to inf
  if (a >= 0x38800000u) {                                // normal half (>= 2^-14)
    // Rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even;
    // a carry out of the mantissa correctly bumps the exponent (up to inf).
    const uint32_t r = a - 0x38000000u;
    return uint16_t(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  if (a <= 0x33000000u) return sign;  // <= 2^-25: rounds to (signed) zero, ties to even
  // Subnormal half: value / 2^-24 = m * 2^(e - 126), rounded to nearest even.
  const uint32_t e = a >> 23;
  const uint32_t m = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - e;  // 14..24
  uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (rem > halfway || (rem == halfway && (q & 1u))) ++q;  // q == 0x400 is the smallest normal
  return uint16_t(sign | q);
}

inline float bfloat16_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

inline uint16_t float_to_bfloat16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // keep nan quiet
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
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
