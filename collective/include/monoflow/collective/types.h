// Shared vocabulary of the collective layer: reduction ops and the error type.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "monoflow/dtype.h"

namespace monoflow::collective {

enum class ReduceOp : int { Sum = 0, Prod = 1, Min = 2, Max = 3, Avg = 4 };
const char* reduce_op_name(ReduceOp op);

// A collective failed on this rank: timeout, dead peer, bad arguments seen
// only at run time. Python sees it as RuntimeError.
struct CommError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Applies `op` elementwise: out[i] = op(a[i], b[i]) for `count` elements of
// `dtype`. Avg sums (the division by the group size happens once, at the end).
// float16/bfloat16 are refused: the Python layer stages them through float32.
void reduce_into(void* out, const void* a, const void* b, size_t count, DType dtype, ReduceOp op);
// out[i] /= n, for the floating dtypes (Avg's final step).
void divide_by(void* buf, size_t count, DType dtype, int n);

}  // namespace monoflow::collective
