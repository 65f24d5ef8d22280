// conv2d, conv_transpose2d (conv2d's input gradient) and conv2d_weight_grad,
// float32/float64, contiguous NCHW (docs/kernels/nn.md): im2col of a chunk
// of images into scratch memory (Note [Scratch memory] in context.h), then
// cuBLAS GEMMs per group, batched over the chunk's images; the transpose
// runs the GEMM first and gathers the columns back (col2im, deterministic).
// Registered only where cuBLAS is found; otherwise the core falls back to
// the CPU's kernels.
#include <algorithm>

#include "cublas.h"
#include "kernel_args.h"
#include "launch.h"

namespace mfcuda {
namespace {

enum class Which { Forward, Transpose, WeightGrad };

void read_pair(const char* op, const MFKernelCall* call, const char* name, int64_t out[2]) {
  const MFAttr* a = find_attr(call, name);
  if (a && a->kind == MF_ATTR_SCALAR) {
    out[0] = out[1] = a->i;
  } else if (a && a->kind == MF_ATTR_INTS && a->count == 2 && a->ints) {
    out[0] = a->ints[0], out[1] = a->ints[1];
  } else {
    invalid(op, std::string("bad or missing attribute '") + name + "'");
  }
}

bool dense(const MFTensorDesc& d) {
  int64_t s = 1;
  for (int32_t k = d.ndim - 1; k >= 0; --k) {
    if (d.shape[k] != 1 && d.strides[k] != s) return false;
    s *= d.shape[k];
  }
  return true;
}

template <Which K>
MFStatus conv(const MFKernelCall* call) noexcept {
  static constexpr const char* names[] = {"conv2d", "conv_transpose2d", "conv2d_weight_grad"};
  const char* op = names[int(K)];
  return guarded([&] {
    const bool has_bias = K != Which::WeightGrad && call && call->num_inputs == 3;
    Device& d = check_call(op, call, has_bias ? 3 : 2, 1);
    const MFTensorDesc *x, *y, *w;
    if (K == Which::Forward) x = &call->inputs[0], w = &call->inputs[1], y = &call->outputs[0];
    else if (K == Which::Transpose) y = &call->inputs[0], w = &call->inputs[1], x = &call->outputs[0];
    else x = &call->inputs[0], y = &call->inputs[1], w = &call->outputs[0];
    const MFTensorDesc* bias = has_bias ? &call->inputs[2] : nullptr;
    if (x->ndim != 4 || y->ndim != 4 || w->ndim != 4) invalid(op, "operands must be 4-D");
    if (!dense(*x) || !dense(*y) || !dense(*w) || (bias && !dense(*bias))) invalid(op, "operands must be contiguous");
    const int32_t dt = x->dtype;
    if (dt != MF_FLOAT32 && dt != MF_FLOAT64) invalid(op, "float32 and float64 only");
    ConvArgs a;
    std::memset(&a, 0, sizeof a);
    read_pair(op, call, "stride", a.stride);
    read_pair(op, call, "padding", a.pad);
    read_pair(op, call, "dilation", a.dil);
    int64_t groups_pair[2];
    read_pair(op, call, "groups", groups_pair);
    const int64_t groups = groups_pair[0];
    const int64_t N = x->shape[0], C = x->shape[1], O = y->shape[1];
    a.C = C, a.H = x->shape[2], a.W = x->shape[3], a.kh = w->shape[2], a.kw = w->shape[3];
    a.OH = y->shape[2], a.OW = y->shape[3];
    if (groups < 1 || C % groups || O % groups || w->shape[0] != O || w->shape[1] * groups != C || y->shape[0] != N)
      invalid(op, "channels, groups and weight do not line up");
    for (int k = 0; k < 2; ++k)
      if (a.stride[k] < 1 || a.pad[k] < 0 || a.dil[k] < 1) invalid(op, "stride and dilation must be positive, padding non-negative");
    const int64_t Cg = C / groups, Og = O / groups, Kg = Cg * a.kh * a.kw, Ckk = C * a.kh * a.kw;
    const int64_t HWo = a.OH * a.OW, HWi = a.H * a.W;
    const size_t es = dt == MF_FLOAT64 ? 8 : 4;
    const char* sfx = dtype_suffix(dt);
    char* xp = static_cast<char*>(x->data);
    char* yp = static_cast<char*>(y->data);
    char* wp = static_cast<char*>(w->data);
    const Driver& drv = driver();
    auto zero = [&](const MFTensorDesc& t) {
      size_t n = es;
      for (int k = 0; k < 4; ++k) n *= size_t(t.shape[k]);
      if (n) check(drv.cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(t.data), 0, n, native(call->stream)), "cuMemsetD8Async");
    };
    const MFTensorDesc& out = call->outputs[0];
    if (N == 0 || HWo == 0 || Kg == 0 || Og == 0) {  // degenerate: no GEMM to run
      zero(out);
    } else {
      const int64_t chunk = std::clamp<int64_t>((int64_t(256) << 20) / int64_t(Ckk * HWo * es), 1, N);
      char* col = static_cast<char*>(workspace(d, call->stream, size_t(chunk * Ckk * HWo) * es));
      a.col = col;
      for (int64_t n0 = 0; n0 < N; n0 += chunk) {
        const int64_t nb = std::min(chunk, N - n0);
        a.n = nb;
        a.x = xp + size_t(n0 * C * HWi) * es;
        if (K != Which::Transpose)
          launch(d, call->stream, kernel_name("im2col", sfx).c_str(), &a, nb * Ckk * HWo);
        if (K == Which::Forward) {
          for (int64_t g = 0; g < groups; ++g)  // y[n, g] = w[g] @ col[n, g], over the chunk's images
            gemm(d, call->stream, dt, MFC_CUBLAS_OP_N, MFC_CUBLAS_OP_N, HWo, Og, Kg, col + size_t(g * Kg * HWo) * es,
                 HWo, Ckk * HWo, wp + size_t(g * Og * Kg) * es, Kg, 0, yp + size_t((n0 * O + g * Og) * HWo) * es, HWo,
                 O * HWo, nb, false);
        } else if (K == Which::Transpose) {
          for (int64_t g = 0; g < groups; ++g)  // col[n, g] = w[g]^T @ y[n, g]
            gemm(d, call->stream, dt, MFC_CUBLAS_OP_N, MFC_CUBLAS_OP_T, HWo, Kg, Og,
                 yp + size_t((n0 * O + g * Og) * HWo) * es, HWo, O * HWo, wp + size_t(g * Og * Kg) * es, Kg, 0,
                 col + size_t(g * Kg * HWo) * es, HWo, Ckk * HWo, nb, false);
          launch(d, call->stream, kernel_name("col2im", sfx).c_str(), &a, nb * C * HWi);
        } else {
          for (int64_t img = 0; img < nb; ++img)  // gw[g] += gy[n, g] @ col[n, g]^T, groups batched
            gemm(d, call->stream, dt, MFC_CUBLAS_OP_T, MFC_CUBLAS_OP_N, Kg, Og, HWo,
                 col + size_t(img * Ckk * HWo) * es, HWo, Kg * HWo, yp + size_t(((n0 + img) * O) * HWo) * es, HWo,
                 Og * HWo, wp, Kg, Og * Kg, groups, n0 + img > 0);
        }
      }
    }
    if (bias) {
      ConvArgs b = a;
      b.x = out.data;
      b.bias = bias->data;
      b.n = N;
      b.channels = K == Which::Forward ? O : C;
      b.hw = K == Which::Forward ? HWo : HWi;
      if (bias->ndim != 1 || bias->shape[0] != b.channels) invalid(op, "bias must be 1-D with one value per channel");
      launch(d, call->stream, kernel_name("bias_add", sfx).c_str(), &b, b.n * b.channels * b.hw);
    }
    return MF_OK;
  });
}

}  // namespace

void register_conv_kernels(const MFHostApi* host) {
  if (!cublas().available) return;  // CPU fallback
  Registrar r(host);
  for (int32_t t : {MF_FLOAT32, MF_FLOAT64}) {
    r.add("conv2d", t, t, &conv<Which::Forward>);
    r.add("conv_transpose2d", t, t, &conv<Which::Transpose>);
    r.add("conv2d_weight_grad", t, t, &conv<Which::WeightGrad>);
  }
  r.done();
}

}  // namespace mfcuda
