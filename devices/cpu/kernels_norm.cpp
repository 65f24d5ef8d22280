// Layer normalisation over rows (core/src/ops_norm.cc, Note [Fused layer
// norm]) for float32/float64. Rows are split over the OpenMP team; a row's
// sums accumulate in double, so the answer does not depend on the split.
#include <algorithm>
#include <cmath>
#include <vector>

#include "dtype.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

// ops: y (rows, n), mean (rows, 1), rstd (rows, 1); x (rows, n)[, w (1, n)][, b (1, n)].
// ival: has_weight, has_bias; fval: eps.
template <class T>
void run_layer_norm(Task& t) {
  const int64_t rows = t.ops[3].shape[0], n = t.ops[3].shape[1];
  const bool has_w = t.ival[0] != 0, has_b = t.ival[1] != 0;
  const double eps = t.fval[2];
  T* y = reinterpret_cast<T*>(t.ops[0].data);
  T* mean = reinterpret_cast<T*>(t.ops[1].data);
  T* rstd = reinterpret_cast<T*>(t.ops[2].data);
  const T* x = reinterpret_cast<const T*>(t.ops[3].data);
  const T* w = has_w ? reinterpret_cast<const T*>(t.ops[4].data) : nullptr;
  const T* b = has_b ? reinterpret_cast<const T*>(t.ops[4 + has_w].data) : nullptr;
  parallel_range(rows, 4 * n, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      const T* xr = x + r * n;
      T* yr = y + r * n;
      double s = 0, v = 0;
#pragma omp simd reduction(+ : s)
      for (int64_t j = 0; j < n; ++j) s += double(xr[j]);
      const double m = s / double(n);
#pragma omp simd reduction(+ : v)
      for (int64_t j = 0; j < n; ++j) v += (double(xr[j]) - m) * (double(xr[j]) - m);
      const T mt = T(m), rs = T(1.0 / std::sqrt(v / double(n) + eps));
      mean[r] = mt;
      rstd[r] = rs;
      if (w && b)
        for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mt) * rs * w[j] + b[j];
      else if (w)
        for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mt) * rs * w[j];
      else if (b)
        for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mt) * rs + b[j];
      else
        for (int64_t j = 0; j < n; ++j) yr[j] = (xr[j] - mt) * rs;
    }
  });
}

// ops: dx (rows, n), dw (1, n), db (1, n); g (rows, n), x (rows, n), mean (rows, 1), rstd (rows, 1)[, w (1, n)].
// dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w, xhat = (x - mean) * rstd;
// dw = sum over rows of g * xhat, db = sum over rows of g: each of a fixed number of
// row slots sums its rows, the slots are added in order (Note [Results independent
// of the team] in strided.h).
template <class T, bool HasW>
void layer_norm_backward_rows(const T* g, const T* x, const T* mean, const T* rstd, const T* w, T* dx, T* pw, T* pb,
                              int64_t r0, int64_t r1, int64_t n) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* gr = g + r * n;
    const T* xr = x + r * n;
    T* dr = dx + r * n;
    const T m = mean[r], rs = rstd[r];
    double a = 0, c = 0;
#pragma omp simd reduction(+ : a, c)
    for (int64_t j = 0; j < n; ++j) {
      const T gw = HasW ? gr[j] * w[j] : gr[j];
      a += double(gw);
      c += double(gw * ((xr[j] - m) * rs));
    }
    const T at = T(a / double(n)), ct = T(c / double(n));
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const T xhat = (xr[j] - m) * rs;
      dr[j] = rs * ((HasW ? gr[j] * w[j] : gr[j]) - at - xhat * ct);
      pw[j] += gr[j] * xhat;
      pb[j] += gr[j];
    }
  }
}

template <class T>
void run_layer_norm_backward(Task& t) {
  const int64_t rows = t.ops[3].shape[0], n = t.ops[3].shape[1];
  T* dx = reinterpret_cast<T*>(t.ops[0].data);
  T* dw = reinterpret_cast<T*>(t.ops[1].data);
  T* db = reinterpret_cast<T*>(t.ops[2].data);
  const T* g = reinterpret_cast<const T*>(t.ops[3].data);
  const T* x = reinterpret_cast<const T*>(t.ops[4].data);
  const T* mean = reinterpret_cast<const T*>(t.ops[5].data);
  const T* rstd = reinterpret_cast<const T*>(t.ops[6].data);
  const T* w = t.num_operands == 8 ? reinterpret_cast<const T*>(t.ops[7].data) : nullptr;
  const int64_t slots = std::max<int64_t>(1, std::min<int64_t>(rows, partition_width()));
  const int64_t per_slot = (rows + slots - 1) / slots;
  std::vector<T> acc(size_t(slots) * size_t(2 * n), T(0));  // per slot: dw partial, then db partial
  parallel_range(slots, per_slot * 8 * n, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      T* pw = acc.data() + size_t(s) * size_t(2 * n);
      const int64_t r0 = s * per_slot, r1 = std::min(rows, r0 + per_slot);
      if (w) layer_norm_backward_rows<T, true>(g, x, mean, rstd, w, dx, pw, pw + n, r0, r1, n);
      else layer_norm_backward_rows<T, false>(g, x, mean, rstd, w, dx, pw, pw + n, r0, r1, n);
    }
  });
  for (int64_t j = 0; j < n; ++j) {
    T sw = 0, sb = 0;
    for (int64_t s = 0; s < slots; ++s) {
      sw += acc[size_t(s) * size_t(2 * n) + size_t(j)];
      sb += acc[size_t(s) * size_t(2 * n) + size_t(n + j)];
    }
    dw[j] = sw;
    db[j] = sb;
  }
}

// A contiguous (rows, n) operand (a size-1 dim may have any stride).
bool is_rows(const MFTensorDesc& d, int64_t rows, int64_t n) {
  return d.ndim == 2 && d.shape[0] == rows && d.shape[1] == n && (n == 1 || d.strides[1] == 1) &&
         (rows == 1 || d.strides[0] == n);
}

template <class T>
MFStatus launch_layer_norm(const MFKernelCall* call) {
  return guarded([&] {
    const char* op = "layer_norm";
    if (!call || call->struct_size < sizeof(MFKernelCall) || call->num_outputs != 3 || call->num_inputs < 1 ||
        call->num_inputs > 3)
      invalid(op, "wrong number of operands");
    int64_t flags[2];
    read_ints(op, call, "has_weight", 1, &flags[0]);
    read_ints(op, call, "has_bias", 1, &flags[1]);
    if (1 + (flags[0] != 0) + (flags[1] != 0) != call->num_inputs) invalid(op, "operands do not match the flags");
    const MFTensorDesc& x = call->inputs[0];
    const int64_t rows = x.ndim == 2 ? x.shape[0] : -1, n = x.ndim == 2 ? x.shape[1] : -1;
    bool ok = is_rows(x, rows, n) && is_rows(call->outputs[0], rows, n) && is_rows(call->outputs[1], rows, 1) &&
              is_rows(call->outputs[2], rows, 1);
    for (int i = 1; i < call->num_inputs; ++i) ok = ok && is_rows(call->inputs[i], 1, n);
    for (int i = 0; i < call->num_inputs; ++i) ok = ok && call->inputs[i].dtype == dtype_of<T>;
    for (int i = 0; i < 3; ++i) ok = ok && call->outputs[i].dtype == dtype_of<T>;
    if (!ok) invalid(op, "expects contiguous (rows, n) operands of the kernel's dtype");
    static constexpr LaunchSpec spec{0, 0, dtype_of<T>, dtype_of<T>, {"has_weight", "has_bias", "eps", nullptr}};
    enqueue_call(op, call, spec, &run_layer_norm<T>);
    return MF_OK;
  });
}

template <class T>
MFStatus launch_layer_norm_backward(const MFKernelCall* call) {
  return guarded([&] {
    const char* op = "layer_norm_backward";
    if (!call || call->struct_size < sizeof(MFKernelCall) || call->num_outputs != 3 ||
        (call->num_inputs != 4 && call->num_inputs != 5))
      invalid(op, "wrong number of operands");
    const MFTensorDesc& g = call->inputs[0];
    const int64_t rows = g.ndim == 2 ? g.shape[0] : -1, n = g.ndim == 2 ? g.shape[1] : -1;
    bool ok = is_rows(g, rows, n) && is_rows(call->inputs[1], rows, n) && is_rows(call->inputs[2], rows, 1) &&
              is_rows(call->inputs[3], rows, 1) && is_rows(call->outputs[0], rows, n) &&
              is_rows(call->outputs[1], 1, n) && is_rows(call->outputs[2], 1, n) &&
              (call->num_inputs == 4 || is_rows(call->inputs[4], 1, n));
    for (int i = 0; i < call->num_inputs; ++i) ok = ok && call->inputs[i].dtype == dtype_of<T>;
    for (int i = 0; i < 3; ++i) ok = ok && call->outputs[i].dtype == dtype_of<T>;
    if (!ok) invalid(op, "expects contiguous (rows, n) operands of the kernel's dtype");
    static constexpr LaunchSpec spec{0, 0, dtype_of<T>, dtype_of<T>, {nullptr, nullptr, nullptr, nullptr}};
    enqueue_call(op, call, spec, &run_layer_norm_backward<T>);
    return MF_OK;
  });
}

}  // namespace

void register_norm_kernels(Registrar& r) {
  r.add("layer_norm", dtype_of<float>, dtype_of<float>, &launch_layer_norm<float>);
  r.add("layer_norm", dtype_of<double>, dtype_of<double>, &launch_layer_norm<double>);
  r.add("layer_norm_backward", dtype_of<float>, dtype_of<float>, &launch_layer_norm_backward<float>);
  r.add("layer_norm_backward", dtype_of<double>, dtype_of<double>, &launch_layer_norm_backward<double>);
}

}  // namespace mfcpu
