// Extremes: amax/amin (values over any dims) and max/min (values and the
// int64 index along the one reduced dim; argmax/argmin use them too).
// NaN propagates: it beats every number, and the first NaN's index wins.
// Among equal values the first index wins.
#include "kernels_reduce.h"

namespace mfcpu {
namespace {

using red::ReducerBase;

template <class S, bool kMax>
struct Order {
  using C = compute_t<S>;
  static C identity() {
    if constexpr (std::is_same<S, boolean>::value) return kMax ? 0 : 1;
    else if constexpr (is_floating_v<S>) return kMax ? -std::numeric_limits<C>::infinity()
                                                     : std::numeric_limits<C>::infinity();
    else return kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  }
  // Whether v replaces the current extreme a (NaN replaces anything but NaN).
  static bool takes(C v, C a) { return (kMax ? v > a : v < a) || (v != v && a == a); }
  static C pick(C a, C v) { return ((kMax ? v > a : v < a) || v != v) ? v : a; }
};

// float and double: explicit SIMD (their comparisons would keep the
// auto-vectoriser away, see kernels_reduce.h).
template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = red::simd::f4;
};
template <>
struct Vec<double> {
  using type = red::simd::d2;
};
template <class T>
constexpr bool kHasVec = std::is_same<T, float>::value || std::is_same<T, double>::value;

template <class T, bool kMax, class V>
inline V pick_vec(V a, V v) {
  return ((kMax ? v > a : v < a) | (v != v)) ? v : a;
}

template <class S, bool kMax>
struct Extreme : ReducerBase<Extreme<S, kMax>, S, compute_t<S>> {
  using C = compute_t<S>;
  using O = Order<S, kMax>;
  C init() const { return O::identity(); }
  void add(C& a, S x, int64_t) const { a = O::pick(a, load(x)); }
  void merge(C& a, const C& b) const { a = O::pick(a, b); }
  S finish(const C& a, int64_t) const { return mfcpu::store<S>(a); }
  C run(const S* p, int64_t stride, int64_t n, int64_t) const {
    if constexpr (std::is_same<S, float>::value) {  // at the CPU's widest SIMD
      if (stride == 1) return kMax ? red::simd::max_nan(p, n) : red::simd::min_nan(p, n);
    }
    C a = O::identity();
    int64_t j = 0;
    if constexpr (kHasVec<S>) {
      if (stride == 1) {  // four independent vectors
        using V = typename Vec<S>::type;
        constexpr int64_t W = sizeof(V) / sizeof(S);
        V v0 = red::simd::splat(O::identity()), v1 = v0, v2 = v0, v3 = v0;
        for (; j + 4 * W <= n; j += 4 * W) {
          v0 = pick_vec<S, kMax>(v0, red::simd::load(p + j));
          v1 = pick_vec<S, kMax>(v1, red::simd::load(p + j + W));
          v2 = pick_vec<S, kMax>(v2, red::simd::load(p + j + 2 * W));
          v3 = pick_vec<S, kMax>(v3, red::simd::load(p + j + 3 * W));
        }
        v0 = pick_vec<S, kMax>(pick_vec<S, kMax>(v0, v1), pick_vec<S, kMax>(v2, v3));
        for (int64_t l = 0; l < W; ++l) a = O::pick(a, v0[l]);
      }
    }
    for (; j < n; ++j) a = O::pick(a, load(p[j * stride]));
    return a;
  }
  void row(C* acc, const S* p, int64_t stride, int64_t n, int64_t) const {
    if constexpr (std::is_same<S, float>::value) {
      if (stride == 1) return kMax ? red::simd::max_cols(acc, p, n) : red::simd::min_cols(acc, p, n);
    }
    int64_t j = 0;
    if constexpr (kHasVec<S>) {
      if (stride == 1) {
        using V = typename Vec<S>::type;
        constexpr int64_t W = sizeof(V) / sizeof(S);
        for (; j + W <= n; j += W)
          red::simd::store(acc + j, pick_vec<S, kMax>(red::simd::load(acc + j), red::simd::load(p + j)));
      }
    }
    for (; j < n; ++j) acc[j] = O::pick(acc[j], load(p[j * stride]));
  }
};

template <class C>
struct ValueIndex {
  C v;
  int64_t i;  // -1: nothing folded yet
};

template <class S, bool kMax>
struct ArgExtreme : ReducerBase<ArgExtreme<S, kMax>, S, ValueIndex<compute_t<S>>> {
  using C = compute_t<S>;
  using A = ValueIndex<C>;
  using O = Order<S, kMax>;
  static constexpr int kOutputs = 2;
  A init() const { return A{O::identity(), -1}; }
  void add(A& a, S x, int64_t i) const {
    const C v = load(x);
    if (a.i < 0 || O::takes(v, a.v)) a = A{v, i};
  }
  void merge(A& a, const A& b) const {
    if (b.i >= 0 && (a.i < 0 || O::takes(b.v, a.v))) a = b;
  }
  void store(char* const* outs, int64_t oo, const A& a, int64_t) const {
    reinterpret_cast<S*>(outs[0])[oo] = mfcpu::store<S>(a.v);
    reinterpret_cast<int64_t*>(outs[1])[oo] = a.i < 0 ? 0 : a.i;
  }
};

template <class Red>
void run_task(Task& task) {
  red::run_reduce(Red{}, task);
}

template <class S, bool kMax>
MFStatus launch_extreme(const MFKernelCall* call) {
  const char* op = kMax ? "amax" : "amin";
  return guarded([&] {
    const LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {nullptr, nullptr}};
    red::check_reduce_call(op, call, spec, false);
    enqueue_call(op, call, spec, &run_task<Extreme<S, kMax>>);
    return MF_OK;
  });
}

template <class S, bool kMax>
MFStatus launch_arg(const MFKernelCall* call) {
  const char* op = kMax ? "max" : "min";
  return guarded([&] {
    const LaunchSpec spec{1, 2, dtype_of<S>, MF_DTYPE_ANY, {nullptr, nullptr}};
    red::check_reduce_call(op, call, spec, true);
    if (call->outputs[0].dtype != dtype_of<S> || call->outputs[1].dtype != MF_INT64)
      invalid(op, "outputs must be (values of x's dtype, int64 indices)");
    enqueue_call(op, call, spec, &run_task<ArgExtreme<S, kMax>>);
    return MF_OK;
  });
}

}  // namespace

void register_reduce_minmax_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("amax", dtype_of<S>, dtype_of<S>, &launch_extreme<S, true>);
    r.add("amin", dtype_of<S>, dtype_of<S>, &launch_extreme<S, false>);
    r.add("max", dtype_of<S>, dtype_of<S>, &launch_arg<S, true>);
    r.add("min", dtype_of<S>, dtype_of<S>, &launch_arg<S, false>);
  });
}

}  // namespace mfcpu
