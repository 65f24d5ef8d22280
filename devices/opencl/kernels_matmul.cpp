// Batched matmul: out (..., m, n) = a (..., m, k) @ b (..., k, n), batch dims
// equal in all three (stride 0 where broadcast), any strides.
//
// Note [Tiled matmul]
//   A 16x16 tile of the output per work-group, a and b staged through local
//   memory a 16-wide slice of k at a time: each element of a and b is read
//   from global memory M/16 (N/16) times instead of N (M) times. Accumulates
//   in the compute type (float for float32 and the half types, as BLAS does;
//   half types round once on store). CLBlast would be faster on a GPU but is
//   one more dependency for the CPU-backed PoCL we test on; this kernel is
//   short and has no tuning database to ship.
#include "kernels.h"

namespace mfocl {

namespace {

constexpr int kTile = 16;

std::string source(const Device& d, int32_t dt) {
  const DTypeInfo& t = dtype_info(dt);
  std::string s = prelude(d) + "#pragma OPENCL FP_CONTRACT ON\n";  // Note [No contraction] in operands.cpp
  s += std::string("#define C ") + t.compute + "\n#define TS " + std::to_string(kTile) + "\n";
  s += std::string("typedef __global ") + t.storage + "* PT;\n";
  s += "#define LD(p, o) (" + load_expr(dt, "p", "(o)") + ")\n";
  s += "#define ST(p, o, v) do { " + store_stmt(dt, value_kind(dt), "p", "(o)", "(v)") + " } while (0)\n";
  s += R"CLC(
__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void k(Geometry g, long M, long N, long K, long sam, long sak, long sbk, long sbn, long som, long son,
       __global uchar* ba, ulong oa, __global uchar* bb, ulong ob, __global uchar* bo, ulong oo) {
  int tx = get_local_id(0), ty = get_local_id(1);
  long col = get_global_id(0), row = get_global_id(1), r = get_global_id(2);
  long ea = 0, eb = 0, eo = 0;
  for (int d = (int)g.ndim - 1; d >= 0; --d) {
    long c = r % g.shape[d]; r /= g.shape[d];
    ea += c * g.strides[0][d]; eb += c * g.strides[1][d]; eo += c * g.strides[2][d];
  }
  PT pa = (PT)(ba + oa); PT pb = (PT)(bb + ob); PT po = (PT)(bo + oo);
  __local C As[TS][TS + 1];
  __local C Bs[TS][TS + 1];
  C acc = 0;
  for (long t0 = 0; t0 < K; t0 += TS) {
    long ka = t0 + tx, kb = t0 + ty;
    As[ty][tx] = (row < M && ka < K) ? LD(pa, ea + row * sam + ka * sak) : (C)0;
    Bs[ty][tx] = (kb < K && col < N) ? LD(pb, eb + kb * sbk + col * sbn) : (C)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = 0; q < TS; ++q) acc += As[ty][q] * Bs[q][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < M && col < N) ST(po, eo + row * som + col * son, acc);
}
)CLC";
  return s;
}

MFStatus launch_matmul(const MFKernelCall* call) {
  return guarded([&] {
    Stream* s = check_call(call, "matmul", 2, 1);
    const MFTensorDesc& a = call->inputs[0];
    const MFTensorDesc& b = call->inputs[1];
    const MFTensorDesc& o = call->outputs[0];
    const int32_t nd = o.ndim;
    if (nd < 2 || a.ndim != nd || b.ndim != nd) invalid("matmul", "operands must have the same rank >= 2");
    if (a.dtype != o.dtype || b.dtype != o.dtype) invalid("matmul", "operands must share one dtype");
    if (nd - 2 > kMaxDims) raise(MF_ERR_UNSUPPORTED, "matmul: too many batch dims for opencl");
    const int64_t M = a.shape[nd - 2], K = a.shape[nd - 1], N = b.shape[nd - 1];
    if (b.shape[nd - 2] != K || o.shape[nd - 2] != M || o.shape[nd - 1] != N)
      invalid("matmul", "matrix shapes do not line up");
    Geometry g{};
    g.ndim = nd - 2;
    g.n = 1;
    for (int32_t d = 0; d < nd - 2; ++d) {
      if (a.shape[d] != o.shape[d] || b.shape[d] != o.shape[d]) invalid("matmul", "batch dims differ");
      g.shape[d] = o.shape[d];
      g.strides[0][d] = a.strides[d];
      g.strides[1][d] = b.strides[d];
      g.strides[2][d] = o.strides[d];
      g.n *= o.shape[d];
    }
    const Resolved ra = resolve_desc(a, call->device, "matmul", "input 0");
    const Resolved rb = resolve_desc(b, call->device, "matmul", "input 1");
    const Resolved ro = resolve_desc(o, call->device, "matmul", "output");
    if (g.n == 0 || M == 0 || N == 0) return MF_OK;
    const Device& dev = device(call->device);
    CachedKernel& k = cached_kernel(call->device, "matmul:" + std::to_string(o.dtype), "k",
                                    [&] { return source(dev, o.dtype); });
    Launch l(k, s);
    l.arg(g).arg(cl_long(M)).arg(cl_long(N)).arg(cl_long(K));
    l.arg(cl_long(a.strides[nd - 2])).arg(cl_long(a.strides[nd - 1]));
    l.arg(cl_long(b.strides[nd - 2])).arg(cl_long(b.strides[nd - 1]));
    l.arg(cl_long(o.strides[nd - 2])).arg(cl_long(o.strides[nd - 1]));
    l.buffer(ra).buffer(rb).buffer(ro);
    const size_t global[3] = {size_t((N + kTile - 1) / kTile * kTile), size_t((M + kTile - 1) / kTile * kTile),
                              size_t(g.n)};
    const size_t local[3] = {kTile, kTile, 1};
    l.run_nd(3, global, local);
    return MF_OK;
  });
}

}  // namespace

void register_matmul_kernels(Registrar& r) {
  for (int32_t dt : {MF_FLOAT16, MF_BFLOAT16, MF_FLOAT32, MF_FLOAT64})
    if (r.supports(dt)) r.add("matmul", dt, dt, &launch_matmul);
}

}  // namespace mfocl
