/* IEEE float16 and bfloat16 <-> float32 conversions (round to nearest even).
 * Header-only and dependency-free so that device plugins can share it. */
#ifndef MONOFLOW_HALF_H_
#define MONOFLOW_HALF_H_
#include <stdint.h>
#include <string.h>

static inline float mf_bits_to_float(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t mf_float_to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline float mf_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t man = h & 0x3ff;
  if (exp == 0x1f) return mf_bits_to_float(sign | 0x7f800000u | (man << 13)); /* inf/nan */
  if (exp == 0) {
    if (man == 0) return mf_bits_to_float(sign);
    /* subnormal: value = man * 2^-24 */
    float v = (float)man * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return mf_bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t mf_float_to_half(float f) {
  uint32_t x = mf_float_to_bits(f);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) /* inf or nan */
    return (uint16_t)(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0));
  if (absx >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds to >= 65520: inf */
  if (absx < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
    float a = mf_bits_to_float(absx);
    /* adding 0.5 (exponent -1) puts the half subnormal bits in the low mantissa bits, rounded by the FPU */
    float r = a + 0.5f;
    return (uint16_t)(sign | (mf_float_to_bits(r) - 0x3f000000u));
  }
  uint32_t mant_odd = (absx >> 13) & 1;
  absx += 0xc8000fffu + mant_odd; /* rebias exponent (-112 << 23) and round to nearest even */
  return (uint16_t)(sign | (absx >> 13));
}

static inline float mf_bfloat16_to_float(uint16_t b) { return mf_bits_to_float((uint32_t)b << 16); }

static inline uint16_t mf_float_to_bfloat16(float f) {
  uint32_t x = mf_float_to_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40); /* quiet nan */
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fffu + lsb;
  return (uint16_t)(x >> 16);
}

#endif /* MONOFLOW_HALF_H_ */
