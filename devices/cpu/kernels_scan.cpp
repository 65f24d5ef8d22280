// Dim-wise ops over rows (the op's dim is every operand's last dim):
// cumsum/cumprod and softmax/log_softmax. Rows run in parallel.
#include "kernels_reduce.h"

namespace mfcpu {
namespace {

// ------------------------------------------------------------ cumsum / cumprod

// Accumulation as in sum: floating types in double, integers and bool in
// wrapping 64-bit (out is int64 for them).
template <class S>
using acc_t = std::conditional_t<is_floating_v<S>, double, uint64_t>;
template <class S>
using scan_out_t = std::conditional_t<is_floating_v<S>, S, int64_t>;

template <class S, bool kProd>
void run_scan(Task& task) {
  using SO = scan_out_t<S>;
  using A = acc_t<S>;
  const size_t sizes[2] = {sizeof(SO), sizeof(S)};
  const red::Rows<2> rows(task.ops, sizes);
  const int64_t n = rows.len[1], os = rows.stride[0], xs = rows.stride[1];
  parallel_range(rows.count, n, [&](int64_t lo, int64_t hi) {
    rows.for_rows(lo, hi, [&](char* const* p) {
      SO* o = reinterpret_cast<SO*>(p[0]);
      const S* x = reinterpret_cast<const S*>(p[1]);
      A acc = kProd ? A(1) : A(0);
      for (int64_t i = 0; i < n; ++i) {
        const A v = A(load(x[i * xs]));  // integers: two's complement into uint64
        acc = kProd ? acc * v : acc + v;
        if constexpr (is_floating_v<S>) o[i * os] = cast<S>(acc);
        else o[i * os] = int64_t(acc);
      }
    });
  });
}

// ------------------------------------------------------------ softmax

// One contiguous row in the compute type (o may be x). float rows use the
// vectorised kernels_reduce_simd.cpp; double rows do the same steps in
// scalar code: subtract the maximum first so exp never overflows; a NaN
// anywhere makes the row NaN, as in PyTorch.
template <class C, bool kLog>
inline void softmax_row(const C* x, C* o, int64_t n) {
  if constexpr (std::is_same<C, float>::value) {
    red::simd::softmax_row(x, o, n, kLog);
  } else {
    C m = -std::numeric_limits<C>::infinity();
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      m = x[i] > m ? x[i] : m;
      nan |= x[i] != x[i];
    }
    if (nan) m = std::numeric_limits<C>::quiet_NaN();
    C s = 0;
    for (int64_t i = 0; i < n; ++i) {
      const C e = std::exp(x[i] - m);
      if (!kLog) o[i] = e;
      s += e;
    }
    if constexpr (kLog) {
      const C log_s = std::log(s);
      for (int64_t i = 0; i < n; ++i) o[i] = (x[i] - m) - log_s;
    } else {
      const C inv = C(1) / s;
      for (int64_t i = 0; i < n; ++i) o[i] *= inv;
    }
  }
}

// float rows that lie side by side in memory (softmax over a dim that is
// not the innermost one): b rows at a time, each step a contiguous slice
// across them, instead of gathering every row through strided loads.
template <bool kLog>
void softmax_cols(const float* x, int64_t xs, float* o, int64_t os, int64_t n, int64_t b, float* m, float* s) {
  std::fill(m, m + b, -std::numeric_limits<float>::infinity());
  std::fill(s, s + b, 0.0f);
  for (int64_t i = 0; i < n; ++i) red::simd::max_cols(m, x + i * xs, b);
  for (int64_t i = 0; i < n; ++i) red::simd::exp_cols(x + i * xs, m, kLog ? nullptr : o + i * os, s, b);
  if constexpr (kLog) {
    for (int64_t r = 0; r < b; ++r) s[r] = std::log(s[r]);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < b; ++r) o[i * os + r] = (x[i * xs + r] - m[r]) - s[r];
  } else {
    for (int64_t r = 0; r < b; ++r) s[r] = 1.0f / s[r];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t r = 0; r < b; ++r) o[i * os + r] *= s[r];
  }
}

template <bool kLog>
bool try_softmax_cols(const red::Rows<2>& rows) {
  const int last = rows.nd - 1;
  if (last < 0 || rows.bstrides[0][last] != int64_t(sizeof(float)) ||
      rows.bstrides[1][last] != int64_t(sizeof(float)) || rows.stride[0] == 1 || rows.stride[1] == 1)
    return false;
  const int64_t n = rows.len[1], width = rows.shape[last];
  // A block's three passes stay within ~256 KiB (L2).
  const int64_t b = std::min<int64_t>(width, std::max<int64_t>(16, (int64_t(65536) / std::max<int64_t>(n, 1)) / 16 * 16));
  const int64_t blocks = (width + b - 1) / b, outer = rows.count / width;
  parallel_range(outer * blocks, n * b * 16, [&](int64_t lo, int64_t hi) {
    std::vector<float> m(static_cast<size_t>(b)), s(static_cast<size_t>(b));
    for (int64_t item = lo; item < hi; ++item) {
      const int64_t row0 = (item / blocks) * width + (item % blocks) * b;
      const int64_t cnt = std::min(b, width - (item % blocks) * b);
      rows.for_rows(row0, row0 + 1, [&](char* const* p) {
        softmax_cols<kLog>(reinterpret_cast<const float*>(p[1]), rows.stride[1], reinterpret_cast<float*>(p[0]),
                           rows.stride[0], n, cnt, m.data(), s.data());
      });
    }
  });
  return true;
}

template <class S, bool kLog>
void run_softmax(Task& task) {
  using C = compute_t<S>;
  const size_t sizes[2] = {sizeof(S), sizeof(S)};
  const red::Rows<2> rows(task.ops, sizes);
  if constexpr (std::is_same<S, float>::value) {
    if (try_softmax_cols<kLog>(rows)) return;
  }
  const int64_t n = rows.len[1], os = rows.stride[0], xs = rows.stride[1];
  parallel_range(rows.count, 16 * n, [&](int64_t lo, int64_t hi) {
    std::vector<C> buf;  // rows that are strided or need widening go through here
    rows.for_rows(lo, hi, [&](char* const* p) {
      S* o = reinterpret_cast<S*>(p[0]);
      const S* x = reinterpret_cast<const S*>(p[1]);
      if constexpr (std::is_same<S, C>::value) {
        if (xs == 1 && os == 1) return softmax_row<C, kLog>(x, o, n);
      }
      buf.resize(size_t(n));
      for (int64_t i = 0; i < n; ++i) buf[size_t(i)] = load(x[i * xs]);
      softmax_row<C, kLog>(buf.data(), buf.data(), n);
      for (int64_t i = 0; i < n; ++i) o[i * os] = mfcpu::store<S>(buf[size_t(i)]);
    });
  });
}

template <class S>
MFStatus launch_rows(const MFKernelCall* call, const char* op, int32_t out_dtype, Task::Fn fn) {
  return guarded([&] {
    const LaunchSpec spec{1, 1, dtype_of<S>, out_dtype, {nullptr, nullptr}};
    red::check_rows_call(op, call, spec, true);
    enqueue_call(op, call, spec, fn);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_cumsum(const MFKernelCall* call) {
  return launch_rows<S>(call, "cumsum", dtype_of<scan_out_t<S>>, &run_scan<S, false>);
}
template <class S>
MFStatus launch_cumprod(const MFKernelCall* call) {
  return launch_rows<S>(call, "cumprod", dtype_of<scan_out_t<S>>, &run_scan<S, true>);
}
template <class S>
MFStatus launch_softmax(const MFKernelCall* call) {
  return launch_rows<S>(call, "softmax", dtype_of<S>, &run_softmax<S, false>);
}
template <class S>
MFStatus launch_log_softmax(const MFKernelCall* call) {
  return launch_rows<S>(call, "log_softmax", dtype_of<S>, &run_softmax<S, true>);
}

}  // namespace

void register_scan_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("cumsum", dtype_of<S>, dtype_of<scan_out_t<S>>, &launch_cumsum<S>);
    r.add("cumprod", dtype_of<S>, dtype_of<scan_out_t<S>>, &launch_cumprod<S>);
    if constexpr (is_floating_v<S>) {
      r.add("softmax", dtype_of<S>, dtype_of<S>, &launch_softmax<S>);
      r.add("log_softmax", dtype_of<S>, dtype_of<S>, &launch_log_softmax<S>);
    }
  });
}

}  // namespace mfcpu
