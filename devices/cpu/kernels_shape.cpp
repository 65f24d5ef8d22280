// Shape and indexing kernels: flip, tril/triu and masked_fill here; index and
// index_put in kernels_shape_index.cpp, nonzero in kernels_shape_nonzero.cpp.
// They move elements without arithmetic, so each is instantiated once per
// element size (the bits of a same-size unsigned type) and registered for
// every dtype of that size.
#include <algorithm>
#include <cstring>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {

void register_shape_index_kernels(Registrar& r);
void register_shape_nonzero_kernels(Registrar& r);

namespace {

void check_base(const char* op, const MFKernelCall* call, int inputs) {
  if (!call || call->struct_size < sizeof(MFKernelCall)) invalid(op, "bad MFKernelCall");
  if (call->device != 0) invalid(op, "no such cpu device");
  if (call->num_inputs != inputs || call->num_outputs != 1) invalid(op, "wrong number of operands");
}

// Enqueues fn with raw integer arguments in Task::ival (values already
// converted by the launch half).
void enqueue_raw(const MFKernelCall* call, Task::Fn fn, int64_t i0, int64_t i1 = 0) {
  stream_from_handle(call->stream)->enqueue([&](Task& task) {
    task.fn = fn;
    task.set_kernel_call(call);
    task.ival[0] = i0;
    task.ival[1] = i1;
  });
}

const MFAttr& scalar_attr(const char* op, const MFKernelCall* call, const char* name) {
  const MFAttr* a = find_attr(call, name);
  if (!a || a->kind != MF_ATTR_SCALAR) invalid(op, (std::string("missing scalar attribute '") + name + "'").c_str());
  return *a;
}

// ------------------------------------------------------------ flip

// out = x read backwards along the flipped dims: x arrives with those dims'
// strides negated and its pointer on their last element.
template <class T>
struct FlipLoop {
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t es = sizeof(T);
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    if (s[0] == es && s[1] == es) {
      std::memcpy(o, x, size_t(n) * es);
    } else if (s[0] == es && s[1] == -es) {  // a reversed contiguous row
      for (int64_t i = 0; i < n; ++i) o[i] = x[-i];
    } else {
      for (int64_t i = 0; i < n; ++i) at<T>(p[0], s[0], i) = at<const T>(p[1], s[1], i);
    }
  }
};

template <class T>
void run_flip(Task& task) {
  const Operand& x = task.ops[1];
  const uint64_t mask = static_cast<uint64_t>(task.ival[0]);
  int64_t strides[kMaxDims];
  Operand xf = x;
  for (int d = 0; d < x.ndim; ++d) {
    const bool flipped = (mask >> d) & 1;
    strides[d] = flipped ? -x.strides[d] : x.strides[d];
    if (flipped) xf.data += (x.shape[d] - 1) * x.strides[d] * int64_t(sizeof(T));
  }
  xf.strides = strides;
  const Operand ops[2] = {task.ops[0], xf};
  const size_t sizes[2] = {sizeof(T), sizeof(T)};
  const auto g = make_geometry<2>(ops, sizes);
  FlipLoop<T> loop;
  run_loop(g, loop);
}

template <class S>
MFStatus launch_flip(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {"dims", nullptr}};
    check_call("flip", call, spec);
    check_same_shapes("flip", call);
    if (call->outputs[0].ndim > 64) invalid("flip", "at most 64 dims");
    enqueue_call("flip", call, spec, &run_flip<bits_t<S>>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ tril, triu

// Row i of each matrix keeps columns [lo, hi) and zeroes the rest (all-zero
// bits are zero in every dtype). In place (out == x) only the zeroing runs.
template <class T, bool kLower>
void run_triangle(Task& task) {
  const Operand& out = task.ops[0];
  const Operand& x = task.ops[1];
  const int nd = out.ndim;
  const int64_t rows = out.shape[nd - 2], cols = out.shape[nd - 1];
  // Beyond [-rows - 1, cols + 1] every diagonal keeps the same columns; the
  // clamp keeps i + diag + 1 from overflowing (diagonal=2**63-1 zeroed all).
  const int64_t diag = std::clamp<int64_t>(task.ival[0], -rows - 1, cols + 1);
  const int64_t ors = out.strides[nd - 2], ocs = out.strides[nd - 1];
  const int64_t xrs = x.strides[nd - 2], xcs = x.strides[nd - 1];
  bool in_place = out.data == x.data;
  for (int d = 0; d < nd && in_place; ++d) in_place = out.strides[d] == x.strides[d];
  int64_t matrices = 1;
  for (int d = 0; d < nd - 2; ++d) matrices *= out.shape[d];
  T* o = reinterpret_cast<T*>(out.data);
  const T* xp = reinterpret_cast<const T*>(x.data);
  parallel_range(matrices * rows, cols, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t rem = r / rows, oo = 0, xo = 0;
      const int64_t i = r % rows;
      for (int d = nd - 3; d >= 0; --d) {
        const int64_t idx = rem % out.shape[d];
        rem /= out.shape[d];
        oo += idx * out.strides[d];
        xo += idx * x.strides[d];
      }
      T* orow = o + oo + i * ors;
      const T* xrow = xp + xo + i * xrs;
      // kept columns: tril j <= i + diag, triu j >= i + diag
      const int64_t edge = kLower ? i + diag + 1 : i + diag;
      const int64_t cut = edge < 0 ? 0 : edge > cols ? cols : edge;
      const int64_t keep_lo = kLower ? 0 : cut, keep_hi = kLower ? cut : cols;
      auto zero = [&](int64_t a, int64_t b) {
        if (a >= b) return;
        if (ocs == 1) std::memset(orow + a, 0, size_t(b - a) * sizeof(T));
        else for (int64_t j = a; j < b; ++j) orow[j * ocs] = T(0);
      };
      zero(0, keep_lo);
      zero(keep_hi, cols);
      if (in_place || keep_lo >= keep_hi) continue;
      if (ocs == 1 && xcs == 1) std::memcpy(orow + keep_lo, xrow + keep_lo, size_t(keep_hi - keep_lo) * sizeof(T));
      else for (int64_t j = keep_lo; j < keep_hi; ++j) orow[j * ocs] = xrow[j * xcs];
    }
  });
}

template <class S, bool kLower>
MFStatus launch_triangle(const MFKernelCall* call) {
  const char* op = kLower ? "tril" : "triu";
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, dtype_of<S>, {"diagonal", nullptr}};
    check_call(op, call, spec);
    check_same_shapes(op, call);
    if (call->outputs[0].ndim < 2) invalid(op, "needs at least 2 dims");
    enqueue_call(op, call, spec, &run_triangle<bits_t<S>, kLower>);
    return MF_OK;
  });
}

// ------------------------------------------------------------ masked_fill

template <class T>
struct MaskedFillLoop {  // p: out, x, mask (bool bytes)
  T value;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t es = sizeof(T);
    T* o = reinterpret_cast<T*>(p[0]);
    const T* x = reinterpret_cast<const T*>(p[1]);
    const uint8_t* m = reinterpret_cast<const uint8_t*>(p[2]);
    if (s[0] == es && s[1] == es && s[2] == 1) {
      for (int64_t i = 0; i < n; ++i) o[i] = m[i] ? value : x[i];  // a blend, vectorised
    } else if (s[2] == 0) {  // one mask value for the run
      if (*m) {
        for (int64_t i = 0; i < n; ++i) at<T>(p[0], s[0], i) = value;
      } else if (p[0] != p[1] || s[0] != s[1]) {
        for (int64_t i = 0; i < n; ++i) at<T>(p[0], s[0], i) = at<const T>(p[1], s[1], i);
      }
    } else {
      for (int64_t i = 0; i < n; ++i)
        at<T>(p[0], s[0], i) = m[i * s[2]] ? value : at<const T>(p[1], s[1], i);
    }
  }
};

template <class T>
void run_masked_fill(Task& task) {
  const size_t sizes[3] = {sizeof(T), sizeof(T), 1};
  const auto g = make_geometry<3>(task.ops, sizes);
  T value;
  std::memcpy(&value, &task.ival[0], sizeof(T));  // the bits the launch half stored
  MaskedFillLoop<T> loop{value};
  run_loop(g, loop);
}

template <class S>
MFStatus launch_masked_fill(const MFKernelCall* call) {
  return guarded([&] {
    check_base("masked_fill", call, 2);
    if (call->inputs[0].dtype != dtype_of<S> || call->outputs[0].dtype != dtype_of<S>)
      invalid("masked_fill", "dtype does not match the kernel");
    if (call->inputs[1].dtype != MF_BOOL) invalid("masked_fill", "the mask must be bool");
    check_same_shapes("masked_fill", call);
    const MFAttr& a = scalar_attr("masked_fill", call, "value");
    // Converted here, once: floating kernels read `f`, the others `i`.
    const S v = is_floating_v<S> ? cast<S>(a.f) : cast<S>(a.i);
    int64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(S));
    enqueue_raw(call, &run_masked_fill<bits_t<S>>, bits);
    return MF_OK;
  });
}

}  // namespace

void register_shape_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("flip", dtype_of<S>, dtype_of<S>, &launch_flip<S>);
    r.add("tril", dtype_of<S>, dtype_of<S>, &launch_triangle<S, true>);
    r.add("triu", dtype_of<S>, dtype_of<S>, &launch_triangle<S, false>);
    r.add("masked_fill", dtype_of<S>, dtype_of<S>, &launch_masked_fill<S>);
  });
  register_shape_index_kernels(r);
  register_shape_nonzero_kernels(r);
}

}  // namespace mfcpu
