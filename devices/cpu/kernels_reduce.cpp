// Additive reductions: sum, mean, prod, all, any (the engine is in
// kernels_reduce.h). Also the family's registration entry point.
//
// Accumulation: floating types into double, integers and bool into wrapping
// 64-bit (out is int64 for them). Contiguous runs of sum/mean are folded in
// SIMD lanes of the input's compute type (float for float, half, bfloat16)
// over short blocks whose partials go into the double accumulator: the
// per-element work stays in fast single-precision vectors while rounding
// error grows with the block length only, not with the tensor's size.
#include "kernels_reduce.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace mfcpu {
namespace {

using red::ReducerBase;

template <class S>
using acc_t = std::conditional_t<is_floating_v<S>, double, uint64_t>;
template <class S>
using sum_out_t = std::conditional_t<is_floating_v<S>, S, int64_t>;
// The lanes of a contiguous run: float for float/half/bfloat16.
template <class S>
using lane_t = std::conditional_t<std::is_same<S, double>::value, double,
                                  std::conditional_t<is_floating_v<S>, float, uint64_t>>;

template <class S>
inline acc_t<S> widen(S x) {
  return acc_t<S>(load(x));  // integers: two's complement into uint64
}

#if defined(__AVX512F__)
// sum_contiguous's float block in two zmm of 16 lanes, with the very same
// additions as the generic loop below (the tail into lane 0, then the
// pairwise halving 32 -> 1), so every build gives the same bits: compilers
// run that halving through a stack array one lane at a time, which cost
// more than the adds themselves on the 16-64 element runs of per-channel
// sums (conv bias and batch-norm gradients of small images).
inline float sum_block_avx512(const float* q, int64_t m) {
  __m512 lo = _mm512_setzero_ps(), hi = lo;
  int64_t j = 0;
  for (; j + 32 <= m; j += 32) {
    lo = _mm512_add_ps(lo, _mm512_loadu_ps(q + j));
    hi = _mm512_add_ps(hi, _mm512_loadu_ps(q + j + 16));
  }
  if (j < m) {
    float lane0 = _mm512_cvtss_f32(lo);
    for (; j < m; ++j) lane0 += q[j];
    lo = _mm512_mask_mov_ps(lo, __mmask16(1), _mm512_set1_ps(lane0));
  }
  const __m512 h16 = _mm512_add_ps(lo, hi);
  const __m256 h8 = _mm256_add_ps(_mm512_castps512_ps256(h16), _mm512_extractf32x8_ps(h16, 1));
  const __m128 h4 = _mm_add_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
  const __m128 h2 = _mm_add_ps(h4, _mm_movehl_ps(h4, h4));
  return _mm_cvtss_f32(_mm_add_ss(h2, _mm_shuffle_ps(h2, h2, 1)));
}
#endif

// Sum of a contiguous run: 32 independent lanes (several SIMD registers, so
// the adds are not one latency-bound chain), flushed every kBlock elements.
template <class S>
acc_t<S> sum_contiguous(const S* p, int64_t n) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<S, float>) {
    constexpr int64_t kBlock = 2048;
    double total = 0;
    for (int64_t b = 0; b < n; b += kBlock) total += double(sum_block_avx512(p + b, std::min(kBlock, n - b)));
    return total;
  }
#endif
  using L = lane_t<S>;
  constexpr int64_t kLanes = 32, kBlock = 2048;
  acc_t<S> total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t m = std::min(kBlock, n - b);
    const S* q = p + b;
    L lane[kLanes] = {};
    int64_t j = 0;
    for (; j + kLanes <= m; j += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) lane[l] += L(load(q[j + l]));
    for (; j < m; ++j) lane[0] += L(load(q[j]));
    for (int64_t w = kLanes / 2; w > 0; w /= 2)  // pairwise
      for (int64_t l = 0; l < w; ++l) lane[l] += lane[l + w];
    total += acc_t<S>(lane[0]);
  }
  return total;
}

template <class S, bool kMean>
struct Sum : ReducerBase<Sum<S, kMean>, S, acc_t<S>> {
  using A = acc_t<S>;
  A init() const { return 0; }
  void add(A& a, S x, int64_t) const { a += widen(x); }
  void merge(A& a, const A& b) const { a += b; }
  auto finish(const A& a, int64_t count) const {
    if constexpr (kMean) return cast<S>(a / double(count));  // 0 / 0: NaN, as PyTorch
    else if constexpr (is_floating_v<S>) return cast<S>(a);
    else return int64_t(a);
  }
  A run(const S* p, int64_t stride, int64_t n, int64_t) const {
    if (stride == 1) return sum_contiguous(p, n);
    A total = 0;
    for (int64_t i = 0; i < n; ++i) total += widen(p[i * stride]);
    return total;
  }
  void row(A* acc, const S* p, int64_t stride, int64_t n, int64_t) const {
    if (stride == 1) {
      for (int64_t j = 0; j < n; ++j) acc[j] += widen(p[j]);
    } else {
      for (int64_t j = 0; j < n; ++j) acc[j] += widen(p[j * stride]);
    }
  }
};

template <class S>
struct Prod : ReducerBase<Prod<S>, S, acc_t<S>> {
  using A = acc_t<S>;
  A init() const { return 1; }
  void add(A& a, S x, int64_t) const { a *= widen(x); }  // integers wrap like int64
  void merge(A& a, const A& b) const { a *= b; }
  sum_out_t<S> finish(const A& a, int64_t) const {
    if constexpr (is_floating_v<S>) return cast<S>(a);
    else return int64_t(a);
  }
  void row(A* acc, const S* p, int64_t stride, int64_t n, int64_t) const {
    for (int64_t j = 0; j < n; ++j) acc[j] *= widen(p[j * stride]);
  }
};

// all (kAll) / any: whether every / some element is non-zero (NaN counts as non-zero).
template <class S, bool kAll>
struct Logical : ReducerBase<Logical<S, kAll>, S, uint8_t> {
  using A = uint8_t;
  A init() const { return kAll; }
  void add(A& a, S x, int64_t) const { a = kAll ? (a & (load(x) != 0)) : (a | (load(x) != 0)); }
  void merge(A& a, const A& b) const { a = kAll ? (a & b) : (a | b); }
  boolean finish(const A& a, int64_t) const { return boolean{a}; }
  A run(const S* p, int64_t stride, int64_t n, int64_t) const {
    int r = kAll;
    if (stride == 1) {
      for (int64_t i = 0; i < n; ++i) r = kAll ? (r & (load(p[i]) != 0)) : (r | (load(p[i]) != 0));
    } else {
      for (int64_t i = 0; i < n; ++i) r = kAll ? (r & (load(p[i * stride]) != 0)) : (r | (load(p[i * stride]) != 0));
    }
    return A(r);
  }
};

template <class Red>
void run_task(Task& task) {
  red::run_reduce(Red{}, task);
}

template <class Red>
MFStatus launch(const MFKernelCall* call, const char* op, int32_t out_dtype) {
  return guarded([&] {
    const LaunchSpec spec{1, 1, dtype_of<typename Red::In>, out_dtype, {nullptr, nullptr}};
    red::check_reduce_call(op, call, spec, false);
    enqueue_call(op, call, spec, &run_task<Red>);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_sum(const MFKernelCall* call) {
  return launch<Sum<S, false>>(call, "sum", dtype_of<sum_out_t<S>>);
}
template <class S>
MFStatus launch_mean(const MFKernelCall* call) {
  return launch<Sum<S, true>>(call, "mean", dtype_of<S>);
}
template <class S>
MFStatus launch_prod(const MFKernelCall* call) {
  return launch<Prod<S>>(call, "prod", dtype_of<sum_out_t<S>>);
}
template <class S>
MFStatus launch_all(const MFKernelCall* call) {
  return launch<Logical<S, true>>(call, "all", MF_BOOL);
}
template <class S>
MFStatus launch_any(const MFKernelCall* call) {
  return launch<Logical<S, false>>(call, "any", MF_BOOL);
}

}  // namespace

void register_reduce_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("sum", dtype_of<S>, dtype_of<sum_out_t<S>>, &launch_sum<S>);
    r.add("prod", dtype_of<S>, dtype_of<sum_out_t<S>>, &launch_prod<S>);
    r.add("all", dtype_of<S>, MF_BOOL, &launch_all<S>);
    r.add("any", dtype_of<S>, MF_BOOL, &launch_any<S>);
    if constexpr (is_floating_v<S>) r.add("mean", dtype_of<S>, dtype_of<S>, &launch_mean<S>);
  });
  register_reduce_minmax_kernels(r);
  register_reduce_stats_kernels(r);
  register_scan_kernels(r);
  register_sort_kernels(r);
}

}  // namespace mfcpu
