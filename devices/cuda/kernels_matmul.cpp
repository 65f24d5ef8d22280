// matmul: cuBLAS (cublasGemmStridedBatchedEx) for float16/bfloat16/float32/
// float64 when every matrix has a unit stride in one of its two dims, the
// plugin's naive kernel otherwise (integers, bool, k == 0, odd strides, or no
// cuBLAS on the machine). float32 uses CUBLAS_COMPUTE_32F (no TF32: results
// match the CPU's float32 GEMM to rounding); the half types accumulate in
// float32 and round once, as docs/kernels.md asks.
#include <climits>
#include <initializer_list>
#include <cstdio>
#include <vector>

#include "cublas.h"
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

struct Mat {
  int64_t rows, cols, rs, cs;
};

// As a column-major operand of cuBLAS: `trans` is whether the stored matrix
// must be transposed to be `m` itself. False when neither layout fits.
bool as_col_major(const Mat& m, int* trans, int64_t* ld) {
  if (m.rs == 1 || m.rows == 1) {  // column-major storage
    *trans = MFC_CUBLAS_OP_N;
    *ld = m.cols == 1 ? std::max<int64_t>(m.rows, 1) : m.cs;
    if (*ld >= std::max<int64_t>(m.rows, 1) && *ld <= INT_MAX) return true;
  }
  if (m.cs == 1 || m.cols == 1) {  // row-major storage: the transpose is column-major
    *trans = MFC_CUBLAS_OP_T;
    *ld = m.rows == 1 ? std::max<int64_t>(m.cols, 1) : m.rs;
    if (*ld >= std::max<int64_t>(m.cols, 1) && *ld <= INT_MAX) return true;
  }
  return false;
}

}  // namespace

cublasHandle_t blas_handle(Device& d) {
  if (d.blas || d.blas_failed) return d.blas;
  if (!cublas().available || cublas().create(&d.blas) != 0) {
    d.blas = nullptr;
    d.blas_failed = true;
    std::fprintf(stderr, "monoflow cuda: cuBLAS (libcublas.so.13/.12) not found; matmul runs on a slow naive kernel\n");
  }
  return d.blas;
}

void gemm(Device& d, MFStream stream, int32_t dtype, int ta, int tb, int64_t m, int64_t n, int64_t k, const void* A,
          int64_t lda, int64_t sA, const void* B, int64_t ldb, int64_t sB, void* C, int64_t ldc, int64_t sC,
          int64_t batch, bool accumulate) {
  cublasHandle_t h = blas_handle(d);
  if (!h) fail(MF_ERR_UNSUPPORTED, "cuBLAS is not available");
  for (int64_t v : {m, n, k, lda, ldb, ldc, batch})
    if (v > INT_MAX) fail(MF_ERR_UNSUPPORTED, "GEMM too large for cuBLAS's int dims");
  const bool f64 = dtype == MF_FLOAT64;
  const int type = f64 ? MFC_CUDA_R_64F : dtype == MF_FLOAT16 ? MFC_CUDA_R_16F
                                      : dtype == MF_BFLOAT16 ? MFC_CUDA_R_16BF : MFC_CUDA_R_32F;
  const float one_f = 1, beta_f = accumulate ? 1.f : 0.f;
  const double one_d = 1, beta_d = accumulate ? 1.0 : 0.0;
  std::lock_guard<std::mutex> lock(d.blas_mu);
  if (cublas().set_stream(h, native(stream)) != 0) fail(MF_ERR_INTERNAL, "cublasSetStream failed");
  const int st = cublas().gemm_strided_batched(
      h, ta, tb, int(m), int(n), int(k), f64 ? static_cast<const void*>(&one_d) : &one_f, A, type, int(lda), sA, B,
      type, int(ldb), sB, f64 ? static_cast<const void*>(&beta_d) : &beta_f, C, type, int(ldc), sC, int(batch),
      f64 ? MFC_CUBLAS_COMPUTE_64F : MFC_CUBLAS_COMPUTE_32F, MFC_CUBLAS_GEMM_DEFAULT);
  if (st != 0) fail(MF_ERR_INTERNAL, "cublasGemmStridedBatchedEx failed (status " + std::to_string(st) + ")");
}

namespace {

// Tries cuBLAS; false when the call does not fit it.
bool matmul_cublas(Device& d, const MFKernelCall* call) {
  const MFTensorDesc &A = call->inputs[0], &B = call->inputs[1], &C = call->outputs[0];
  const int32_t dt = C.dtype;
  if (!is_floating(dt)) return false;
  const int nd = C.ndim, nb = nd - 2;
  const int64_t m = C.shape[nd - 2], n = C.shape[nd - 1], k = A.shape[nd - 1];
  if (k == 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return false;
  // C = A B in column-major terms is C^T = B^T A^T: cuBLAS computes
  // X (M x N) = op(P) op(Q) with column-major X. Pick whichever of C, C^T is
  // column-major.
  Mat c{m, n, C.strides[nd - 2], C.strides[nd - 1]}, a{m, k, A.strides[nd - 2], A.strides[nd - 1]},
      b{k, n, B.strides[nd - 2], B.strides[nd - 1]};
  int tc;
  int64_t ldc;
  if (!as_col_major(c, &tc, &ldc)) return false;
  const void *p = A.data, *q = B.data;
  Mat pm = a, qm = b;
  int64_t M = m, N = n;
  if (tc == MFC_CUBLAS_OP_T) {  // C row-major: compute C^T = B^T A^T
    std::swap(p, q);
    pm = Mat{n, k, b.cs, b.rs};  // B^T
    qm = Mat{k, m, a.cs, a.rs};  // A^T
    M = n, N = m;
  }
  int tp, tq;
  int64_t ldp, ldq;
  if (!as_col_major(pm, &tp, &ldp) || !as_col_major(qm, &tq, &ldq)) return false;
  // Fold the batch dims into (outer host loop) x (one strided batch).
  std::vector<int64_t> shape, sp, sq, sc;
  const int64_t* sP = (tc == MFC_CUBLAS_OP_T) ? B.strides : A.strides;
  const int64_t* sQ = (tc == MFC_CUBLAS_OP_T) ? A.strides : B.strides;
  for (int dd = 0; dd < nb; ++dd) {
    if (C.shape[dd] == 1) continue;
    if (!shape.empty() && sp.back() == sP[dd] * C.shape[dd] && sq.back() == sQ[dd] * C.shape[dd] &&
        sc.back() == C.strides[dd] * C.shape[dd]) {
      shape.back() *= C.shape[dd];
      sp.back() = sP[dd], sq.back() = sQ[dd], sc.back() = C.strides[dd];
      continue;
    }
    shape.push_back(C.shape[dd]);
    sp.push_back(sP[dd]);
    sq.push_back(sQ[dd]);
    sc.push_back(C.strides[dd]);
  }
  int64_t inner = 1, isp = 0, isq = 0, isc = 0;
  if (!shape.empty()) {
    inner = shape.back(), isp = sp.back(), isq = sq.back(), isc = sc.back();
    shape.pop_back(), sp.pop_back(), sq.pop_back(), sc.pop_back();
  }
  if (inner > INT_MAX) return false;
  cublasHandle_t h = blas_handle(d);
  if (!h) return false;
  int type = MFC_CUDA_R_32F, compute = MFC_CUBLAS_COMPUTE_32F;
  if (dt == MF_FLOAT64) type = MFC_CUDA_R_64F, compute = MFC_CUBLAS_COMPUTE_64F;
  if (dt == MF_FLOAT16) type = MFC_CUDA_R_16F;
  if (dt == MF_BFLOAT16) type = MFC_CUDA_R_16BF;
  const float one_f = 1, zero_f = 0;
  const double one_d = 1, zero_d = 0;
  const void* alpha = dt == MF_FLOAT64 ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = dt == MF_FLOAT64 ? static_cast<const void*>(&zero_d) : &zero_f;
  const size_t es = dtype_size(dt);
  int64_t outer = 1;
  for (int64_t s : shape) outer *= s;
  std::lock_guard<std::mutex> lock(d.blas_mu);
  if (cublas().set_stream(h, native(call->stream)) != 0) fail(MF_ERR_INTERNAL, "cublasSetStream failed");
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t t = 0; t < outer; ++t) {
    int64_t op_ = 0, oq = 0, oc = 0;
    for (size_t j = 0; j < shape.size(); ++j) op_ += idx[j] * sp[j], oq += idx[j] * sq[j], oc += idx[j] * sc[j];
    const int st = cublas().gemm_strided_batched(
        h, tp, tq, int(M), int(N), int(k), alpha, static_cast<const char*>(p) + op_ * es, type, int(ldp), isp,
        static_cast<const char*>(q) + oq * es, type, int(ldq), isq, beta, static_cast<char*>(C.data) + oc * es, type,
        int(ldc), isc, int(inner), compute, MFC_CUBLAS_GEMM_DEFAULT);
    if (st != 0) fail(MF_ERR_INTERNAL, "matmul: cublasGemmStridedBatchedEx failed (status " + std::to_string(st) + ")");
    for (int j = int(shape.size()) - 1; j >= 0; --j) {
      if (++idx[j] < shape[j]) break;
      idx[j] = 0;
    }
  }
  return true;
}

void matmul_naive(Device& d, const MFKernelCall* call) {
  const MFTensorDesc &A = call->inputs[0], &B = call->inputs[1], &C = call->outputs[0];
  const int nd = C.ndim, nb = nd - 2;
  if (nb > MFC_MAX_DIMS) fail(MF_ERR_UNSUPPORTED, "matmul: too many batch dims");
  MatmulArgs a;
  std::memset(&a, 0, sizeof a);
  a.a = A.data, a.b = B.data, a.c = C.data;
  a.nb = nb;
  a.m = C.shape[nd - 2], a.n = C.shape[nd - 1], a.k = A.shape[nd - 1];
  a.batches = 1;
  for (int i = 0; i < nd; ++i) {
    if (i < nb) a.batch_shape[i] = C.shape[i], a.batches *= C.shape[i];
    a.sa[i] = A.strides[i], a.sb[i] = B.strides[i], a.sc[i] = C.strides[i];
  }
  launch(d, call->stream, kernel_name("matmul", dtype_suffix(C.dtype)).c_str(), &a, a.batches * a.m * a.n);
}

MFStatus matmul(const MFKernelCall* call) noexcept {
  return guarded([&] {
    Device& d = check_call("matmul", call, 2, 1);
    const MFTensorDesc &A = call->inputs[0], &B = call->inputs[1], &C = call->outputs[0];
    const int nd = C.ndim;
    if (nd < 2 || A.ndim != nd || B.ndim != nd) invalid("matmul", "operands must share a rank >= 2");
    for (int i = 0; i < nd - 2; ++i)
      if (A.shape[i] != C.shape[i] || B.shape[i] != C.shape[i]) invalid("matmul", "batch dims must be broadcast to out's");
    if (A.shape[nd - 2] != C.shape[nd - 2] || B.shape[nd - 1] != C.shape[nd - 1] || A.shape[nd - 1] != B.shape[nd - 2])
      invalid("matmul", "matrix dims do not line up");
    int64_t numel = 1;
    for (int i = 0; i < nd; ++i) numel *= C.shape[i];
    if (numel == 0) return MF_OK;
    if (!matmul_cublas(d, call)) matmul_naive(d, call);
    return MF_OK;
  });
}

}  // namespace

void register_matmul_kernels(const MFHostApi* host) {
  Registrar r(host);
  for (int32_t t = MF_BOOL; t <= MF_FLOAT64; ++t) r.add("matmul", t, t, &matmul);
  r.done();
}

}  // namespace mfcuda
