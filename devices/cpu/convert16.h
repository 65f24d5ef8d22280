// Block conversions between float and the 16-bit float storages.
//
// Note [Staging 16-bit floats through float blocks]
//   Kernels compute half/bfloat16 in float (half.h). Converting one element
//   at a time in the inner loop kept those loops scalar: a half add ran at
//   1/30 of torch's speed. The contiguous loops now widen a block of inputs
//   to float, run the float loop over the block (vectorised like any float
//   loop), and narrow the block back. half uses the F16C instructions where
//   the CPU has them (chosen at run time; they round to nearest-even like
//   float_to_half, so only NaN payloads can differ), else the branch-free
//   scalar conversions of half.h, which the compiler vectorises.
#pragma once

#include <cstdint>

#include "half.h"

namespace mfcpu {

constexpr int64_t kStageBlock = 512;  // floats per staged block (2 KiB, stays in L1)

void widen_half(const half* x, float* y, int64_t n);
void narrow_half(const float* x, half* y, int64_t n);
void widen_bfloat16(const bfloat16* x, float* y, int64_t n);
void narrow_bfloat16(const float* x, bfloat16* y, int64_t n);

inline void widen(const half* x, float* y, int64_t n) { widen_half(x, y, n); }
inline void widen(const bfloat16* x, float* y, int64_t n) { widen_bfloat16(x, y, n); }
inline void narrow(const float* x, half* y, int64_t n) { narrow_half(x, y, n); }
inline void narrow(const float* x, bfloat16* y, int64_t n) { narrow_bfloat16(x, y, n); }

}  // namespace mfcpu
