// Advanced indexing (docs/kernels/shape.md): `index` (gather, index_select,
// embedding) and `index_put` (scatter, scatter_add, embedding's gradient).
//
// Note [Ordered index_put]
//   Elements that differ only in dims where self's stride is 0 may write the
//   same element (duplicate indices) and must be applied in order. The
//   iteration space is split: one work-item per combination of the dims where
//   self's stride is non-zero (they never collide), looping in row-major
//   order over the stride-0 dims. Deterministic, no atomics, and for
//   accumulation the same sum order as the CPU.
#include "kernels.h"

namespace mfocl {

namespace {

constexpr int kMaxIndexed = 4;

// The indexed dims of the data: sizes, strides, and I's stride along its last dim.
struct IndexDims {
  int64_t k;
  int64_t size[kMaxIndexed];
  int64_t stride[kMaxIndexed];
  int64_t istride;
};

const char* elem_type(size_t size) {
  switch (size) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    default: return "ulong";
  }
}

const char* const kCommon = R"CLC(
typedef struct { long k; long size[4]; long stride[4]; long istride; } IndexDims;
/* Offset of the element I names (from `base`), or -1 when out of range. */
long indexed(const IndexDims* ix, __global const long* I, long ei, long base) {
  for (int j = 0; j < (int)ix->k; ++j) {
    long v = I[ei + j * ix->istride];
    if (v < 0) v += ix->size[j];
    if (v < 0 || v >= ix->size[j]) return -1;
    base += v * ix->stride[j];
  }
  return base;
}
#define DECOMPOSE(g, r, e0, e1, e2) \
  for (int d = (int)(g).ndim - 1; d >= 0; --d) { long c = r % (g).shape[d]; r /= (g).shape[d]; \
    e0 += c * (g).strides[0][d]; e1 += c * (g).strides[1][d]; e2 += c * (g).strides[2][d]; }
)CLC";

const char* const kIndex = R"CLC(
__kernel void k(Geometry g, IndexDims ix, __global int* err, __global uchar* bo, ulong oo, __global uchar* bx,
                ulong ox, __global uchar* bi, ulong oi) {
  long i = get_global_id(0);
  if (i >= g.n) return;
  long eo = 0, ex = 0, ei = 0, r = i;
  DECOMPOSE(g, r, eo, ex, ei)
  __global E* out = (__global E*)(bo + oo);
  __global const E* x = (__global const E*)(bx + ox);
  __global const long* I = (__global const long*)(bi + oi);
  long at = indexed(&ix, I, ei, ex);
  if (at < 0) { *err = 4; return; }
  out[eo] = x[at];
}
)CLC";

const char* const kIndexPut = R"CLC(
__kernel void k(Geometry outer, Geometry inner, IndexDims ix, __global int* err, __global uchar* bs, ulong os,
                __global uchar* bv, ulong ov, __global uchar* bi, ulong oi) {
  long i = get_global_id(0);
  if (i >= outer.n) return;
  long es0 = 0, ev0 = 0, ei0 = 0, r = i;
  DECOMPOSE(outer, r, es0, ev0, ei0)
  __global T* self = (__global T*)(bs + os);
  __global const T* v = (__global const T*)(bv + ov);
  __global const long* I = (__global const long*)(bi + oi);
  for (long j = 0; j < inner.n; ++j) {
    long es = es0, ev = ev0, ei = ei0, q = j;
    DECOMPOSE(inner, q, es, ev, ei)
    long at = indexed(&ix, I, ei, es);
    if (at < 0) { *err = 4; return; }
    ACCUMULATE(self, at, v, ev);
  }
}
)CLC";

void fill_index_dims(const char* op, const MFTensorDesc& data, const MFTensorDesc& I, int32_t n, IndexDims& ix) {
  if (I.dtype != MF_INT64) invalid(op, "indices must be int64");
  if (data.ndim < n || I.ndim != n + 1) invalid(op, "operand ranks do not match the convention");
  if (I.shape[n] != data.ndim - n) invalid(op, "the last dim of the indices must have one entry per indexed dim");
  if (data.ndim - n > kMaxIndexed)
    raise(MF_ERR_UNSUPPORTED, std::string(op) + ": opencl indexes at most " + std::to_string(kMaxIndexed) + " dims");
  if (n > kMaxDims) raise(MF_ERR_UNSUPPORTED, std::string(op) + ": too many dims for opencl");
  ix = IndexDims{};
  ix.k = data.ndim - n;
  for (int64_t j = 0; j < ix.k; ++j) {
    ix.size[j] = data.shape[n + j];
    ix.stride[j] = data.strides[n + j];
  }
  ix.istride = I.strides[n];
}

MFStatus launch_index(const MFKernelCall* call) {
  return guarded([&] {
    Stream* s = check_call(call, "index", 2, 1);
    const MFTensorDesc& out = call->outputs[0];
    const MFTensorDesc& x = call->inputs[0];
    const MFTensorDesc& I = call->inputs[1];
    if (x.dtype != out.dtype) invalid("index", "data dtype does not match the output");
    const int32_t n = out.ndim;
    IndexDims ix;
    fill_index_dims("index", x, I, n, ix);
    Geometry g{};
    g.ndim = n;
    g.n = numel(out);
    for (int32_t d = 0; d < n; ++d) {
      if (x.shape[d] != out.shape[d] || I.shape[d] != out.shape[d]) invalid("index", "operand shapes differ");
      g.shape[d] = out.shape[d];
      g.strides[0][d] = out.strides[d];
      g.strides[1][d] = x.strides[d];
      g.strides[2][d] = I.strides[d];
    }
    const Resolved ro = resolve_desc(out, call->device, "index", "output");
    const Resolved rx = resolve_desc(x, call->device, "index", "input 0");
    const Resolved ri = resolve_desc(I, call->device, "index", "input 1");
    if (g.n == 0) return MF_OK;
    const size_t esize = dtype_info(out.dtype).size;
    const Device& dev = device(call->device);
    CachedKernel& k = cached_kernel(call->device, "index:" + std::to_string(esize), "k", [&] {
      return prelude(dev) + "#define E " + elem_type(esize) + "\n" + kCommon + kIndex;
    });
    Launch l(k, s);
    l.arg(g).arg(ix).error_flag().buffer(ro).buffer(rx).buffer(ri);
    l.run(g.n);
    return MF_OK;
  });
}

MFStatus launch_index_put(const MFKernelCall* call) {
  return guarded([&] {
    Stream* s = check_call(call, "index_put", 2, 1);
    const MFTensorDesc& self = call->outputs[0];
    const MFTensorDesc& v = call->inputs[0];
    const MFTensorDesc& I = call->inputs[1];
    if (v.dtype != self.dtype) invalid("index_put", "values dtype does not match self");
    const bool acc = attr(call, "index_put", "accumulate").i != 0;
    const int32_t n = v.ndim;
    IndexDims ix;
    fill_index_dims("index_put", self, I, n, ix);
    Geometry outer{}, inner{};
    outer.n = inner.n = 1;
    for (int32_t d = 0; d < n; ++d) {
      if (self.shape[d] != v.shape[d] || I.shape[d] != v.shape[d]) invalid("index_put", "operand shapes differ");
      Geometry& g = self.strides[d] != 0 ? outer : inner;
      const int64_t at = g.ndim++;
      g.shape[at] = v.shape[d];
      g.strides[0][at] = self.strides[d];
      g.strides[1][at] = v.strides[d];
      g.strides[2][at] = I.strides[d];
      g.n *= v.shape[d];
    }
    const Resolved rs = resolve_desc(self, call->device, "index_put", "self");
    const Resolved rv = resolve_desc(v, call->device, "index_put", "values");
    const Resolved ri = resolve_desc(I, call->device, "index_put", "indices");
    if (outer.n == 0 || inner.n == 0) return MF_OK;
    const int32_t dt = self.dtype;
    const DTypeInfo& t = dtype_info(dt);
    std::string accumulate;
    if (!acc) accumulate = "p[at] = vals[ev]";
    else if (t.is_bool) accumulate = "p[at] = (uchar)((p[at] != 0) | (vals[ev] != 0))";
    else if (t.is_half || t.is_bf16) {
      // Rounds per add, as the CPU: load both as float, store once.
      const std::string sum = "(" + load_expr(dt, "p", "at") + " + " + load_expr(dt, "vals", "ev") + ")";
      accumulate = store_stmt(dt, Value::kFloat, "p", "at", sum);
      if (!accumulate.empty() && accumulate.back() == ';') accumulate.pop_back();
    } else if (!t.floating) accumulate = std::string("p[at] = (") + t.storage + ")((ulong)p[at] + (ulong)vals[ev])";
    else accumulate = "p[at] += vals[ev]";
    const Device& dev = device(call->device);
    CachedKernel& k = cached_kernel(call->device, "index_put:" + std::to_string(dt) + (acc ? "+" : "="), "k", [&] {
      return prelude(dev) + "#define T " + t.storage + "\n#define ACCUMULATE(p, at, vals, ev) do { " + accumulate +
             "; } while (0)\n" + kCommon + kIndexPut;
    });
    Launch l(k, s);
    l.arg(outer).arg(inner).arg(ix).error_flag().buffer(rs).buffer(rv).buffer(ri);
    l.run(outer.n);
    return MF_OK;
  });
}

}  // namespace

void register_index_kernels(Registrar& r) {
  for (int32_t dt = 0; dt <= MF_FLOAT64; ++dt) {
    if (!r.supports(dt)) continue;
    r.add("index", dt, dt, &launch_index);
    r.add("index_put", dt, dt, &launch_index_put);
  }
}

}  // namespace mfocl
