// Every CUDA kernel of the plugin. nvcc compiles this file alone into a
// fatbin (CMakeLists.txt) that the host side loads with cuModuleLoadData, so
// each kernel has a C name: mfc_<family>_<dtype suffix> (launch.h lists the
// suffixes in MFDType order). A family's op is a runtime code (kernel_args.h),
// not a template parameter: the branch is uniform across the grid and costs
// nothing next to the memory traffic, and it keeps the fatbin and the build
// small (one kernel per family and dtype).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

#include "common/philox.h"
#include "kernel_args.h"

extern "C" __device__ int mfc_error;  // Note [Asynchronous kernel errors] in context.h
__device__ int mfc_error = 0;

namespace {

__device__ void raise_error(int code) { atomicCAS(&mfc_error, 0, code); }

// ------------------------------------------------------------ dtypes

template <class T> struct Tr { using C = T; };
template <> struct Tr<bool> { using C = int; };
template <> struct Tr<__half> { using C = float; };
template <> struct Tr<__nv_bfloat16> { using C = float; };
template <class T> using C_t = typename Tr<T>::C;

template <class T> __device__ __forceinline__ C_t<T> ld(const void* p, int64_t off) {
  const T v = static_cast<const T*>(p)[off];
  if constexpr (std::is_same<T, bool>::value) return v ? 1 : 0;
  else if constexpr (std::is_same<T, __half>::value) return __half2float(v);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) return __bfloat162float(v);
  else return v;
}
template <class T> __device__ __forceinline__ void st(void* p, int64_t off, C_t<T> c) {
  T* q = static_cast<T*>(p) + off;
  if constexpr (std::is_same<T, bool>::value) *q = c != 0;
  else if constexpr (std::is_same<T, __half>::value) *q = __float2half_rn(c);
  else if constexpr (std::is_same<T, __nv_bfloat16>::value) *q = __float2bfloat16_rn(c);
  else *q = c;
}
template <class C> constexpr bool kFloat = std::is_floating_point<C>::value;

// Integer arithmetic wraps (docs/kernels.md): do it in the unsigned type.
template <class C> __device__ __forceinline__ C wadd(C a, C b) {
  using U = std::make_unsigned_t<C>; return C(U(a) + U(b));
}
template <class C> __device__ __forceinline__ C wsub(C a, C b) {
  using U = std::make_unsigned_t<C>; return C(U(a) - U(b));
}
template <class C> __device__ __forceinline__ C wmul(C a, C b) {
  using U = std::make_unsigned_t<C>; return C(U(a) * U(b));
}

// ------------------------------------------------------------ elementwise indexing

__device__ __forceinline__ void offsets(const ElemArgs& a, int64_t i, int64_t* off) {
#pragma unroll
  for (int k = 0; k < MFC_MAX_OPS; ++k) off[k] = a.contiguous ? i : 0;
  if (a.contiguous) return;
#pragma unroll
  for (int d = MFC_MAX_DIMS - 1; d >= 0; --d) {
    if (d >= a.ndim) continue;
    const int64_t c = i % a.shape[d];
    i /= a.shape[d];
#pragma unroll
    for (int k = 0; k < MFC_MAX_OPS; ++k) off[k] += c * a.strides[k][d];
  }
}

#define MFC_GRID_LOOP(i, n) \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

// ------------------------------------------------------------ fill, copy, where

template <class E> __device__ void fill_body(const ElemArgs& a) {
  E v;
  memcpy(&v, &a.ival[0], sizeof(E));  // the host put the value's bits here
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    static_cast<E*>(a.ptr[0])[off[0]] = v;
  }
}

template <class E> __device__ void select_body(const ElemArgs& a) {
  E v;
  memcpy(&v, &a.ival[0], sizeof(E));
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    E r;
    if (a.op == MFC_WHERE)  // cond, x, y
      r = static_cast<const bool*>(a.ptr[1])[off[1]] ? static_cast<const E*>(a.ptr[2])[off[2]]
                                                      : static_cast<const E*>(a.ptr[3])[off[3]];
    else  // masked_fill: x, mask
      r = static_cast<const bool*>(a.ptr[2])[off[2]] ? v : static_cast<const E*>(a.ptr[1])[off[1]];
    static_cast<E*>(a.ptr[0])[off[0]] = r;
  }
}

// tril (op 1) / triu (op 0) over the last two dims; operands not coalesced.
template <class E> __device__ void triangle_body(const ElemArgs& a) {
  MFC_GRID_LOOP(i, a.numel) {
    int64_t rest = i, o0 = 0, o1 = 0, row = 0, col = 0;
    for (int d = a.ndim - 1; d >= 0; --d) {
      const int64_t c = rest % a.shape[d];
      rest /= a.shape[d];
      if (d == a.ndim - 1) col = c;
      if (d == a.ndim - 2) row = c;
      o0 += c * a.strides[0][d];
      o1 += c * a.strides[1][d];
    }
    const bool keep = a.op ? (col - row <= a.ival[0]) : (col - row >= a.ival[0]);
    static_cast<E*>(a.ptr[0])[o0] = keep ? static_cast<const E*>(a.ptr[1])[o1] : E(0);
  }
}

// A value on its way through a cast: integers stay exact in 64 bits.
struct Wide {
  bool fp;
  long long i;
  double f;
};
template <class T> __device__ __forceinline__ Wide widen(const void* p, int64_t off) {
  const C_t<T> c = ld<T>(p, off);
  if constexpr (kFloat<C_t<T>>) return Wide{true, 0, double(c)};
  else return Wide{false, (long long)c, 0.0};
}
template <class O> __device__ __forceinline__ void narrow(void* p, int64_t off, Wide w) {
  O* q = static_cast<O*>(p) + off;
  if constexpr (std::is_same<O, bool>::value) *q = w.fp ? w.f != 0 : w.i != 0;
  else if constexpr (std::is_same<O, __half>::value) *q = w.fp ? __double2half(w.f) : __float2half_rn(float(w.i));
  else if constexpr (std::is_same<O, __nv_bfloat16>::value)
    *q = w.fp ? __double2bfloat16(w.f) : __float2bfloat16_rn(float(w.i));
  else if constexpr (kFloat<O>) *q = w.fp ? O(w.f) : O(w.i);
  else *q = w.fp ? O((long long)w.f) : O(w.i);  // float -> int truncates toward zero
}

__device__ __forceinline__ Wide widen_any(int dtype, const void* p, int64_t off) {
  switch (dtype) {
    case 0: return widen<bool>(p, off);
    case 1: return widen<uint8_t>(p, off);
    case 2: return widen<int8_t>(p, off);
    case 3: return widen<int16_t>(p, off);
    case 4: return widen<int32_t>(p, off);
    case 5: return widen<long long>(p, off);
    case 6: return widen<__half>(p, off);
    case 7: return widen<__nv_bfloat16>(p, off);
    case 8: return widen<float>(p, off);
    default: return widen<double>(p, off);
  }
}

// arange: out[i] = start + i * step (1-D), in double for floating types and
// wrapping 64-bit integers otherwise, as the CPU.
template <class O> __device__ void arange_body(const ElemArgs& a) {
  MFC_GRID_LOOP(i, a.numel) {
    Wide w{false, 0, 0.0};
    if (a.op) w = Wide{true, 0, a.fval[0] + double(i) * a.fval[1]};
    else w = Wide{false, (long long)(uint64_t(a.ival[0]) + uint64_t(i) * uint64_t(a.ival[1])), 0.0};
    narrow<O>(a.ptr[0], i * a.strides[0][0], w);
  }
}

template <class O> __device__ void copy_body(const ElemArgs& a) {
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    narrow<O>(a.ptr[0], off[0], widen_any(a.in_dtype, a.ptr[1], off[1]));
  }
}

// ------------------------------------------------------------ binary

template <class C> __device__ __forceinline__ C int_pow(C base, C exp) {
  if (exp < 0) {  // torch: 1 for base 1, +-1 for base -1, 0 otherwise
    if (base == 1) return 1;
    if constexpr (std::is_signed<C>::value)
      if (base == C(-1)) return (exp & 1) ? C(-1) : C(1);
    return 0;
  }
  C r = 1;
  while (exp) {
    if (exp & 1) r = wmul(r, base);
    base = wmul(base, base);
    exp >>= 1;
  }
  return r;
}

template <class C> __device__ C binop(int op, C a, C b) {
  if constexpr (kFloat<C>) {
    switch (op) {
      case MFC_ADD: return a + b;
      case MFC_SUB: return a - b;
      case MFC_RSUB: return b - a;
      case MFC_MUL: return a * b;
      case MFC_DIV: return a / b;
      case MFC_RDIV: return b / a;
      case MFC_MAXIMUM: return (a >= b || a != a) ? a : b;
      case MFC_MINIMUM: return (a <= b || a != a) ? a : b;
      case MFC_POW: return pow(a, b);
      case MFC_ATAN2: return atan2(a, b);
      case MFC_FMOD: return fmod(a, b);
      case MFC_REMAINDER: {
        C m = fmod(a, b);
        if (m != 0 && ((b < 0) != (m < 0))) m += b;
        return m;
      }
      case MFC_FLOOR_DIVIDE: {  // numpy's npy_divmod
        if (b == 0) return a / b;
        const C mod = fmod(a, b);
        C div = (a - mod) / b;
        if (mod != 0 && ((b < 0) != (mod < 0))) div -= C(1);
        if (div != 0) {
          C fl = floor(div);
          if (div - fl > C(0.5)) fl += C(1);
          return fl;
        }
        return copysign(C(0), a / b);
      }
    }
    return a;
  } else {
    switch (op) {
      case MFC_ADD: return wadd(a, b);
      case MFC_SUB: return wsub(a, b);
      case MFC_RSUB: return wsub(b, a);
      case MFC_MUL: return wmul(a, b);
      case MFC_MAXIMUM: return a >= b ? a : b;
      case MFC_MINIMUM: return a <= b ? a : b;
      case MFC_POW: return int_pow(a, b);
      case MFC_BITWISE_AND: return a & b;
      case MFC_BITWISE_OR: return a | b;
      case MFC_BITWISE_XOR: return a ^ b;
      case MFC_FLOOR_DIVIDE:
      case MFC_REMAINDER:
      case MFC_FMOD: {
        if (b == 0) {
          raise_error(MFC_ERR_ZERO_DIVISION);
          return 0;
        }
        if constexpr (std::is_signed<C>::value) {
          if (b == C(-1)) return op == MFC_FLOOR_DIVIDE ? wsub(C(0), a) : C(0);  // no MIN / -1 trap
          if (op == MFC_FMOD) return C(a % b);
          if (op == MFC_REMAINDER) {
            C m = C(a % b);
            if (m != 0 && ((b < 0) != (m < 0))) m = C(m + b);
            return m;
          }
          C q = C(a / b);
          if (a % b != 0 && ((a < 0) != (b < 0))) --q;
          return q;
        } else {
          return op == MFC_FLOOR_DIVIDE ? C(a / b) : C(a % b);
        }
      }
    }
    return a;
  }
}

template <class T> __device__ void binary_body(const ElemArgs& a) {
  using C = C_t<T>;
  C s{};
  if (a.nops == 2) {  // scalar form: the other operand is the attribute
    if constexpr (kFloat<C>) s = C(a.fval[0]);
    else if constexpr (std::is_same<T, bool>::value) s = a.ival[0] != 0;
    else s = C(a.ival[0]);
  }
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    const C x = ld<T>(a.ptr[1], off[1]);
    const C y = a.nops == 2 ? s : ld<T>(a.ptr[2], off[2]);
    if constexpr (kFloat<C>) {
      if (a.op == MFC_LERP) {  // torch's lerp, the weight at compute precision
        const C w = C(a.fval[0]);
        st<T>(a.ptr[0], off[0], (w < C(0.5) && w > C(-0.5)) ? x + w * (y - x) : y - (y - x) * (C(1) - w));
        continue;
      }
    }
    st<T>(a.ptr[0], off[0], binop<C>(a.op, x, y));
  }
}

template <class T> __device__ void compare_body(const ElemArgs& a) {
  using C = C_t<T>;
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    const C x = ld<T>(a.ptr[1], off[1]), y = ld<T>(a.ptr[2], off[2]);
    bool r = false;
    switch (a.op) {
      case MFC_EQ: r = x == y; break;
      case MFC_NE: r = x != y; break;
      case MFC_LT: r = x < y; break;
      case MFC_LE: r = x <= y; break;
      case MFC_GT: r = x > y; break;
      case MFC_GE: r = x >= y; break;
      case MFC_LOGICAL_AND: r = (x != 0) && (y != 0); break;
      case MFC_LOGICAL_OR: r = (x != 0) || (y != 0); break;
      case MFC_LOGICAL_XOR: r = (x != 0) != (y != 0); break;
    }
    static_cast<bool*>(a.ptr[0])[off[0]] = r;
  }
}

template <class T> __device__ void clamp_body(const ElemArgs& a) {
  using C = C_t<T>;
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    const C x = ld<T>(a.ptr[1], off[1]), lo = ld<T>(a.ptr[2], off[2]), hi = ld<T>(a.ptr[3], off[3]);
    C r;
    if (x != x) r = x;
    else if (lo != lo) r = lo;
    else if (hi != hi) r = hi;
    else {
      r = x < lo ? lo : x;
      r = r > hi ? hi : r;
    }
    st<T>(a.ptr[0], off[0], r);
  }
}

// ------------------------------------------------------------ unary

template <class C> __device__ C sigmoid(C x) {
  if (x < 0) {
    const C e = exp(x);
    return e / (C(1) + e);
  }
  return C(1) / (C(1) + exp(-x));
}

template <class C> __device__ C unop(int op, C x) {
  switch (op) {
    case MFC_NEG: if constexpr (kFloat<C>) return -x; else return wsub(C(0), x);
    case MFC_ABS: if constexpr (kFloat<C>) return fabs(x); else return x < 0 ? wsub(C(0), x) : x;
    case MFC_RELU: return x < 0 ? C(0) : x;
    case MFC_SQUARE: if constexpr (kFloat<C>) return x * x; else return wmul(x, x);
    case MFC_SIGN: return C((C(0) < x) - (x < C(0)));
  }
  if constexpr (kFloat<C>) {
    switch (op) {
      case MFC_EXP: return exp(x);
      case MFC_EXP2: return exp2(x);
      case MFC_LOG: return log(x);
      case MFC_LOG2: return log2(x);
      case MFC_LOG10: return log10(x);
      case MFC_LOG1P: return log1p(x);
      case MFC_EXPM1: return expm1(x);
      case MFC_SQRT: return sqrt(x);
      case MFC_RSQRT: return C(1) / sqrt(x);
      case MFC_SIN: return sin(x);
      case MFC_COS: return cos(x);
      case MFC_TAN: return tan(x);
      case MFC_ASIN: return asin(x);
      case MFC_ACOS: return acos(x);
      case MFC_ATAN: return atan(x);
      case MFC_SINH: return sinh(x);
      case MFC_COSH: return cosh(x);
      case MFC_TANH: return tanh(x);
      case MFC_ASINH: return asinh(x);
      case MFC_ACOSH: return acosh(x);
      case MFC_ATANH: return atanh(x);
      case MFC_SIGMOID: return sigmoid(x);
      case MFC_ERF: return erf(x);
      case MFC_ERFC: return erfc(x);
      case MFC_RECIPROCAL: return C(1) / x;
      case MFC_GELU: return x / C(2) * (C(1) + erf(x * C(0.70710678118654752440)));
      case MFC_GELU_TANH: {
        const C k = C(0.79788456080286535588);  // sqrt(2 / pi)
        return x / C(2) * (C(1) + tanh(k * (x + C(0.044715) * x * x * x)));
      }
      case MFC_SILU: return x * sigmoid(x);
      case MFC_FLOOR: return floor(x);
      case MFC_CEIL: return ceil(x);
      case MFC_TRUNC: return trunc(x);
      case MFC_ROUND: return rint(x);
    }
  } else {
    if (op == MFC_BITWISE_NOT) {
      if constexpr (std::is_same<C, int>::value) return x ? 0 : 1;  // bool's compute type
      else return C(~x);
    }
  }
  return x;
}

template <class T> __device__ void unary_body(const ElemArgs& a) {
  using C = C_t<T>;
  const bool is_bool = std::is_same<T, bool>::value;
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    const C x = ld<T>(a.ptr[1], off[1]);
    C r = (is_bool && a.op == MFC_BITWISE_NOT) ? C(!x) : unop<C>(a.op, x);
    st<T>(a.ptr[0], off[0], r);
  }
}

template <class T> __device__ void predicate_body(const ElemArgs& a) {
  using C = C_t<T>;
  MFC_GRID_LOOP(i, a.numel) {
    int64_t off[MFC_MAX_OPS];
    offsets(a, i, off);
    const C x = ld<T>(a.ptr[1], off[1]);
    bool r = false;
    switch (a.op) {
      case MFC_ISNAN: r = x != x; break;
      case MFC_ISINF: if constexpr (kFloat<C>) r = isinf(x); break;
      case MFC_ISFINITE: if constexpr (kFloat<C>) r = isfinite(x); else r = true; break;
      case MFC_LOGICAL_NOT: r = x == 0; break;
    }
    static_cast<bool*>(a.ptr[0])[off[0]] = r;
  }
}

// ------------------------------------------------------------ optimizer updates

// Each formula is the CPU's (devices/cpu/kernels_fused.cpp), evaluated left
// to right with no contraction into FMAs (nvcc -fmad=false, CMakeLists.txt),
// so float32/float64 updates give the CPU's bits.
template <class T> __device__ void update_body(const ElemArgs& a) {
  using C = C_t<T>;
  if constexpr (kFloat<C>) {
    const C v0 = C(a.fval[0]), v1 = C(a.fval[1]), neg_lr = C(-a.fval[2]);
    MFC_GRID_LOOP(i, a.numel) {
      int64_t off[MFC_MAX_OPS];
      offsets(a, i, off);
      switch (a.op) {
        case MFC_AXPY:  // out = a + alpha * b
          st<T>(a.ptr[0], off[0], ld<T>(a.ptr[1], off[1]) + v0 * ld<T>(a.ptr[2], off[2]));
          break;
        case MFC_ADDCMUL:  // out = x + value * a * b
          st<T>(a.ptr[0], off[0], ld<T>(a.ptr[1], off[1]) + v0 * ld<T>(a.ptr[2], off[2]) * ld<T>(a.ptr[3], off[3]));
          break;
        case MFC_ADDCDIV:
          st<T>(a.ptr[0], off[0], ld<T>(a.ptr[1], off[1]) + v0 * ld<T>(a.ptr[2], off[2]) / ld<T>(a.ptr[3], off[3]));
          break;
        case MFC_MOMENTUM: {  // p, buf in place; g. buf = buf * m + scale * g; p += -lr * buf
          T tmp;
          st<T>(&tmp, 0, ld<T>(a.ptr[1], off[1]) * v0);  // half types round between the chain's steps
          C b = ld<T>(&tmp, 0);
          b = a.ival[0] ? b + ld<T>(a.ptr[2], off[2]) : b + v1 * ld<T>(a.ptr[2], off[2]);
          st<T>(a.ptr[1], off[1], b);
          st<T>(a.ptr[0], off[0], ld<T>(a.ptr[0], off[0]) + neg_lr * ld<T>(a.ptr[1], off[1]));
          break;
        }
      }
    }
  }
}

// ------------------------------------------------------------ random numbers

// Philox4x32-10 of devices/common/philox.h, the CPU's: element i is a pure
// function of (seed, offset + i), so the CUDA and CPU streams are the same
// numbers (uniform, randint, bernoulli bit for bit; normal to the last bit of
// CUDA's double log/cos).
using mfrandom::Philox;

template <class T> __device__ void random_body(const RandomArgs& a) {
  MFC_GRID_LOOP(i, a.n) {
    const Philox g(a.seed, a.offset + uint64_t(i));
    Wide w{true, 0, 0.0};
    switch (a.op) {
      case MFC_UNIFORM: w.f = a.f2 + (a.f3 - a.f2) * g.u01(0); break;
      case MFC_NORMAL: w.f = a.f2 + a.f3 * sqrt(-2.0 * log(1.0 - g.u01(0))) * cos(6.283185307179586 * g.u01(2)); break;
      case MFC_RANDINT: {
        const uint64_t bits = (uint64_t(g.w[0]) << 32) | g.w[1];
        const uint64_t range = uint64_t(a.ihigh) - uint64_t(a.ilow);
        w = Wide{false, (long long)(uint64_t(a.ilow) + bits % range), 0.0};
        break;
      }
      case MFC_BERNOULLI: {
        double p = a.f2;
        if (a.has_p) p = double(ld<T>(a.p, i * a.p_stride));
        w = Wide{false, g.u01(0) < p ? 1 : 0, 0.0};
        break;
      }
    }
    narrow<T>(a.out, i * a.stride, w);
    if (a.op == MFC_UNIFORM && a.f3 > a.f2) {  // rounding to a narrow type may reach `high`: half-open
      if (!(double(ld<T>(a.out, i * a.stride)) < a.f3)) narrow<T>(a.out, i * a.stride, Wide{true, 0, a.f2});
    }
  }
}

// ------------------------------------------------------------ reductions

constexpr int kBlock = 256;

// Combines one value per thread into thread 0's; every thread must call it.
template <class A, class F> __device__ A block_reduce(A v, F combine) {
  __shared__ alignas(16) unsigned char raw[kBlock * 16];
  A* sh = reinterpret_cast<A*>(raw);
  static_assert(sizeof(A) <= 16, "accumulator too large");
  sh[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) sh[threadIdx.x] = combine(sh[threadIdx.x], sh[threadIdx.x + w]);
    __syncthreads();
  }
  A r = sh[0];
  __syncthreads();  // the buffer is reused by the next call
  return r;
}

__device__ __forceinline__ void kept_offsets(const ReduceArgs& a, int64_t o, int64_t* ox, int64_t* oo) {
  *ox = 0, *oo = 0;
  for (int d = a.kept_ndim - 1; d >= 0; --d) {
    const int64_t c = o % a.kept_shape[d];
    o /= a.kept_shape[d];
    *ox += c * a.kept_x[d];
    *oo += c * a.kept_out[d];
  }
}
__device__ __forceinline__ int64_t red_offset(const ReduceArgs& a, int64_t r, const int64_t* st) {
  int64_t off = 0;
  for (int d = a.red_ndim - 1; d >= 0; --d) {
    off += (r % a.red_shape[d]) * st[d];
    r /= a.red_shape[d];
  }
  return off;
}

template <class A> __device__ __forceinline__ A plus(A p, A q) {
  if constexpr (kFloat<A>) return p + q;
  else return wadd(p, q);
}

template <class C> struct ValIdx {
  C v;
  long long i;
};

template <class T> __device__ void reduce_body(const ReduceArgs& a) {
  using C = C_t<T>;
  using Acc = std::conditional_t<kFloat<C>, double, long long>;
  for (int64_t o = blockIdx.x; o < a.num_out; o += gridDim.x) {
    int64_t bx, bo;
    kept_offsets(a, o, &bx, &bo);
    const int op = a.op;
    if (op == MFC_SUM || op == MFC_MEAN || op == MFC_VAR || op == MFC_STD) {
      Acc s = 0;
      for (int64_t r = threadIdx.x; r < a.num_red; r += blockDim.x)
        s = plus(s, Acc(ld<T>(a.x, bx + red_offset(a, r, a.red_x))));  // integers wrap in 64 bits
      s = block_reduce(s, [](Acc p, Acc q) { return plus(p, q); });
      if constexpr (kFloat<C>) {
        if (op == MFC_SUM) {
          if (threadIdx.x == 0) st<T>(a.out, bo, C(s));
          continue;
        }
        const double mean = double(s) / double(a.num_red);
        if (op == MFC_MEAN) {
          if (threadIdx.x == 0) st<T>(a.out, bo, C(mean));
          continue;
        }
        double m2 = 0;  // two passes: exact enough, and no Welford merge needed
        for (int64_t r = threadIdx.x; r < a.num_red; r += blockDim.x) {
          const double d = double(ld<T>(a.x, bx + red_offset(a, r, a.red_x))) - mean;
          m2 += d * d;
        }
        m2 = block_reduce(m2, [](double p, double q) { return p + q; });
        double var = m2 / fmax(0.0, double(a.num_red) - a.fval);
        if (threadIdx.x == 0) st<T>(a.out, bo, C(op == MFC_STD ? sqrt(var) : var));
      } else {
        if (threadIdx.x == 0) static_cast<long long*>(a.out)[bo] = s;  // int64 out
      }
    } else if (op == MFC_ALL || op == MFC_ANY) {
      const bool all = op == MFC_ALL;
      int v = all ? 1 : 0;
      for (int64_t r = threadIdx.x; r < a.num_red; r += blockDim.x) {
        const bool nz = ld<T>(a.x, bx + red_offset(a, r, a.red_x)) != 0;  // NaN is true
        v = all ? (v & nz) : (v | nz);
      }
      v = block_reduce(v, [all](int p, int q) { return all ? (p & q) : (p | q); });
      if (threadIdx.x == 0) static_cast<bool*>(a.out)[bo] = v != 0;
    } else if (op == MFC_AMAX || op == MFC_AMIN) {
      const bool mx = op == MFC_AMAX;
      C v = ld<T>(a.x, bx);
      for (int64_t r = threadIdx.x; r < a.num_red; r += blockDim.x) {
        const C x = ld<T>(a.x, bx + red_offset(a, r, a.red_x));
        if (x != x || (v == v && (mx ? x > v : x < v))) v = x;
      }
      v = block_reduce(v, [mx](C p, C q) { return (p != p) ? p : (q != q) ? q : (mx ? (q > p ? q : p) : (q < p ? q : p)); });
      if (threadIdx.x == 0) st<T>(a.out, bo, v);
    } else {  // MAX / MIN with the index of the first extreme (or first NaN)
      const bool mx = op == MFC_MAX;
      ValIdx<C> v{ld<T>(a.x, bx), 0};
      for (int64_t r = threadIdx.x; r < a.num_red; r += blockDim.x) {
        const C x = ld<T>(a.x, bx + red_offset(a, r, a.red_x));
        if (v.v != v.v) break;
        if (x != x || (mx ? x > v.v : x < v.v)) v = ValIdx<C>{x, r};
      }
      v = block_reduce(v, [mx](ValIdx<C> p, ValIdx<C> q) {
        const bool pn = p.v != p.v, qn = q.v != q.v;
        if (pn || qn) return (pn && (!qn || p.i < q.i)) ? p : q;
        if (p.v == q.v) return p.i < q.i ? p : q;
        return (mx ? q.v > p.v : q.v < p.v) ? q : p;
      });
      if (threadIdx.x == 0) {
        st<T>(a.out, bo, v.v);
        int64_t io = 0, rest = o;  // the indices' own strides
        for (int d = a.kept_ndim - 1; d >= 0; --d) {
          io += (rest % a.kept_shape[d]) * a.kept_out2[d];
          rest /= a.kept_shape[d];
        }
        static_cast<long long*>(a.out2)[io] = v.i;
      }
    }
  }
}

// softmax / log_softmax over one dim (the core moved it last).
template <class T> __device__ void softmax_body(const ReduceArgs& a) {
  using C = C_t<T>;
  for (int64_t o = blockIdx.x; o < a.num_out; o += gridDim.x) {
    int64_t bx, bo;
    kept_offsets(a, o, &bx, &bo);
    const int64_t n = a.num_red, sx = a.red_x[0], so = a.red_out[0];
    C m = -INFINITY;
    for (int64_t r = threadIdx.x; r < n; r += blockDim.x) {
      const C x = ld<T>(a.x, bx + r * sx);
      if (x != x || x > m) m = x;
      if (m != m) break;
    }
    m = block_reduce(m, [](C p, C q) { return (p != p || q != q) ? C(NAN) : (q > p ? q : p); });
    C s = 0;
    for (int64_t r = threadIdx.x; r < n; r += blockDim.x) s += exp(ld<T>(a.x, bx + r * sx) - m);
    s = block_reduce(s, [](C p, C q) { return p + q; });
    const C ls = log(s);
    for (int64_t r = threadIdx.x; r < n; r += blockDim.x) {
      const C d = ld<T>(a.x, bx + r * sx) - m;
      st<T>(a.out, bo + r * so, a.op == MFC_LOG_SOFTMAX ? d - ls : exp(d) / s);
    }
  }
}

// ------------------------------------------------------------ index / index_put

__device__ bool index_offsets(const IndexArgs& a, int64_t p, int64_t* oo, int64_t* ox) {
  int64_t oi = 0;
  *oo = 0, *ox = 0;
  for (int d = a.n - 1; d >= 0; --d) {
    const int64_t c = p % a.shape[d];
    p /= a.shape[d];
    *oo += c * a.st_out[d];
    *ox += c * a.st_x[d];
    oi += c * a.st_idx[d];
  }
  int64_t tgt = 0;  // offset into the indexed tensor (x for index, self for index_put)
  for (int j = 0; j < a.k; ++j) {
    int64_t i = a.idx[oi + j * a.st_idx[a.n]];
    if (i < 0) i += a.ix_size[j];
    if (i < 0 || i >= a.ix_size[j]) {
      raise_error(MFC_ERR_INDEX);
      return false;
    }
    tgt += i * a.ix_stride[j];
  }
  *ox += tgt;
  return true;
}

template <class E> __device__ void index_body(const IndexArgs& a) {
  MFC_GRID_LOOP(p, a.numel) {
    int64_t oo, ox;  // out's offset, x's (with the indexed dims)
    if (index_offsets(a, p, &oo, &ox)) static_cast<E*>(a.out)[oo] = static_cast<const E*>(a.x)[ox];
  }
}

// index_put: st_out walks values (x), st_x walks self's n dims (out).
template <class T> __device__ void index_put_body(const IndexArgs& a) {
  MFC_GRID_LOOP(p, a.numel) {
    int64_t ov, os;
    if (!index_offsets(a, p, &ov, &os)) continue;
    T* dst = static_cast<T*>(a.out) + os;
    const T v = static_cast<const T*>(a.x)[ov];
    if (!a.accumulate) {
      *dst = v;
    } else if constexpr (std::is_same<T, bool>::value) {
      if (v) *dst = true;
    } else if constexpr (std::is_same<T, long long>::value) {
      atomicAdd(reinterpret_cast<unsigned long long*>(dst), (unsigned long long)v);
    } else {
      atomicAdd(dst, v);
    }
  }
}

// ------------------------------------------------------------ convolution helpers

template <class T> __device__ void im2col_body(const ConvArgs& a) {
  const int64_t hw = a.OH * a.OW, rows = a.C * a.kh * a.kw;
  MFC_GRID_LOOP(i, a.n * rows * hw) {
    const int64_t ox = i % a.OW, oy = (i / a.OW) % a.OH, r = (i / hw) % rows, img = i / (hw * rows);
    const int64_t kx = r % a.kw, ky = (r / a.kw) % a.kh, c = r / (a.kw * a.kh);
    const int64_t iy = oy * a.stride[0] - a.pad[0] + ky * a.dil[0];
    const int64_t ix = ox * a.stride[1] - a.pad[1] + kx * a.dil[1];
    T v = T(0);
    if (iy >= 0 && iy < a.H && ix >= 0 && ix < a.W)
      v = static_cast<const T*>(a.x)[((img * a.C + c) * a.H + iy) * a.W + ix];
    static_cast<T*>(a.col)[i] = v;
  }
}

// The adjoint: every x element gathers the column entries that read it (no
// atomics, a fixed order: deterministic), overwriting x.
template <class T> __device__ void col2im_body(const ConvArgs& a) {
  const int64_t hw = a.OH * a.OW, rows = a.C * a.kh * a.kw;
  MFC_GRID_LOOP(i, a.n * a.C * a.H * a.W) {
    const int64_t ix = i % a.W, iy = (i / a.W) % a.H, c = (i / (a.W * a.H)) % a.C, img = i / (a.W * a.H * a.C);
    T s = T(0);
    for (int64_t ky = 0; ky < a.kh; ++ky) {
      const int64_t ty = iy + a.pad[0] - ky * a.dil[0];
      if (ty < 0 || ty % a.stride[0]) continue;
      const int64_t oy = ty / a.stride[0];
      if (oy >= a.OH) continue;
      for (int64_t kx = 0; kx < a.kw; ++kx) {
        const int64_t tx = ix + a.pad[1] - kx * a.dil[1];
        if (tx < 0 || tx % a.stride[1]) continue;
        const int64_t ox = tx / a.stride[1];
        if (ox >= a.OW) continue;
        s += static_cast<const T*>(a.col)[(img * rows + (c * a.kh + ky) * a.kw + kx) * hw + oy * a.OW + ox];
      }
    }
    static_cast<T*>(a.x)[i] = s;
  }
}

template <class T> __device__ void bias_add_body(const ConvArgs& a) {
  MFC_GRID_LOOP(i, a.n * a.channels * a.hw) {
    static_cast<T*>(a.x)[i] += static_cast<const T*>(a.bias)[(i / a.hw) % a.channels];
  }
}

// ------------------------------------------------------------ pooling

// Each output (forward) or input element (backward) is one thread, and the
// sums run in the CPU kernel's order (devices/cpu/kernels_pool.cpp), so
// results are the CPU's bits; max_pool2d_backward alone scatters with
// atomics (its windows are only known through the indices).
struct AvgCell {
  int64_t y0, y1, x0, x1;
  double div;
};
__device__ AvgCell avg_cell(const PoolArgs& a, int64_t oy, int64_t ox) {
  int64_t y0 = oy * a.sh - a.ph, x0 = ox * a.sw - a.pw;
  int64_t y1 = min(y0 + a.kh, a.H + a.ph), x1 = min(x0 + a.kw, a.W + a.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = max(y0, int64_t(0)), x0 = max(x0, int64_t(0));
  y1 = min(y1, a.H), x1 = min(x1, a.W);
  const double div = a.divisor ? double(a.divisor) : a.include_pad ? double(padded) : double((y1 - y0) * (x1 - x0));
  return {y0, y1, x0, x1, div};
}
__device__ __forceinline__ int64_t ad_lo(int64_t o, int64_t in, int64_t out) { return (o * in) / out; }
__device__ __forceinline__ int64_t ad_hi(int64_t o, int64_t in, int64_t out) { return ((o + 1) * in + out - 1) / out; }

template <class T> __device__ void pool_body(const PoolArgs& a) {
  const int64_t IL = a.H * a.W, OL = a.OH * a.OW;
  T* x = static_cast<T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const bool backward = a.op == MFC_AVG_POOL_BACK || a.op == MFC_AD_AVG_BACK;
  MFC_GRID_LOOP(i, a.P * (backward ? IL : OL)) {
    if (a.op == MFC_MAX_POOL_BACK) {  // i over outputs; gx was zeroed
      const int64_t p = i / OL, k = a.idx[i];
      if (k >= 0 && k < IL) atomicAdd(&x[p * IL + k], y[i]);
      continue;
    }
    if (backward) {
      const int64_t p = i / IL, iy = (i % IL) / a.W, ix = i % a.W;
      const T* gy = y + p * OL;
      T g = T(0);
      if (a.op == MFC_AVG_POOL_BACK) {
        const int64_t oy_hi = min(a.OH - 1, (iy + a.ph) / a.sh), ox_hi = min(a.OW - 1, (ix + a.pw) / a.sw);
        const int64_t oy_lo = max(int64_t(0), oy_hi - (a.kh + a.sh - 1) / a.sh - 1);
        const int64_t ox_lo = max(int64_t(0), ox_hi - (a.kw + a.sw - 1) / a.sw - 1);
        for (int64_t oy = oy_lo; oy <= oy_hi; ++oy)
          for (int64_t ox = ox_lo; ox <= ox_hi; ++ox) {
            const AvgCell c = avg_cell(a, oy, ox);
            if (iy >= c.y0 && iy < c.y1 && ix >= c.x0 && ix < c.x1) g += T(gy[oy * a.OW + ox] / c.div);
          }
      } else {
        for (int64_t oy = 0; oy < a.OH; ++oy) {
          const int64_t y0 = ad_lo(oy, a.H, a.OH), y1 = ad_hi(oy, a.H, a.OH);
          if (iy < y0 || iy >= y1) continue;
          for (int64_t ox = 0; ox < a.OW; ++ox) {
            const int64_t x0 = ad_lo(ox, a.W, a.OW), x1 = ad_hi(ox, a.W, a.OW);
            if (ix >= x0 && ix < x1) g += gy[oy * a.OW + ox] / T((y1 - y0) * (x1 - x0));
          }
        }
      }
      x[i] = g;
      continue;
    }
    const int64_t p = i / OL, oy = (i % OL) / a.OW, ox = i % a.OW;
    const T* xp = x + p * IL;
    if (a.op == MFC_MAX_POOL || a.op == MFC_AD_MAX) {
      T best = -INFINITY;
      int64_t arg = -1;
      int64_t y0, y1, x0, x1, sy = 1, sx = 1;
      if (a.op == MFC_MAX_POOL) {
        y0 = oy * a.sh - a.ph, x0 = ox * a.sw - a.pw, y1 = y0 + a.kh * a.dh, x1 = x0 + a.kw * a.dw, sy = a.dh, sx = a.dw;
      } else {
        y0 = ad_lo(oy, a.H, a.OH), y1 = ad_hi(oy, a.H, a.OH), x0 = ad_lo(ox, a.W, a.OW), x1 = ad_hi(ox, a.W, a.OW);
      }
      for (int64_t iy = y0; iy < y1; iy += sy) {
        if (iy < 0 || iy >= a.H) continue;
        for (int64_t ix = x0; ix < x1; ix += sx) {
          if (ix < 0 || ix >= a.W) continue;
          const T v = xp[iy * a.W + ix];
          if (arg < 0 || v > best || v != v) {
            best = v;
            arg = iy * a.W + ix;
            if (v != v) goto done;
          }
        }
      }
    done:
      y[i] = best;
      a.idx[i] = arg < 0 ? 0 : arg;
    } else if (a.op == MFC_AVG_POOL) {
      const AvgCell c = avg_cell(a, oy, ox);
      T s = 0;
      for (int64_t iy = c.y0; iy < c.y1; ++iy)
        for (int64_t ix = c.x0; ix < c.x1; ++ix) s += xp[iy * a.W + ix];
      y[i] = c.div > 0 ? T(s / c.div) : T(NAN);
    } else {  // adaptive avg
      const int64_t y0 = ad_lo(oy, a.H, a.OH), y1 = ad_hi(oy, a.H, a.OH);
      const int64_t x0 = ad_lo(ox, a.W, a.OW), x1 = ad_hi(ox, a.W, a.OW);
      T s = 0;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) s += xp[iy * a.W + ix];
      y[i] = s / T((y1 - y0) * (x1 - x0));
    }
  }
}

// ------------------------------------------------------------ naive matmul

template <class T> __device__ void matmul_body(const MatmulArgs& a) {
  using C = C_t<T>;
  using Acc = std::conditional_t<kFloat<C>, std::conditional_t<std::is_same<C, double>::value, double, float>, long long>;
  const int64_t total = a.batches * a.m * a.n;
  MFC_GRID_LOOP(t, total) {
    const int64_t j = t % a.n, i = (t / a.n) % a.m;
    int64_t b = t / (a.n * a.m);
    int64_t oa = 0, ob = 0, oc = 0;
    for (int d = a.nb - 1; d >= 0; --d) {
      const int64_t c = b % a.batch_shape[d];
      b /= a.batch_shape[d];
      oa += c * a.sa[d], ob += c * a.sb[d], oc += c * a.sc[d];
    }
    oa += i * a.sa[a.nb];
    ob += j * a.sb[a.nb + 1];
    Acc s = 0;
    for (int64_t q = 0; q < a.k; ++q) {
      const Acc x = Acc(ld<T>(a.a, oa + q * a.sa[a.nb + 1]));
      const Acc y = Acc(ld<T>(a.b, ob + q * a.sb[a.nb]));
      if constexpr (kFloat<C>) s += x * y;
      else s = wadd(s, wmul(x, y));
    }
    st<T>(a.c, oc + i * a.sc[a.nb] + j * a.sc[a.nb + 1], C(s));
  }
}

}  // namespace

// ------------------------------------------------------------ entry points

#define MFC_DTYPES(X) \
  X(b8, bool) X(u8, uint8_t) X(i8, int8_t) X(i16, int16_t) X(i32, int32_t) X(i64, long long) \
  X(f16, __half) X(bf16, __nv_bfloat16) X(f32, float) X(f64, double)
#define MFC_FLOATS(X) X(f16, __half) X(bf16, __nv_bfloat16) X(f32, float) X(f64, double)
#define MFC_SIZES(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, unsigned long long)

#define MFC_KERNEL(family, Args, body, sfx, T) \
  extern "C" __global__ void __launch_bounds__(kBlock) mfc_##family##_##sfx(Args a) { body<T>(a); }

#define MFC_PER_DTYPE(sfx, T)                                    \
  MFC_KERNEL(copy, ElemArgs, copy_body, sfx, T)                  \
  MFC_KERNEL(binary, ElemArgs, binary_body, sfx, T)              \
  MFC_KERNEL(compare, ElemArgs, compare_body, sfx, T)            \
  MFC_KERNEL(clamp, ElemArgs, clamp_body, sfx, T)                \
  MFC_KERNEL(unary, ElemArgs, unary_body, sfx, T)                \
  MFC_KERNEL(predicate, ElemArgs, predicate_body, sfx, T)        \
  MFC_KERNEL(reduce, ReduceArgs, reduce_body, sfx, T)            \
  MFC_KERNEL(matmul, MatmulArgs, matmul_body, sfx, T)          \
  MFC_KERNEL(random, RandomArgs, random_body, sfx, T)          \
  MFC_KERNEL(arange, ElemArgs, arange_body, sfx, T)
MFC_DTYPES(MFC_PER_DTYPE)

#define MFC_PER_FLOAT(sfx, T)                                 \
  MFC_KERNEL(softmax, ReduceArgs, softmax_body, sfx, T)       \
  MFC_KERNEL(update, ElemArgs, update_body, sfx, T)
MFC_FLOATS(MFC_PER_FLOAT)

#define MFC_PER_SIZE(sfx, E)                         \
  MFC_KERNEL(fill, ElemArgs, fill_body, sfx, E)      \
  MFC_KERNEL(select, ElemArgs, select_body, sfx, E)  \
  MFC_KERNEL(triangle, ElemArgs, triangle_body, sfx, E) \
  MFC_KERNEL(index, IndexArgs, index_body, sfx, E)
MFC_SIZES(MFC_PER_SIZE)

MFC_KERNEL(im2col, ConvArgs, im2col_body, f32, float)
MFC_KERNEL(im2col, ConvArgs, im2col_body, f64, double)
MFC_KERNEL(col2im, ConvArgs, col2im_body, f32, float)
MFC_KERNEL(col2im, ConvArgs, col2im_body, f64, double)
MFC_KERNEL(bias_add, ConvArgs, bias_add_body, f32, float)
MFC_KERNEL(bias_add, ConvArgs, bias_add_body, f64, double)

MFC_KERNEL(pool, PoolArgs, pool_body, f32, float)
MFC_KERNEL(pool, PoolArgs, pool_body, f64, double)

MFC_KERNEL(index_put, IndexArgs, index_put_body, b8, bool)
MFC_KERNEL(index_put, IndexArgs, index_put_body, i32, int)
MFC_KERNEL(index_put, IndexArgs, index_put_body, i64, long long)
MFC_KERNEL(index_put, IndexArgs, index_put_body, f32, float)
MFC_KERNEL(index_put, IndexArgs, index_put_body, f64, double)
