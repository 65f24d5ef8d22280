// nonzero_count and nonzero. The core sizes nonzero's output from the count;
// the coordinates must come out in row-major order, so the elements are
// visited in logical (not memory) order, split into one contiguous range of
// linear indices per thread: each counts its range, then writes its
// coordinates after those of the ranges before it.
#include <vector>

#include "dtype.h"
#include "launch.h"
#include "strided.h"

namespace mfcpu {
namespace {

template <class S>
inline bool is_nonzero(const char* p) {
  return load(*reinterpret_cast<const S*>(p)) != 0;  // NaN counts, -0.0 does not
}

// Calls row(p, stride, j0, j1, idx) for the pieces of x's innermost rows
// that make up the linear indices [lo, hi) in row-major order: elements j0 <=
// j < j1 of the row at p (byte stride `stride`), whose outer coordinates are
// idx[0 .. ndim-1). A 0-dim x is one row of one element.
template <class Row>
void walk_rows(const Operand& x, size_t elem, int64_t lo, int64_t hi, Row&& row) {
  if (lo >= hi) return;
  const int nd = x.ndim;
  if (nd == 0) return row(x.data, int64_t(0), lo, hi, static_cast<const int64_t*>(nullptr));
  const int last = nd - 1;
  const int64_t cols = x.shape[last], stride = x.strides[last] * int64_t(elem);
  int64_t idx[kMaxDims];
  int64_t rem = lo / cols, j0 = lo % cols;
  const char* p = x.data;  // start of the current row
  for (int d = last - 1; d >= 0; --d) {
    idx[d] = rem % x.shape[d];
    rem /= x.shape[d];
    p += idx[d] * x.strides[d] * int64_t(elem);
  }
  for (int64_t left = hi - lo;;) {
    const int64_t j1 = std::min(cols, j0 + left);
    row(p, stride, j0, j1, idx);
    left -= j1 - j0;
    if (left == 0) return;
    j0 = 0;
    for (int d = last - 1; d >= 0; --d) {  // next row, with carry
      p += x.strides[d] * int64_t(elem);
      if (++idx[d] < x.shape[d]) break;
      p -= x.shape[d] * x.strides[d] * int64_t(elem);
      idx[d] = 0;
    }
  }
}

int parts_for(int64_t n) {
  const int64_t by_size = n / (kParallelGrain / 4) + 1;
  return int(std::min<int64_t>(max_threads(), by_size));
}

template <class S>
std::vector<int64_t> count_parts(const Operand& x, int64_t n, int parts) {
  std::vector<int64_t> counts(size_t(parts), 0);
  parallel_range(parts, kParallelGrain, [&](int64_t plo, int64_t phi) {
    for (int64_t t = plo; t < phi; ++t) {
      const int64_t lo = n * t / parts, hi = n * (t + 1) / parts;
      int64_t c = 0;
      walk_rows(x, sizeof(S), lo, hi, [&](const char* p, int64_t st, int64_t j0, int64_t j1, const int64_t*) {
        for (int64_t j = j0; j < j1; ++j) c += is_nonzero<S>(p + j * st);
      });
      counts[size_t(t)] = c;
    }
  });
  return counts;
}

template <class S>
void run_nonzero_count(Task& task) {
  const Operand& x = task.ops[1];
  const int64_t n = numel(x);
  const auto counts = count_parts<S>(x, n, parts_for(n));
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  *reinterpret_cast<int64_t*>(task.ops[0].data) = total;
}

template <class S>
void run_nonzero(Task& task) {
  const Operand& out = task.ops[0];
  const Operand& x = task.ops[1];
  const int64_t n = numel(x);
  const int parts = parts_for(n);
  const auto counts = count_parts<S>(x, n, parts);
  std::vector<int64_t> start(size_t(parts) + 1, 0);
  for (int t = 0; t < parts; ++t) start[size_t(t) + 1] = start[size_t(t)] + counts[size_t(t)];
  if (start[size_t(parts)] != out.shape[0])
    fail(MF_ERR_INVALID_ARGUMENT, "nonzero: the output's rows do not match the number of nonzero elements");
  int64_t* o = reinterpret_cast<int64_t*>(out.data);
  const int64_t rs = out.strides[0], cs = out.strides[1];
  parallel_range(parts, kParallelGrain, [&](int64_t plo, int64_t phi) {
    for (int64_t t = plo; t < phi; ++t) {
      int64_t r = start[size_t(t)];
      const int last = x.ndim - 1;
      walk_rows(x, sizeof(S), n * t / parts, n * (t + 1) / parts,
                [&](const char* p, int64_t st, int64_t j0, int64_t j1, const int64_t* idx) {
                  for (int64_t j = j0; j < j1; ++j) {
                    if (!is_nonzero<S>(p + j * st)) continue;
                    int64_t* row = o + r * rs;
                    for (int d = 0; d < last; ++d) row[d * cs] = idx[d];
                    if (last >= 0) row[last * cs] = j;
                    ++r;
                  }
                });
    }
  });
}

void check_nonzero_call(const char* op, const MFKernelCall* call, int32_t dtype) {
  if (!call || call->struct_size < sizeof(MFKernelCall) || call->device != 0) invalid(op, "bad call");
  if (call->num_inputs != 1 || call->num_outputs != 1) invalid(op, "wrong number of operands");
  if (call->inputs[0].dtype != dtype || call->outputs[0].dtype != MF_INT64) invalid(op, "dtype does not match");
}

template <class S>
MFStatus launch_nonzero_count(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, MF_INT64, {nullptr, nullptr}};
    check_nonzero_call("nonzero_count", call, dtype_of<S>);
    if (call->outputs[0].ndim != 0) invalid("nonzero_count", "the output must be 0-dim");
    enqueue_call("nonzero_count", call, spec, &run_nonzero_count<S>);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_nonzero(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{1, 1, dtype_of<S>, MF_INT64, {nullptr, nullptr}};
    check_nonzero_call("nonzero", call, dtype_of<S>);
    const MFTensorDesc& out = call->outputs[0];
    if (out.ndim != 2 || out.shape[1] != call->inputs[0].ndim) invalid("nonzero", "the output must be [n, x.ndim]");
    enqueue_call("nonzero", call, spec, &run_nonzero<S>);
    return MF_OK;
  });
}

}  // namespace

void register_shape_nonzero_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("nonzero_count", dtype_of<S>, MF_INT64, &launch_nonzero_count<S>);
    r.add("nonzero", dtype_of<S>, MF_INT64, &launch_nonzero<S>);
  });
}

}  // namespace mfcpu
