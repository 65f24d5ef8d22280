// Statistics and norms: var/std, vector_norm, logsumexp (floating types).
#include "kernels_reduce.h"

namespace mfcpu {
namespace {

using red::ReducerBase;

// ------------------------------------------------------------ var / std

// Count, mean and sum of squared deviations (M2) of the elements folded so
// far, in double. Runs are exact two-pass sums; partials merge with Chan et
// al.'s formula and single elements with Welford's update, so no step
// subtracts two large sums (the textbook E[x^2] - E[x]^2 cancels badly).
struct Moments {
  double n, mean, m2;
};

template <class S, bool kStd>
struct Variance : ReducerBase<Variance<S, kStd>, S, Moments> {
  double correction = 1;
  Moments init() const { return Moments{0, 0, 0}; }
  void add(Moments& a, S x, int64_t) const {
    const double v = double(load(x));
    a.n += 1;
    const double d = v - a.mean;
    a.mean += d / a.n;
    a.m2 += d * (v - a.mean);
  }
  void merge(Moments& a, const Moments& b) const {
    if (b.n == 0) return;
    if (a.n == 0) {
      a = b;
      return;
    }
    const double n = a.n + b.n, d = b.mean - a.mean;
    a.mean += d * (b.n / n);
    a.m2 += b.m2 + d * d * (a.n * b.n / n);
    a.n = n;
  }
  S finish(const Moments& a, int64_t) const {
    // PyTorch divides by max(0, N - correction): 0/0 is NaN, M2/0 is inf.
    const double v = a.m2 / std::max(0.0, a.n - correction);
    return cast<S>(kStd ? std::sqrt(v) : v);
  }
  Moments run(const S* p, int64_t stride, int64_t n, int64_t) const {
    if (n == 0) return init();
    constexpr int kLanes = 8;
    double lane[kLanes] = {};
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) lane[l] += double(load(p[(j + l) * stride]));
    for (; j < n; ++j) lane[0] += double(load(p[j * stride]));
    double sum = 0;
    for (int l = 0; l < kLanes; ++l) sum += lane[l];
    const double mean = sum / double(n);
    double dev[kLanes] = {};
    for (j = 0; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const double d = double(load(p[(j + l) * stride])) - mean;
        dev[l] += d * d;
      }
    for (; j < n; ++j) {
      const double d = double(load(p[j * stride])) - mean;
      dev[0] += d * d;
    }
    double m2 = 0;
    for (int l = 0; l < kLanes; ++l) m2 += dev[l];
    return Moments{double(n), mean, m2};
  }
  // Every accumulator of a row has folded the same rows: one division per row.
  void row(Moments* acc, const S* p, int64_t stride, int64_t n, int64_t) const {
    if (n == 0) return;
    const double count = acc[0].n + 1, inv = 1.0 / count;
    for (int64_t j = 0; j < n; ++j) {
      const double v = double(load(p[j * stride]));
      const double d = v - acc[j].mean;
      acc[j].mean += d * inv;
      acc[j].m2 += d * (v - acc[j].mean);
      acc[j].n = count;
    }
  }
};

template <class S, bool kStd>
void run_variance(Task& task) {
  Variance<S, kStd> r;
  r.correction = task.fval[0];
  red::run_reduce(r, task);
}

// ------------------------------------------------------------ vector_norm

enum class NormKind { Zero, One, Two, Inf, NegInf, P };

// (sum |x|^p)^(1/p), accumulated in double; the infinity norms are exact
// extremes of |x| (NaN propagating).
template <class S, NormKind K>
struct Norm : ReducerBase<Norm<S, K>, S, double> {
  double p = 2;
  static constexpr bool kExtreme = K == NormKind::Inf || K == NormKind::NegInf;
  double init() const { return K == NormKind::NegInf ? std::numeric_limits<double>::infinity() : 0.0; }
  static double pick(double a, double v) {
    return ((K == NormKind::Inf ? v > a : v < a) || v != v) ? v : a;
  }
  double term(double v) const {
    if constexpr (K == NormKind::Zero) return v != 0 ? 1.0 : 0.0;
    else if constexpr (K == NormKind::One) return std::fabs(v);
    else if constexpr (K == NormKind::Two) return v * v;
    else if constexpr (K == NormKind::P) return std::pow(std::fabs(v), p);
    else return std::fabs(v);
  }
  void add(double& a, S x, int64_t) const {
    const double t = term(double(load(x)));
    a = kExtreme ? pick(a, t) : a + t;
  }
  void merge(double& a, const double& b) const { a = kExtreme ? pick(a, b) : a + b; }
  S finish(const double& a, int64_t) const {
    if constexpr (K == NormKind::Two) return cast<S>(std::sqrt(a));
    else if constexpr (K == NormKind::P) return cast<S>(std::pow(a, 1.0 / p));
    else return cast<S>(a);
  }
  double run(const S* q, int64_t stride, int64_t n, int64_t) const {
    constexpr int kLanes = 8;
    double lane[kLanes];
    for (int l = 0; l < kLanes; ++l) lane[l] = init();
    int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        const double t = term(double(load(q[(j + l) * stride])));
        lane[l] = kExtreme ? pick(lane[l], t) : lane[l] + t;
      }
    for (; j < n; ++j) add(lane[0], q[j * stride], 0);
    double a = init();
    for (int l = 0; l < kLanes; ++l) merge(a, lane[l]);
    return a;
  }
};

template <class S, NormKind K>
void run_norm_kind(Task& task) {
  Norm<S, K> r;
  r.p = task.fval[0];
  red::run_reduce(r, task);
}

template <class S>
void run_norm(Task& task) {
  const double p = task.fval[0];
  if (p == 0) run_norm_kind<S, NormKind::Zero>(task);
  else if (p == 1) run_norm_kind<S, NormKind::One>(task);
  else if (p == 2) run_norm_kind<S, NormKind::Two>(task);
  else if (std::isinf(p)) p > 0 ? run_norm_kind<S, NormKind::Inf>(task) : run_norm_kind<S, NormKind::NegInf>(task);
  else run_norm_kind<S, NormKind::P>(task);
}

// ------------------------------------------------------------ logsumexp

// sum(exp(x)) = s * exp(m) with m the largest finite element folded so far;
// infinities and NaN are flags (exp(inf - inf) would make NaN of +inf).
template <class C>
struct ExpSum {
  C m, s;
  bool nan, inf;
};

template <class S>
struct LogSumExp : ReducerBase<LogSumExp<S>, S, ExpSum<compute_t<S>>> {
  using C = compute_t<S>;
  using A = ExpSum<C>;
  static constexpr C kInf = std::numeric_limits<C>::infinity();
  A init() const { return A{-kInf, 0, false, false}; }
  void add(A& a, S x, int64_t) const {
    const C v = load(x);
    if (v != v) a.nan = true;
    else if (v == kInf) a.inf = true;
    else if (v == -kInf) return;
    else if (v > a.m) a.s = a.s * std::exp(a.m - v) + 1, a.m = v;
    else a.s += std::exp(v - a.m);
  }
  void merge(A& a, const A& b) const {
    a.nan |= b.nan;
    a.inf |= b.inf;
    if (b.s == 0) return;
    if (a.s == 0) {
      a.m = b.m, a.s = b.s;
      return;
    }
    const C m = std::max(a.m, b.m);
    a.s = a.s * std::exp(a.m - m) + b.s * std::exp(b.m - m);
    a.m = m;
  }
  S finish(const A& a, int64_t) const {
    if (a.nan) return mfcpu::store<S>(std::numeric_limits<C>::quiet_NaN());
    if (a.inf) return mfcpu::store<S>(kInf);
    if (a.s == 0) return mfcpu::store<S>(-kInf);  // nothing but -inf, or no element
    return mfcpu::store<S>(a.m + std::log(a.s));
  }
  // Two passes over a run: its maximum, then the shifted exponentials.
  A run(const S* p, int64_t stride, int64_t n, int64_t) const {
    A a = init();
    if constexpr (std::is_same<S, float>::value) {
      if (stride == 1) {
        const float m = red::simd::max_nan(p, n);
        a.nan = m != m;
        a.inf = m == kInf;
        if (!a.nan && !a.inf && m != -kInf) a.m = m, a.s = red::simd::exp_sum(p, m, n, nullptr);
        return a;
      }
    }
    C m = -kInf;
    for (int64_t j = 0; j < n; ++j) {
      const C v = load(p[j * stride]);
      m = v > m ? v : m;
      a.nan |= v != v;
    }
    a.inf = m == kInf;
    if (a.nan || a.inf || m == -kInf) return a;
    C s = 0;
    for (int64_t j = 0; j < n; ++j) s += std::exp(C(load(p[j * stride])) - m);
    a.m = m;
    a.s = s;
    return a;
  }
};

template <class S>
void run_logsumexp(Task& task) {
  red::run_reduce(LogSumExp<S>{}, task);
}

template <class S>
MFStatus launch_stat(const MFKernelCall* call, const char* op, const char* attr, Task::Fn fn) {
  return guarded([&] {
    const LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {attr, nullptr}};
    red::check_reduce_call(op, call, spec, false);
    enqueue_call(op, call, spec, fn);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_var(const MFKernelCall* call) {
  return launch_stat<S>(call, "var", "correction", &run_variance<S, false>);
}
template <class S>
MFStatus launch_std(const MFKernelCall* call) {
  return launch_stat<S>(call, "std", "correction", &run_variance<S, true>);
}
template <class S>
MFStatus launch_norm(const MFKernelCall* call) {
  return launch_stat<S>(call, "vector_norm", "p", &run_norm<S>);
}
template <class S>
MFStatus launch_logsumexp(const MFKernelCall* call) {
  return launch_stat<S>(call, "logsumexp", nullptr, &run_logsumexp<S>);
}

}  // namespace

void register_reduce_stats_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (is_floating_v<S>) {
      r.add("var", dtype_of<S>, dtype_of<S>, &launch_var<S>);
      r.add("std", dtype_of<S>, dtype_of<S>, &launch_std<S>);
      r.add("vector_norm", dtype_of<S>, dtype_of<S>, &launch_norm<S>);
      r.add("logsumexp", dtype_of<S>, dtype_of<S>, &launch_logsumexp<S>);
    }
  });
}

}  // namespace mfcpu
