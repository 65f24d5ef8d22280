// Overflow-checked int64 arithmetic for sizes, strides and offsets that come
// from the user: a wrapped-around product would pass a bounds check and let
// a kernel address memory outside its storage (issue 14, item 1).
#pragma once
#include <cstdint>

#include "monoflow/error.h"
#include "monoflow/small_vector.h"

namespace monoflow {

// a * b, or a RuntimeError naming `op` when it does not fit in int64.
inline int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r;
  MF_CHECK(!__builtin_mul_overflow(a, b, &r), RuntimeError, op, ": integer multiplication overflow (", a, " * ", b,
           ")");
  return r;
}

inline int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r;
  MF_CHECK(!__builtin_add_overflow(a, b, &r), RuntimeError, op, ": integer addition overflow (", a, " + ", b, ")");
  return r;
}

// a * b with wrap-around instead of undefined behaviour, for strides of
// size-1 dims whose value is never used to address memory.
inline int64_t wrapping_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// The number of elements of `shape`, or a RuntimeError when it does not fit
// in int64 (a zero size anywhere makes it 0 whatever the others are).
int64_t checked_numel(const Dims& shape, const char* op);

}  // namespace monoflow
