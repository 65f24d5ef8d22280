// Inner loops handed to run_loop(): one per operand count. Each has a
// contiguous path written so -O3 vectorises it, a path for a stride-0
// (broadcast) input, and a generic strided path.
#pragma once

#include <algorithm>
#include <cstdint>

#include <type_traits>

#include "convert16.h"
#include "dtype.h"

// Note [Wide contiguous loops]
//   The plugin is built for the x86-64 baseline (SSE2), but the contiguous
//   float/double loops are where the elementwise kernels spend their time, and
//   for data that sits in cache AVX2 runs them ~2x faster. Those loops are
//   cloned by GCC for AVX2 and the baseline and picked at load time (ifunc).
//   AVX2 without FMA: a*b+c is not contracted, so results are bitwise the
//   baseline's. Other dtypes and strided paths stay single-versioned.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(MONOFLOW_NO_SIMD_CLONES)
#define MFCPU_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MFCPU_SIMD_CLONES
#endif

namespace mfcpu {

template <class T>
constexpr bool kWideLoop = std::is_same<T, float>::value || std::is_same<T, double>::value;

// half and bfloat16: contiguous runs are staged through float blocks
// (Note [Staging 16-bit floats through float blocks] in convert16.h).
template <class T>
constexpr bool kStaged16 = std::is_same<T, half>::value || std::is_same<T, bfloat16>::value;

// An elementwise functor may offer block(o, x, n) for contiguous runs.
template <class Fn, class SO, class SI, class = void>
struct HasBlock : std::false_type {};
template <class Fn, class SO, class SI>
struct HasBlock<Fn, SO, SI,
                std::void_t<decltype(std::declval<const Fn&>().block((SO*)nullptr, (const SI*)nullptr, int64_t{}))>>
    : std::true_type {};

// o[i] = fn(x[i]) over contiguous arrays.
template <class SO, class SI, class Fn>
MFCPU_SIMD_CLONES void map_contig_wide(SO* o, const SI* x, int64_t n, const Fn& fn) {
  for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i]);
}
template <class SO, class SI, class Fn>
inline void map_contig(SO* o, const SI* x, int64_t n, const Fn& fn) {
  if constexpr (kWideLoop<SO> && kWideLoop<SI>) map_contig_wide(o, x, n, fn);
  else for (int64_t i = 0; i < n; ++i) o[i] = fn(x[i]);
}

// o[i] = f(i) for the binary loop's three layouts (bs/as: broadcast b/a).
template <class SO, class S, class Op>
MFCPU_SIMD_CLONES void zip_contig_wide(SO* o, const S* a, const S* b, int64_t n, const Op& op, int layout) {
  if (layout == 0) {
    for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), load(b[i])));
  } else if (layout == 1) {
    const auto bv = load(*b);
    for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), bv));
  } else {
    const auto av = load(*a);
    for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(av, load(b[i])));
  }
}

template <class T>
inline T& at(char* base, int64_t byte_stride, int64_t i) {
  return *reinterpret_cast<T*>(base + i * byte_stride);
}

// out = value
template <class SO>
struct FillLoop {
  SO value;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    if (s[0] == int64_t(sizeof(SO))) {
      SO* o = reinterpret_cast<SO*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = value;
    } else {
      for (int64_t i = 0; i < n; ++i) at<SO>(p[0], s[0], i) = value;
    }
  }
};

// out = fn(x); fn maps storage to storage (casts, scalar ops, neg).
template <class SO, class SI, class Fn>
struct UnaryLoop {
  Fn fn;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t so = sizeof(SO), si = sizeof(SI);
    if constexpr (HasBlock<Fn, SO, SI>::value) {
      if (s[0] == so && s[1] == si) return fn.block(reinterpret_cast<SO*>(p[0]), reinterpret_cast<const SI*>(p[1]), n);
    }
    if (s[0] == so && s[1] == si) {
      map_contig(reinterpret_cast<SO*>(p[0]), reinterpret_cast<const SI*>(p[1]), n, fn);
    } else if (s[1] == 0) {  // broadcast input: one value for the whole run
      FillLoop<SO>{fn(*reinterpret_cast<const SI*>(p[1]))}(p, s, n);
    } else {
      for (int64_t i = 0; i < n; ++i) at<SO>(p[0], s[0], i) = fn(at<const SI>(p[1], s[1], i));
    }
  }
};

// op over 16-bit float inputs, staged through float blocks; `layout` as
// zip_contig_wide's. A 16-bit output is narrowed a block at a time, any other
// (a comparison's bool) stored element by element.
template <class SO, class S, class Op>
void zip_staged(SO* o, const S* a, const S* b, int64_t n, const Op& op, int layout) {
  float fa[kStageBlock], fb[kStageBlock], fo[kStageBlock];
  if (layout == 1) std::fill_n(fb, kStageBlock, load(*b));
  if (layout == 2) std::fill_n(fa, kStageBlock, load(*a));
  for (int64_t i0 = 0; i0 < n; i0 += kStageBlock) {
    const int64_t m = std::min(kStageBlock, n - i0);
    if (layout != 2) widen(a + i0, fa, m);
    if (layout != 1) widen(b + i0, fb, m);
    if constexpr (std::is_same<SO, S>::value) {
      zip_contig_wide(fo, fa, fb, m, op, 0);
      narrow(fo, o + i0, m);
    } else {
      for (int64_t i = 0; i < m; ++i) o[i0 + i] = store<SO>(op(fa[i], fb[i]));
    }
  }
}

// out = store(op(load(a), load(b))); op works on compute types.
template <class SO, class S, class Op>
struct BinaryLoop {
  Op op;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t so = sizeof(SO), si = sizeof(S);
    SO* o = reinterpret_cast<SO*>(p[0]);
    const S* a = reinterpret_cast<const S*>(p[1]);
    const S* b = reinterpret_cast<const S*>(p[2]);
    if constexpr (kStaged16<S> && !Op::kCanDivideByZero) {
      if (s[0] == so && s[1] == si && s[2] == si) return zip_staged(o, a, b, n, op, 0);
      if (s[0] == so && s[1] == si && s[2] == 0) return zip_staged(o, a, b, n, op, 1);
      if (s[0] == so && s[1] == 0 && s[2] == si) return zip_staged(o, a, b, n, op, 2);
    }
    if constexpr (kWideLoop<SO> && kWideLoop<S> && !Op::kCanDivideByZero) {
      if (s[0] == so && s[1] == si && s[2] == si) return zip_contig_wide(o, a, b, n, op, 0);
      if (s[0] == so && s[1] == si && s[2] == 0) return zip_contig_wide(o, a, b, n, op, 1);
      if (s[0] == so && s[1] == 0 && s[2] == si) return zip_contig_wide(o, a, b, n, op, 2);
    }
    if (s[0] == so && s[1] == si && s[2] == si) {
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), load(b[i])));
    } else if (s[0] == so && s[1] == si && s[2] == 0) {
      const auto bv = load(*b);
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(load(a[i]), bv));
    } else if (s[0] == so && s[1] == 0 && s[2] == si) {
      const auto av = load(*a);
      for (int64_t i = 0; i < n; ++i) o[i] = store<SO>(op(av, load(b[i])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<SO>(p[0], s[0], i) =
            store<SO>(op(load(at<const S>(p[1], s[1], i)), load(at<const S>(p[2], s[2], i))));
    }
  }
};

}  // namespace mfcpu
