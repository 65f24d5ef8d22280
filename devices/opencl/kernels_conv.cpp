// Convolution and pooling, forward and backward (docs/kernels/nn.md):
// contiguous NCHW operands, float32 and float64.
//
// Note [Direct convolution]
//   One work-item per output element, summing its receptive field directly:
//   conv2d per y element, conv_transpose2d (conv2d's input gradient) per x
//   element gathering the y elements it fed, conv2d_weight_grad per weight
//   element over images and positions. No im2col buffer and no scatter, so
//   no atomics and the same sum order on every run. Pool backward ops take
//   one plane per work-item (a plane's outputs may share inputs).
#include <utility>

#include "kernels.h"

namespace mfocl {

namespace {

const char* const kConv2d = R"CLC(
#pragma OPENCL FP_CONTRACT ON /* an inner product: Note [No contraction] in operands.cpp */
__kernel void k(long n_out, long C, long H, long W, long O, long OH, long OW, long KH, long KW, long sh, long sw,
                long ph, long pw, long dh, long dw, long groups, long has_bias,
                __global uchar* bx, ulong ox, __global uchar* bw, ulong ow_, __global uchar* bb, ulong ob,
                __global uchar* by, ulong oy) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT w = (PT)(bw + ow_); PT b = (PT)(bb + ob); PT y = (PT)(by + oy);
  long ow = i % OW, oh = (i / OW) % OH, o = (i / (OW * OH)) % O, n = i / (OW * OH * O);
  long Cg = C / groups, Og = O / groups, c0 = (o / Og) * Cg;
  T acc = has_bias ? b[o] : (T)0;
  for (long c = 0; c < Cg; ++c) {
    __global const T* xp = x + (n * C + c0 + c) * H * W;
    __global const T* wp = w + (o * Cg + c) * KH * KW;
    for (long ki = 0; ki < KH; ++ki) {
      long ih = oh * sh - ph + ki * dh;
      if (ih < 0 || ih >= H) continue;
      for (long kj = 0; kj < KW; ++kj) {
        long iw = ow * sw - pw + kj * dw;
        if (iw < 0 || iw >= W) continue;
        acc += xp[ih * W + iw] * wp[ki * KW + kj];
      }
    }
  }
  y[i] = acc;
}
)CLC";

// x [N, C, H, W] from y [N, O, OH, OW]: the adjoint of conv2d.
const char* const kConvTranspose2d = R"CLC(
#pragma OPENCL FP_CONTRACT ON /* an inner product: Note [No contraction] in operands.cpp */
__kernel void k(long n_out, long C, long H, long W, long O, long OH, long OW, long KH, long KW, long sh, long sw,
                long ph, long pw, long dh, long dw, long groups, long has_bias,
                __global uchar* by, ulong oy, __global uchar* bw, ulong ow_, __global uchar* bb, ulong ob,
                __global uchar* bx, ulong ox) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT w = (PT)(bw + ow_); PT b = (PT)(bb + ob); PT y = (PT)(by + oy);
  long iw = i % W, ih = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  long Cg = C / groups, Og = O / groups, g = c / Cg, cl = c % Cg;
  T acc = has_bias ? b[c] : (T)0;
  for (long oo = 0; oo < Og; ++oo) {
    long o = g * Og + oo;
    __global const T* yp = y + (n * O + o) * OH * OW;
    __global const T* wp = w + (o * Cg + cl) * KH * KW;
    for (long ki = 0; ki < KH; ++ki) {
      long t = ih + ph - ki * dh;
      if (t < 0 || t % sh) continue;
      long oh = t / sh;
      if (oh >= OH) continue;
      for (long kj = 0; kj < KW; ++kj) {
        long u = iw + pw - kj * dw;
        if (u < 0 || u % sw) continue;
        long ow = u / sw;
        if (ow >= OW) continue;
        acc += yp[oh * OW + ow] * wp[ki * KW + kj];
      }
    }
  }
  x[i] = acc;
}
)CLC";

const char* const kConvWeightGrad = R"CLC(
#pragma OPENCL FP_CONTRACT ON /* an inner product: Note [No contraction] in operands.cpp */
__kernel void k(long n_out, long N, long C, long H, long W, long O, long OH, long OW, long KH, long KW, long sh,
                long sw, long ph, long pw, long dh, long dw, long groups,
                __global uchar* bx, ulong ox, __global uchar* bg, ulong og, __global uchar* bw, ulong ow_) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT gy = (PT)(bg + og); PT gw = (PT)(bw + ow_);
  long Cg = C / groups, Og = O / groups;
  long kj = i % KW, ki = (i / KW) % KH, cl = (i / (KW * KH)) % Cg, o = i / (KW * KH * Cg);
  long c = (o / Og) * Cg + cl;
  T acc = 0;
  for (long n = 0; n < N; ++n) {
    __global const T* xp = x + (n * C + c) * H * W;
    __global const T* gp = gy + (n * O + o) * OH * OW;
    for (long oh = 0; oh < OH; ++oh) {
      long ih = oh * sh - ph + ki * dh;
      if (ih < 0 || ih >= H) continue;
      for (long ow = 0; ow < OW; ++ow) {
        long iw = ow * sw - pw + kj * dw;
        if (iw < 0 || iw >= W) continue;
        acc += gp[oh * OW + ow] * xp[ih * W + iw];
      }
    }
  }
  gw[i] = acc;
}
)CLC";

const char* const kMaxPool = R"CLC(
__kernel void k(long n_out, long H, long W, long OH, long OW, long KH, long KW, long sh, long sw, long ph, long pw,
                long dh, long dw, __global uchar* bx, ulong ox, __global uchar* by, ulong oy, __global uchar* bi, ulong oi) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT y = (PT)(by + oy); __global long* idx = (__global long*)(bi + oi);
  long ow = i % OW, oh = (i / OW) % OH, p = i / (OW * OH);
  __global const T* xp = x + p * H * W;
  T best = -INFINITY; long arg = -1;
  for (long ki = 0; ki < KH; ++ki) {
    long iy = oh * sh - ph + ki * dh;
    if (iy < 0 || iy >= H) continue;
    for (long kj = 0; kj < KW; ++kj) {
      long ix = ow * sw - pw + kj * dw;
      if (ix < 0 || ix >= W) continue;
      T v = xp[iy * W + ix];
      if (arg < 0 || v > best || v != v) {
        best = v; arg = iy * W + ix;
        if (v != v) { ki = KH; break; }
      }
    }
  }
  y[i] = best;
  idx[i] = arg < 0 ? 0 : arg;
}
)CLC";

const char* const kAdaptiveMaxPool = R"CLC(
__kernel void k(long n_out, long H, long W, long OH, long OW,
                __global uchar* bx, ulong ox, __global uchar* by, ulong oy, __global uchar* bi, ulong oi) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT y = (PT)(by + oy); __global long* idx = (__global long*)(bi + oi);
  long ow = i % OW, oh = (i / OW) % OH, p = i / (OW * OH);
  __global const T* xp = x + p * H * W;
  long y0 = (oh * H) / OH, y1 = ((oh + 1) * H + OH - 1) / OH;
  long x0 = (ow * W) / OW, x1 = ((ow + 1) * W + OW - 1) / OW;
  T best = xp[y0 * W + x0]; long arg = y0 * W + x0;
  for (long iy = y0; iy < y1 && best == best; ++iy)
    for (long ix = x0; ix < x1; ++ix) {
      T v = xp[iy * W + ix];
      if (v > best || v != v) { best = v; arg = iy * W + ix; if (v != v) break; }
    }
  y[i] = best;
  idx[i] = arg;
}
)CLC";

// One plane per work-item: zero it, then add each output's gradient at its index.
const char* const kMaxPoolBackward = R"CLC(
__kernel void k(long P, long IL, long OL, __global uchar* bx, ulong ox, __global uchar* bg, ulong og,
                __global uchar* bi, ulong oi) {
  long p = get_global_id(0);
  if (p >= P) return;
  PT gx = (PT)(bx + ox); PT gy = (PT)(bg + og); __global const long* idx = (__global const long*)(bi + oi);
  __global T* g = gx + p * IL;
  for (long j = 0; j < IL; ++j) g[j] = 0;
  for (long o = 0; o < OL; ++o) {
    long j = idx[p * OL + o];
    if (j >= 0 && j < IL) g[j] += gy[p * OL + o];
  }
}
)CLC";

// The CPU's avg_cell: the window clipped to the padded input, its divisor.
const char* const kAvgCell = R"CLC(
void avg_cell(long oh, long ow, long H, long W, long KH, long KW, long sh, long sw, long ph, long pw, long inc,
              long divisor, long* y0, long* y1, long* x0, long* x1, T* div) {
  long a0 = oh * sh - ph, b0 = ow * sw - pw;
  long a1 = min(a0 + KH, H + ph), b1 = min(b0 + KW, W + pw);
  long padded = (a1 - a0) * (b1 - b0);
  a0 = max(a0, (long)0); b0 = max(b0, (long)0); a1 = min(a1, H); b1 = min(b1, W);
  *div = divisor ? (T)divisor : inc ? (T)padded : (T)((a1 - a0) * (b1 - b0));
  *y0 = a0; *y1 = a1; *x0 = b0; *x1 = b1;
}
)CLC";

const char* const kAvgPool = R"CLC(
__kernel void k(long n_out, long H, long W, long OH, long OW, long KH, long KW, long sh, long sw, long ph, long pw,
                long inc, long divisor, __global uchar* bx, ulong ox, __global uchar* by, ulong oy) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT y = (PT)(by + oy);
  long ow = i % OW, oh = (i / OW) % OH, p = i / (OW * OH);
  long y0, y1, x0, x1; T div;
  avg_cell(oh, ow, H, W, KH, KW, sh, sw, ph, pw, inc, divisor, &y0, &y1, &x0, &x1, &div);
  __global const T* xp = x + p * H * W;
  T s = 0;
  for (long iy = y0; iy < y1; ++iy)
    for (long ix = x0; ix < x1; ++ix) s += xp[iy * W + ix];
  y[i] = s / div;
}
)CLC";

const char* const kAvgPoolBackward = R"CLC(
__kernel void k(long P, long H, long W, long OH, long OW, long KH, long KW, long sh, long sw, long ph, long pw,
                long inc, long divisor, __global uchar* bx, ulong ox, __global uchar* bg, ulong og) {
  long p = get_global_id(0);
  if (p >= P) return;
  PT gx = (PT)(bx + ox); PT gy = (PT)(bg + og);
  __global T* g = gx + p * H * W;
  for (long j = 0; j < H * W; ++j) g[j] = 0;
  for (long oh = 0; oh < OH; ++oh)
    for (long ow = 0; ow < OW; ++ow) {
      long y0, y1, x0, x1; T div;
      avg_cell(oh, ow, H, W, KH, KW, sh, sw, ph, pw, inc, divisor, &y0, &y1, &x0, &x1, &div);
      T v = gy[(p * OH + oh) * OW + ow] / div;
      for (long iy = y0; iy < y1; ++iy)
        for (long ix = x0; ix < x1; ++ix) g[iy * W + ix] += v;
    }
}
)CLC";

const char* const kAdaptiveAvgPool = R"CLC(
__kernel void k(long n_out, long H, long W, long OH, long OW, __global uchar* bx, ulong ox, __global uchar* by, ulong oy) {
  long i = get_global_id(0);
  if (i >= n_out) return;
  PT x = (PT)(bx + ox); PT y = (PT)(by + oy);
  long ow = i % OW, oh = (i / OW) % OH, p = i / (OW * OH);
  long y0 = (oh * H) / OH, y1 = ((oh + 1) * H + OH - 1) / OH;
  long x0 = (ow * W) / OW, x1 = ((ow + 1) * W + OW - 1) / OW;
  __global const T* xp = x + p * H * W;
  T s = 0;
  for (long iy = y0; iy < y1; ++iy)
    for (long ix = x0; ix < x1; ++ix) s += xp[iy * W + ix];
  y[i] = s / (T)((y1 - y0) * (x1 - x0));
}
)CLC";

const char* const kAdaptiveAvgPoolBackward = R"CLC(
__kernel void k(long P, long H, long W, long OH, long OW, __global uchar* bx, ulong ox, __global uchar* bg, ulong og) {
  long p = get_global_id(0);
  if (p >= P) return;
  PT gx = (PT)(bx + ox); PT gy = (PT)(bg + og);
  __global T* g = gx + p * H * W;
  for (long j = 0; j < H * W; ++j) g[j] = 0;
  for (long oh = 0; oh < OH; ++oh) {
    long y0 = (oh * H) / OH, y1 = ((oh + 1) * H + OH - 1) / OH;
    for (long ow = 0; ow < OW; ++ow) {
      long x0 = (ow * W) / OW, x1 = ((ow + 1) * W + OW - 1) / OW;
      T v = gy[(p * OH + oh) * OW + ow] / (T)((y1 - y0) * (x1 - x0));
      for (long iy = y0; iy < y1; ++iy)
        for (long ix = x0; ix < x1; ++ix) g[iy * W + ix] += v;
    }
  }
}
)CLC";

enum class K { kConv, kConvT, kConvW, kMax, kMaxBack, kAvg, kAvgBack, kAdAvg, kAdAvgBack, kAdMax };
struct KDef {
  const char* name;
  K kind;
  const char* src;
};
const KDef kKernels[] = {
    {"conv2d", K::kConv, kConv2d},
    {"conv_transpose2d", K::kConvT, kConvTranspose2d},
    {"conv2d_weight_grad", K::kConvW, kConvWeightGrad},
    {"max_pool2d", K::kMax, kMaxPool},
    {"max_pool2d_backward", K::kMaxBack, kMaxPoolBackward},
    {"avg_pool2d", K::kAvg, kAvgPool},
    {"avg_pool2d_backward", K::kAvgBack, kAvgPoolBackward},
    {"adaptive_avg_pool2d", K::kAdAvg, kAdaptiveAvgPool},
    {"adaptive_avg_pool2d_backward", K::kAdAvgBack, kAdaptiveAvgPoolBackward},
    {"adaptive_max_pool2d", K::kAdMax, kAdaptiveMaxPool},
};
constexpr size_t kNumKernels = sizeof(kKernels) / sizeof(kKernels[0]);

bool contiguous(const MFTensorDesc& t) {
  int64_t expect = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.strides[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

struct Plane {
  int64_t P, H, W;
};
Plane plane_of(const char* op, const MFTensorDesc& t) {
  if (t.ndim < 2) invalid(op, "operands must have at least 2 dims");
  int64_t P = 1;
  for (int32_t d = 0; d < t.ndim - 2; ++d) P *= t.shape[d];
  return {P, t.shape[t.ndim - 2], t.shape[t.ndim - 1]};
}

template <size_t I>
MFStatus launch(const MFKernelCall* call) {
  return guarded([&] {
    const KDef& def = kKernels[I];
    const char* op = def.name;
    const bool conv = def.kind == K::kConv || def.kind == K::kConvT || def.kind == K::kConvW;
    const bool two_out = def.kind == K::kMax || def.kind == K::kAdMax;
    Stream* s = check_call(call, op, -1, two_out ? 2 : 1);
    const int ni = call->num_inputs;
    for (int i = 0; i < ni; ++i)
      if (!contiguous(call->inputs[i])) invalid(op, "operands must be contiguous");
    for (int i = 0; i < call->num_outputs; ++i)
      if (!contiguous(call->outputs[i])) invalid(op, "operands must be contiguous");
    const int32_t dt = call->outputs[0].dtype;
    std::vector<Resolved> res;
    std::vector<cl_long> args;
    int64_t work = 0;
    if (conv) {
      int64_t st[2], pd[2], dl[2], groups;
      read_ints(op, call, "stride", 2, st);
      read_ints(op, call, "padding", 2, pd);
      read_ints(op, call, "dilation", 2, dl);
      read_ints(op, call, "groups", 1, &groups);
      const bool bias = def.kind != K::kConvW && ni == 3;
      if (ni != (def.kind == K::kConvW ? 2 : bias ? 3 : 2)) invalid(op, "wrong number of inputs");
      // Seen from conv2d: x [N, C, H, W], y [N, O, OH, OW], w [O, C/groups, KH, KW].
      const MFTensorDesc* x;
      const MFTensorDesc* y;
      const MFTensorDesc* w;
      if (def.kind == K::kConv) x = &call->inputs[0], w = &call->inputs[1], y = &call->outputs[0];
      else if (def.kind == K::kConvT) y = &call->inputs[0], w = &call->inputs[1], x = &call->outputs[0];
      else x = &call->inputs[0], y = &call->inputs[1], w = &call->outputs[0];
      if (x->ndim != 4 || y->ndim != 4 || w->ndim != 4) invalid(op, "operands must be 4-D");
      const int64_t N = x->shape[0], C = x->shape[1], H = x->shape[2], W = x->shape[3];
      const int64_t O = y->shape[1], OH = y->shape[2], OW = y->shape[3], KH = w->shape[2], KW = w->shape[3];
      if (groups < 1 || C % groups || O % groups || w->shape[0] != O || w->shape[1] * groups != C || y->shape[0] != N)
        invalid(op, "channels, groups and weight do not line up");
      for (int k = 0; k < 2; ++k)
        if (st[k] < 1 || dl[k] < 1 || pd[k] < 0) invalid(op, "stride and dilation must be positive, padding non-negative");
      if (bias && (call->inputs[2].ndim != 1 || call->inputs[2].shape[0] != (def.kind == K::kConv ? O : C)))
        invalid(op, "bias must be 1-D with one value per output channel");
      if (def.kind == K::kConv) {
        work = numel(*y);
        args = {work, C, H, W, O, OH, OW, KH, KW, st[0], st[1], pd[0], pd[1], dl[0], dl[1], groups, bias};
        res = {resolve_desc(*x, call->device, op, "x"), resolve_desc(*w, call->device, op, "w"),
               bias ? resolve_desc(call->inputs[2], call->device, op, "bias") : resolve_desc(*w, call->device, op, "w"),
               resolve_desc(*y, call->device, op, "y")};
      } else if (def.kind == K::kConvT) {
        work = numel(*x);
        args = {work, C, H, W, O, OH, OW, KH, KW, st[0], st[1], pd[0], pd[1], dl[0], dl[1], groups, bias};
        res = {resolve_desc(*y, call->device, op, "y"), resolve_desc(*w, call->device, op, "w"),
               bias ? resolve_desc(call->inputs[2], call->device, op, "bias") : resolve_desc(*w, call->device, op, "w"),
               resolve_desc(*x, call->device, op, "x")};
      } else {
        work = numel(*w);
        args = {work, N, C, H, W, O, OH, OW, KH, KW, st[0], st[1], pd[0], pd[1], dl[0], dl[1], groups};
        res = {resolve_desc(*x, call->device, op, "x"), resolve_desc(*y, call->device, op, "gy"),
               resolve_desc(*w, call->device, op, "gw")};
      }
    } else {
      // Pooling: the larger (input) side and the smaller (output) side as planes.
      const bool backward = def.kind == K::kMaxBack || def.kind == K::kAvgBack || def.kind == K::kAdAvgBack;
      const MFTensorDesc& big = backward ? call->outputs[0] : call->inputs[0];
      const MFTensorDesc& small = backward ? call->inputs[0] : call->outputs[0];
      const Plane in = plane_of(op, big), out = plane_of(op, small);
      if (in.P != out.P) invalid(op, "operands have different plane counts");
      if (two_out && (call->outputs[1].dtype != MF_INT64 || !same_shape(call->outputs[1], small)))
        invalid(op, "indices must be int64 of the output's shape");
      if (def.kind == K::kMaxBack &&
          (ni != 2 || call->inputs[1].dtype != MF_INT64 || !same_shape(call->inputs[1], small)))
        invalid(op, "indices must be int64 of the output's shape");
      if ((def.kind == K::kAdAvg || def.kind == K::kAdMax) && (in.H == 0 || in.W == 0))
        invalid(op, "empty input planes");
      int64_t ks[2] = {1, 1}, st[2] = {1, 1}, pd[2] = {0, 0}, dl[2] = {1, 1}, inc = 0, div = 0;
      if (def.kind == K::kMax || def.kind == K::kAvg || def.kind == K::kAvgBack) {
        read_ints(op, call, "kernel_size", 2, ks);
        read_ints(op, call, "stride", 2, st);
        read_ints(op, call, "padding", 2, pd);
        if (def.kind == K::kMax) read_ints(op, call, "dilation", 2, dl);
        else {
          read_ints(op, call, "count_include_pad", 1, &inc);
          read_ints(op, call, "divisor_override", 1, &div);
        }
        for (int k = 0; k < 2; ++k)
          if (ks[k] < 1 || st[k] < 1 || dl[k] < 1 || pd[k] < 0) invalid(op, "bad window");
      }
      for (int i = 0; i < call->num_outputs; ++i)
        res.push_back(resolve_desc(call->outputs[i], call->device, op, "output"));
      for (int i = 0; i < ni; ++i) res.push_back(resolve_desc(call->inputs[i], call->device, op, "input"));
      // Kernel argument order: the big side first for backward ops (outputs
      // then inputs), x then outputs for forward ones.
      if (!backward) std::rotate(res.begin(), res.begin() + call->num_outputs, res.end());
      switch (def.kind) {
        case K::kMax:
          work = out.P * out.H * out.W;
          args = {work, in.H, in.W, out.H, out.W, ks[0], ks[1], st[0], st[1], pd[0], pd[1], dl[0], dl[1]};
          break;
        case K::kAdMax:
        case K::kAdAvg:
          work = out.P * out.H * out.W;
          args = {work, in.H, in.W, out.H, out.W};
          break;
        case K::kAvg:
          work = out.P * out.H * out.W;
          args = {work, in.H, in.W, out.H, out.W, ks[0], ks[1], st[0], st[1], pd[0], pd[1], inc != 0, div};
          break;
        case K::kMaxBack:
          work = in.P;
          args = {work, in.H * in.W, out.H * out.W};
          break;
        case K::kAvgBack:
          work = in.P;
          args = {work, in.H, in.W, out.H, out.W, ks[0], ks[1], st[0], st[1], pd[0], pd[1], inc != 0, div};
          break;
        case K::kAdAvgBack:
          work = in.P;
          args = {work, in.H, in.W, out.H, out.W};
          break;
        default:
          break;
      }
      if (in.P * in.H * in.W == 0 || out.H * out.W == 0) {
        if (!backward || in.P * in.H * in.W == 0) return MF_OK;
      }
    }
    if (work == 0) return MF_OK;
    const Device& dev = device(call->device);
    CachedKernel& k = cached_kernel(call->device, std::string(op) + ":" + std::to_string(dt), "k", [&] {
      const DTypeInfo& t = dtype_info(dt);
      return prelude(dev) + "#define T " + t.storage + "\ntypedef __global " + t.storage + "* PT;\n" +
             (def.kind == K::kAvg || def.kind == K::kAvgBack ? kAvgCell : "") + def.src;
    });
    Launch l(k, s);
    for (cl_long a : args) l.arg(a);
    for (const Resolved& r : res) l.buffer(r);
    l.run(work);
    return MF_OK;
  });
}

template <size_t... I>
constexpr std::array<MFKernelFn, sizeof...(I)> launchers(std::index_sequence<I...>) {
  return {&launch<I>...};
}

}  // namespace

void register_conv_kernels(Registrar& r) {
  static const auto fns = launchers(std::make_index_sequence<kNumKernels>());
  for (int32_t dt : {MF_FLOAT32, MF_FLOAT64}) {
    if (!r.supports(dt)) continue;
    for (size_t i = 0; i < kNumKernels; ++i) r.add(kKernels[i].name, dt, dt, fns[i]);
  }
}

}  // namespace mfocl
