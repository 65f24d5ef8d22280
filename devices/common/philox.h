// Philox4x32-10, the counter-based generator behind the random kernels of
// every device (Note [Reproducible randomness] in core's generator.h):
// element i of a draw is a pure function of (seed, offset + i), so any device
// built with this header draws the CPU's numbers. Plain C++ that nvcc also
// compiles for the GPU (devices/cpu, devices/cuda); devices/opencl states the
// same rounds in OpenCL C, and its tests check the numbers against the CPU's.
#pragma once
#include <cstdint>

#ifdef __CUDACC__
#define MF_PHILOX_FN __host__ __device__
#else
#define MF_PHILOX_FN
#endif

namespace mfrandom {

struct Philox {
  uint32_t w[4];
  MF_PHILOX_FN Philox(uint64_t seed, uint64_t counter) {
    uint32_t c[4] = {uint32_t(counter), uint32_t(counter >> 32), 0, 0};
    uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
    for (int r = 0; r < 10; ++r) {
      const uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
      const uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
      const uint32_t n0 = uint32_t(p1 >> 32) ^ c[1] ^ k0;
      const uint32_t n2 = uint32_t(p0 >> 32) ^ c[3] ^ k1;
      c[0] = n0;
      c[1] = uint32_t(p1);
      c[2] = n2;
      c[3] = uint32_t(p0);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) w[i] = c[i];
  }
  // Uniform in [0, 1) with 53 random bits (words i and i + 1), and in (0, 1] for logs.
  MF_PHILOX_FN double u01(int i) const { return double((uint64_t(w[i]) << 21) ^ (w[i + 1] >> 11)) * 0x1.0p-53; }
  MF_PHILOX_FN double u01_open_low(int i) const { return 1.0 - u01(i); }
};

}  // namespace mfrandom
