// Plain structs shared by the host side (g++) and the kernels (nvcc). Every
// kernel takes one of them by value: shapes and strides travel in the launch's
// parameter buffer, so a launch needs no device allocation and the host's
// MFTensorDesc arrays may die as soon as the launch returns (plugin.h).
#pragma once

#include <stdint.h>

#define MFC_MAX_DIMS 8  // the core coalesces dims; 8 is what survives in practice
#define MFC_MAX_OPS 4   // output + up to three inputs

// Elementwise launches: operand 0 is the output, 1.. the inputs, all with
// `shape`. `contiguous` means every operand is dense row-major (1-D after the
// core's coalescing), so a thread's offsets are its index.
struct ElemArgs {
  void* ptr[MFC_MAX_OPS];
  int64_t strides[MFC_MAX_OPS][MFC_MAX_DIMS];
  int64_t shape[MFC_MAX_DIMS];
  int64_t numel;
  int32_t ndim;
  int32_t nops;
  int32_t op;          // op code of the family (below)
  int32_t contiguous;
  int32_t in_dtype;    // copy: the source's MFDType
  int32_t pad_;
  int64_t ival[2];     // scalar attributes as int64 (integer kernels)
  double fval[3];      // and as double (floating kernels; sgd_momentum uses three)
};

// Reductions and row ops: `out` is indexed by the kept dims, the reduced
// dims are walked per output element. Row ops (softmax) reduce over one dim
// and write every element of the row, so they carry the output's strides
// along the reduced dim too.
struct ReduceArgs {
  const void* x;
  void* out;
  void* out2;  // indices of max/min
  int64_t kept_shape[MFC_MAX_DIMS];
  int64_t kept_x[MFC_MAX_DIMS];
  int64_t kept_out[MFC_MAX_DIMS];
  int64_t kept_out2[MFC_MAX_DIMS];
  int64_t red_shape[MFC_MAX_DIMS];
  int64_t red_x[MFC_MAX_DIMS];
  int64_t red_out[MFC_MAX_DIMS];  // row ops only
  int64_t num_out;
  int64_t num_red;
  int32_t kept_ndim;
  int32_t red_ndim;
  int32_t op;
  int32_t pad_;
  double fval;  // var's correction
};

// index / index_put: out (n dims), x (n + k dims), I (n + 1 dims).
struct IndexArgs {
  void* out;          // index: out; index_put: self
  const void* x;      // index: x; index_put: values
  const int64_t* idx;
  int64_t shape[MFC_MAX_DIMS];       // the n iteration dims
  int64_t st_out[MFC_MAX_DIMS];
  int64_t st_x[MFC_MAX_DIMS];
  int64_t st_idx[MFC_MAX_DIMS + 1];  // the n dims, then the last (k) dim
  int64_t ix_size[MFC_MAX_DIMS];     // the k indexed dims: sizes and strides
  int64_t ix_stride[MFC_MAX_DIMS];
  int64_t numel;
  int32_t n;
  int32_t k;
  int32_t elem_size;
  int32_t accumulate;
};

// Naive strided matmul (integers, k == 0, layouts cuBLAS cannot take).
struct MatmulArgs {
  const void* a;
  const void* b;
  void* c;
  int64_t batch_shape[MFC_MAX_DIMS];
  int64_t sa[MFC_MAX_DIMS + 2];
  int64_t sb[MFC_MAX_DIMS + 2];
  int64_t sc[MFC_MAX_DIMS + 2];
  int64_t m, n, k, batches;
  int32_t nb;
  int32_t pad_;
};

// Random numbers: a 1-D output (and bernoulli's optional 1-D p).
struct RandomArgs {
  void* out;
  const void* p;
  int64_t n;
  int64_t stride;
  int64_t p_stride;
  uint64_t seed;
  uint64_t offset;
  int64_t ilow, ihigh;  // randint
  double f2, f3;        // uniform low/high, normal mean/std, bernoulli p
  int32_t op;
  int32_t has_p;
};

// Op codes. Binary (same dtype in and out unless noted).
enum {
  MFC_ADD, MFC_SUB, MFC_MUL, MFC_DIV, MFC_FLOOR_DIVIDE, MFC_MAXIMUM, MFC_MINIMUM,
  MFC_POW, MFC_ATAN2, MFC_REMAINDER, MFC_FMOD, MFC_BITWISE_AND, MFC_BITWISE_OR, MFC_BITWISE_XOR,
  MFC_RSUB, MFC_RDIV,  // scalar forms with the scalar on the left
  MFC_LERP,            // lerp_scalar: the weight in fval[0]
  MFC_NUM_BINARY
};
// Comparisons and logical ops (bool out).
enum { MFC_EQ, MFC_NE, MFC_LT, MFC_LE, MFC_GT, MFC_GE, MFC_LOGICAL_AND, MFC_LOGICAL_OR, MFC_LOGICAL_XOR };
// Unary, same dtype out.
enum {
  MFC_NEG, MFC_ABS, MFC_RELU, MFC_SQUARE, MFC_SIGN, MFC_BITWISE_NOT,
  // floating only
  MFC_EXP, MFC_EXP2, MFC_LOG, MFC_LOG2, MFC_LOG10, MFC_LOG1P, MFC_EXPM1, MFC_SQRT, MFC_RSQRT,
  MFC_SIN, MFC_COS, MFC_TAN, MFC_ASIN, MFC_ACOS, MFC_ATAN, MFC_SINH, MFC_COSH, MFC_TANH,
  MFC_ASINH, MFC_ACOSH, MFC_ATANH, MFC_SIGMOID, MFC_ERF, MFC_ERFC, MFC_RECIPROCAL,
  MFC_GELU, MFC_GELU_TANH, MFC_SILU, MFC_FLOOR, MFC_CEIL, MFC_TRUNC, MFC_ROUND
};
// Unary with a bool out.
enum { MFC_ISNAN, MFC_ISINF, MFC_ISFINITE, MFC_LOGICAL_NOT };
// Ternary.
enum { MFC_WHERE, MFC_MASKED_FILL, MFC_CLAMP };
// Optimizer updates (floating): add_alpha, addcmul/addcdiv, sgd_momentum.
enum { MFC_AXPY, MFC_ADDCMUL, MFC_ADDCDIV, MFC_MOMENTUM };
// Random.
enum { MFC_UNIFORM, MFC_NORMAL, MFC_RANDINT, MFC_BERNOULLI };
// Reductions and row ops.
enum { MFC_SUM, MFC_MEAN, MFC_AMAX, MFC_AMIN, MFC_MAX, MFC_MIN, MFC_VAR, MFC_STD, MFC_SOFTMAX, MFC_LOG_SOFTMAX, MFC_ALL, MFC_ANY };

// Asynchronous failures a kernel raises: kernels set the module's
// `mfc_error` word (first one wins) and stream_synchronize reports it.
enum { MFC_ERR_NONE = 0, MFC_ERR_ZERO_DIVISION = 1, MFC_ERR_INDEX = 2 };

// Convolution helpers (NCHW, contiguous): im2col / col2im over a chunk of
// `n` images starting at x; columns are [n, C * kh * kw, OH * OW].
struct ConvArgs {
  void* x;
  void* col;
  const void* bias;  // bias_add: per channel of a [n, channels, hw] tensor
  int64_t n, C, H, W, kh, kw, OH, OW;
  int64_t stride[2], pad[2], dil[2];
  int64_t channels, hw;  // bias_add
};

// Pooling over planes [P, H, W] -> [P, OH, OW] (contiguous).
struct PoolArgs {
  void* x;          // input side (gx for the backward ops)
  void* y;          // output side (gy for the backward ops)
  int64_t* idx;     // max: indices into each input plane
  int64_t P, H, W, OH, OW;
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  int64_t divisor;  // avg: divisor_override (0: none)
  int32_t include_pad;
  int32_t op;
};
enum { MFC_MAX_POOL, MFC_MAX_POOL_BACK, MFC_AVG_POOL, MFC_AVG_POOL_BACK, MFC_AD_AVG, MFC_AD_AVG_BACK, MFC_AD_MAX };
