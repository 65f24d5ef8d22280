// index and index_put: reading and writing through int64 index tensors
// (gather, index_select, scatter, masked_select, advanced indexing).
//
// The data operand has the iteration shape (n dims) followed by k indexed
// dims; I has the iteration shape followed by one dim of size k. Element p
// reads/writes data[p, I[p, 0], ..., I[p, k-1]] (negative indices wrap). A
// run along the innermost iteration dim over which I is constant (stride 0:
// x[idx] with whole slices per index) is one offset computation and a
// memcpy when both sides are contiguous. Plain copies move bits, so one
// instantiation per element size serves every dtype; accumulation is typed.
#include <atomic>
#include <cstring>
#include <type_traits>

#include "dtype.h"
#include "launch.h"
#include "loops.h"
#include "strided.h"

namespace mfcpu {
namespace {

// The k indexed dims of the data operand and I's stride along its last dim.
struct Indexed {
  int k = 0;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];  // bytes
  int64_t ik = 0;            // bytes

  // Byte offset of the element I at `ip` names; false when out of range.
  bool offset(const char* ip, int64_t* off) const {
    int64_t o = 0;
    for (int j = 0; j < k; ++j) {
      int64_t v = *reinterpret_cast<const int64_t*>(ip + j * ik);
      if (v < 0) v += size[j];
      if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(size[j])) return false;
      o += v * stride[j];
    }
    *off = o;
    return true;
  }
};

// Typed accumulation for index_put(accumulate=True): bool ors, integers wrap,
// half types round once per add (as PyTorch's CPU kernel).
template <class S>
inline void accumulate_into(char* dst, const char* src) {
  S& d = *reinterpret_cast<S*>(dst);
  const S v = *reinterpret_cast<const S*>(src);
  if constexpr (std::is_same<S, boolean>::value) {
    d.v = uint8_t(d.v | v.v);
  } else if constexpr (std::is_integral<S>::value) {
    d = S(wrap_t<S>(d) + wrap_t<S>(v));
  } else {
    d = store<S>(load(d) + load(v));
  }
}

template <class T>
struct ReadLoop {  // p: out, x (iteration part), I
  const Indexed* ix;
  std::atomic<bool>* bad;
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t es = sizeof(T);
    int64_t off;
    if (s[2] == 0) {  // one index for the whole run: a strided (or contiguous) copy
      if (!ix->offset(p[2], &off)) return bad->store(true, std::memory_order_relaxed);
      const char* src = p[1] + off;
      if (s[0] == es && s[1] == es) {
        std::memcpy(p[0], src, size_t(n) * es);
      } else {
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(src + i * s[1]);
      }
      return;
    }
    if (ix->k == 1) {  // gather / index_select along one dim
      const int64_t size = ix->size[0], stride = ix->stride[0];
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = *reinterpret_cast<const int64_t*>(p[2] + i * s[2]);
        if (v < 0) v += size;
        if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(size)) return bad->store(true, std::memory_order_relaxed);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + v * stride);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (!ix->offset(p[2] + i * s[2], &off)) return bad->store(true, std::memory_order_relaxed);
      *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + off);
    }
  }
};

// T: the element type for accumulation, else same-size bits.
template <class T, bool kAccumulate>
struct WriteLoop {  // p: (order proxy, unused), self (iteration part), values, I
  const Indexed* ix;
  std::atomic<bool>* bad;
  static void put(char* dst, const char* src) {
    if constexpr (kAccumulate) accumulate_into<T>(dst, src);
    else *reinterpret_cast<T*>(dst) = *reinterpret_cast<const T*>(src);
  }
  void operator()(char* const* p, const int64_t* s, int64_t n) const {
    constexpr int64_t es = sizeof(T);
    int64_t off;
    if (s[3] == 0) {  // one index for the whole run: a slice of self
      if (!ix->offset(p[3], &off)) return bad->store(true, std::memory_order_relaxed);
      char* dst = p[1] + off;
      if (!kAccumulate && s[1] == es && s[2] == es) {
        std::memcpy(dst, p[2], size_t(n) * es);
      } else {
        for (int64_t i = 0; i < n; ++i) put(dst + i * s[1], p[2] + i * s[2]);
      }
      return;
    }
    if (ix->k == 1) {  // scatter along one dim
      const int64_t size = ix->size[0], stride = ix->stride[0];
      for (int64_t i = 0; i < n; ++i) {
        int64_t v = *reinterpret_cast<const int64_t*>(p[3] + i * s[3]);
        if (v < 0) v += size;
        if (static_cast<uint64_t>(v) >= static_cast<uint64_t>(size)) return bad->store(true, std::memory_order_relaxed);
        put(p[1] + i * s[1] + v * stride, p[2] + i * s[2]);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      if (!ix->offset(p[3] + i * s[3], &off)) return bad->store(true, std::memory_order_relaxed);
      put(p[1] + i * s[1] + off, p[2] + i * s[2]);
    }
  }
};

// The trailing dims of `data` (ndim n + k) and I's last stride.
Indexed indexed_dims(const Operand& data, const Operand& I, int n, size_t elem) {
  Indexed ix;
  ix.k = data.ndim - n;
  for (int j = 0; j < ix.k; ++j) {
    ix.size[j] = data.shape[n + j];
    ix.stride[j] = data.strides[n + j] * int64_t(elem);
  }
  ix.ik = I.strides[n] * int64_t(sizeof(int64_t));
  return ix;
}

void index_out_of_range(const char* op) {
  fail(MF_ERR_INVALID_ARGUMENT, std::string(op) + ": index out of range (the core checks indices before launching)");
}

template <class T>
void run_index(Task& task) {
  const Operand& out = task.ops[0];
  const int n = out.ndim;
  Operand ops[3] = {out, task.ops[1], task.ops[2]};
  ops[1].ndim = n;  // the iteration part; the indexed dims follow in memory
  ops[2].ndim = n;
  const Indexed ix = indexed_dims(task.ops[1], task.ops[2], n, sizeof(T));
  const size_t sizes[3] = {sizeof(T), sizeof(T), sizeof(int64_t)};
  const auto g = make_geometry<3>(ops, sizes);
  std::atomic<bool> bad{false};
  ReadLoop<T> loop{&ix, &bad};
  run_loop(g, loop);
  if (bad.load()) index_out_of_range("index");
}

template <class T, bool kAccumulate>
void run_index_put(Task& task) {
  const Operand& self = task.ops[0];
  const Operand& values = task.ops[1];
  const int n = values.ndim;
  const Indexed ix = indexed_dims(self, task.ops[2], n, sizeof(T));
  // Iteration order: self's memory order, with each dim that comes from the
  // indices (self's stride 0 there) ranked by the outermost indexed dim's
  // stride, so that x[idx] = v writes whole rows of self in turn. make_geometry
  // orders by its first operand: a proxy with those strides (never read).
  int64_t order[kMaxDims];
  int64_t index_stride = 0;
  for (int j = 0; j < ix.k; ++j) index_stride = std::max(index_stride, self.strides[n + j]);
  for (int d = 0; d < n; ++d) order[d] = self.strides[d] != 0 ? self.strides[d] : index_stride;
  Operand proxy = self;
  proxy.ndim = n;
  proxy.strides = order;
  Operand ops[4] = {proxy, self, values, task.ops[2]};
  ops[1].ndim = n;
  ops[3].ndim = n;
  const size_t sizes[4] = {sizeof(T), sizeof(T), sizeof(T), sizeof(int64_t)};
  const auto g = make_geometry<4>(ops, sizes);
  const int64_t total = g.numel();
  if (total == 0) return;
  std::atomic<bool> bad{false};
  WriteLoop<T, kAccumulate> loop{&ix, &bad};
  // Threads split one dim (the largest). Accumulation splits a dim where
  // self's stride is not 0: elements that differ there never write the same
  // element of self, so elements that may (duplicate indices) stay with one
  // thread, in order. Plain writes may split any dim: with duplicate indices
  // which value lands is unspecified, as in PyTorch.
  int split = -1;
  for (int d = 0; d < g.ndim; ++d)
    if ((!kAccumulate || g.strides[1][d] != 0) && (split < 0 || g.shape[d] > g.shape[split])) split = d;
  if (split < 0) {
    run_range(g, 0, total, loop);
  } else {
    parallel_range(g.shape[split], total / g.shape[split], [&](int64_t lo, int64_t hi) {
      Geometry<4> part = g;  // the slice [lo, hi) of the split dim
      part.shape[split] = hi - lo;
      for (int k = 0; k < 4; ++k) part.data[k] += lo * g.strides[k][split];
      run_range(part, 0, part.numel(), loop);
    });
  }
  if (bad.load()) index_out_of_range("index_put");
}

bool check_index_operands(const char* op, const MFTensorDesc& data, const MFTensorDesc& iter, const MFTensorDesc& I) {
  const int n = iter.ndim;
  if (I.dtype != MF_INT64) invalid(op, "indices must be int64");
  if (data.ndim < n || I.ndim != n + 1) invalid(op, "operand ranks do not match the convention");
  if (data.ndim - n > kMaxDims) invalid(op, "too many indexed dims");
  if (I.shape[n] != data.ndim - n) invalid(op, "the last dim of the indices must have one entry per indexed dim");
  for (int d = 0; d < n; ++d)
    if (data.shape[d] != iter.shape[d] || I.shape[d] != iter.shape[d]) invalid(op, "operand shapes differ");
  return true;
}

template <class S>
MFStatus launch_index(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<S>, {nullptr, nullptr}};
    if (!call || call->struct_size < sizeof(MFKernelCall) || call->device != 0) invalid("index", "bad call");
    if (call->num_inputs != 2 || call->num_outputs != 1) invalid("index", "wrong number of operands");
    if (call->inputs[0].dtype != dtype_of<S> || call->outputs[0].dtype != dtype_of<S>)
      invalid("index", "data dtype does not match the kernel");
    check_index_operands("index", call->inputs[0], call->outputs[0], call->inputs[1]);
    enqueue_call("index", call, spec, &run_index<bits_t<S>>);
    return MF_OK;
  });
}

template <class S>
MFStatus launch_index_put(const MFKernelCall* call) {
  return guarded([&] {
    static constexpr LaunchSpec spec{2, 1, dtype_of<S>, dtype_of<S>, {"accumulate", nullptr}};
    if (!call || call->struct_size < sizeof(MFKernelCall) || call->device != 0) invalid("index_put", "bad call");
    if (call->num_inputs != 2 || call->num_outputs != 1) invalid("index_put", "wrong number of operands");
    if (call->inputs[0].dtype != dtype_of<S> || call->outputs[0].dtype != dtype_of<S>)
      invalid("index_put", "data dtype does not match the kernel");
    check_index_operands("index_put", call->outputs[0], call->inputs[0], call->inputs[1]);
    const MFAttr* acc = find_attr(call, "accumulate");
    if (!acc) invalid("index_put", "missing scalar attribute 'accumulate'");
    Task::Fn fn = acc->i ? &run_index_put<S, true> : &run_index_put<bits_t<S>, false>;
    enqueue_call("index_put", call, spec, fn);
    return MF_OK;
  });
}

}  // namespace

void register_shape_index_kernels(Registrar& r) {
  for_each_dtype([&](auto tag) {
    using S = typename decltype(tag)::type;
    r.add("index", dtype_of<S>, dtype_of<S>, &launch_index<S>);
    r.add("index_put", dtype_of<S>, dtype_of<S>, &launch_index_put<S>);
  });
}

}  // namespace mfcpu
