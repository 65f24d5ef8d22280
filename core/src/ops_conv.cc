// Convolution: conv2d, conv_transpose2d and conv2d's weight gradient.
//
// Note [Three linear maps]
//   conv(x, w) is bilinear, and its two adjoints are the other two ops:
//     y  = conv(x, w):     dx = adjoint(gy, w)      dw = wgrad(x, gy)
//     x  = adjoint(y, w):  dy = conv(gx, w)         dw = wgrad(gx, y)
//     w  = wgrad(x, gy):   dx = adjoint(gy, gw)     dgy = conv(x, gw)
//   (adjoint = conv_transpose2d.) Each is recorded with a backward written
//   with the others, so gradients of every order work. An adjoint's output
//   may be a few rows larger than what convolving it back would need (the
//   output_padding rows): conv(gx, w) then has extra rows, which are cropped.
#include <array>

#include "monoflow/autograd.h"
#include "monoflow/checked_arith.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops_nn.h"

namespace monoflow {

namespace {
struct Geom {
  int64_t s[2], p[2], d[2], groups;
};

std::array<int64_t, 2> pair_arg(const Dims& v, const char* op, const char* what) {
  MF_CHECK(v.size() == 1 || v.size() == 2, ValueError, op, ": expected ", what,
           " to be a single integer or a pair of integers, but got ", v.size(), " values");
  return {v[0], v[v.size() - 1]};
}

Geom make_geom(const Dims& stride, const Dims& padding, const Dims& dilation, int64_t groups, const char* op) {
  Geom g;
  auto s = pair_arg(stride, op, "stride"), p = pair_arg(padding, op, "padding"),
       d = pair_arg(dilation, op, "dilation");
  for (int k = 0; k < 2; ++k) {
    MF_CHECK(s[k] > 0, RuntimeError, op, ": non-positive stride is not supported");
    MF_CHECK(p[k] >= 0, RuntimeError, op, ": negative padding is not supported");
    MF_CHECK(d[k] > 0, RuntimeError, op, ": dilation should be greater than zero");
    g.s[k] = s[k], g.p[k] = p[k], g.d[k] = d[k];
  }
  MF_CHECK(groups > 0, RuntimeError, op, ": non-positive groups is not supported");
  g.groups = groups;
  return g;
}

// float16/bfloat16 compute in float32 (docs/kernels/nn.md).
DType kernel_dtype(DType t) { return t == DType::Float64 ? DType::Float64 : DType::Float32; }

// (In 128 bits, clamped: stride, padding and dilation are user numbers.)
int64_t clamp_wide(__int128 v) {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : static_cast<int64_t>(v);
}

int64_t conv_size(int64_t in, int64_t k, const Geom& g, int dim) {
  return clamp_wide((__int128(in) + 2 * __int128(g.p[dim]) - __int128(g.d[dim]) * (k - 1) - 1) / g.s[dim] + 1);
}


// Runs conv kernel `op_id` on (a, b[, bias]) into a fresh output of `shape`.
Tensor run(int op_id, const Tensor& a, const Tensor& b, const Tensor& bias, const Dims& shape, const Geom& g) {
  const DType dtype = a->dtype, kd = kernel_dtype(dtype);
  Tensor out = empty(shape, kd, a->device());
  if (a->numel() == 0 || b->numel() == 0) {  // an empty sum: zeros (+ bias)
    fill_(out, Scalar::from_int(0));
    if (bias) out = binary(kOp_add, out, view(cast(bias, kd), {1, bias->shape[0], 1, 1}));
    return cast(out, dtype);
  }
  Tensor in[3] = {contiguous(cast(a, kd)), contiguous(cast(b, kd)), bias ? contiguous(cast(bias, kd)) : Tensor()};
  MFAttr attrs[4] = {ints_attr("stride", g.s, 2), ints_attr("padding", g.p, 2), ints_attr("dilation", g.d, 2),
                     int_attr("groups", g.groups)};
  LaunchArgs la{&op_def(op_id), kd};
  la.inputs = in;
  la.num_inputs = bias ? 3 : 2;
  la.outputs = &out;
  la.num_outputs = 1;
  la.attrs = attrs;
  la.num_attrs = 4;
  launch(la);
  return cast(out, dtype);
}

Tensor crop(const Tensor& t, const Dims& shape) {
  Tensor r = t;
  for (int64_t d = 2; d < 4; ++d)
    if (r->shape[d] != shape[d]) r = narrow(r, d, 0, shape[d]);
  return r;
}

Tensor conv_fwd(const Tensor& x, const Tensor& w, const Tensor& bias, const Geom& g);
Tensor conv_adj(const Tensor& y, const Tensor& w, const Tensor& bias, const Dims& xs, const Geom& g);

Tensor bias_grad(const Tensor& g) { return sum(g, {0, 2, 3}, false, std::nullopt); }

Tensor wgrad(const Tensor& x, const Tensor& gy, const Dims& ws, const Geom& g) {
  autograd::Recorder rec("conv2d_weight_grad", {x, gy});
  Tensor gw = run(kOp_conv2d_weight_grad, x, gy, Tensor(), ws, g);
  if (rec)
    rec.finish({gw}, [sx = rec.save(x), sgy = rec.save(gy), g](const autograd::TensorList& gr, autograd::NeedsGrad n) {
      Tensor x = sx.unpack(), gy = sgy.unpack();
      autograd::TensorList r(2);
      if (n[0]) r[0] = conv_adj(gy, gr[0], Tensor(), x->shape, g);
      if (n[1]) r[1] = crop(conv_fwd(x, gr[0], Tensor(), g), gy->shape);
      return r;
    });
  return gw;
}

// y [N, O, OH, OW] -> x [N, C, H, W] of shape xs (see Note [Three linear maps]).
Tensor conv_adj(const Tensor& y, const Tensor& w, const Tensor& bias, const Dims& xs, const Geom& g) {
  autograd::Recorder rec("conv_transpose2d", {y, w, bias});
  Tensor x = run(kOp_conv_transpose2d, y, w, bias, xs, g);
  if (rec)
    rec.finish({x}, [sy = rec.save(y), sw = rec.save(w), g](const autograd::TensorList& gr, autograd::NeedsGrad n) {
      Tensor y = sy.unpack(), w = sw.unpack();
      autograd::TensorList r(3);
      if (n[0]) r[0] = crop(conv_fwd(gr[0], w, Tensor(), g), y->shape);
      if (n[1]) r[1] = wgrad(gr[0], y, w->shape, g);
      if (n[2]) r[2] = bias_grad(gr[0]);
      return r;
    });
  return x;
}

Tensor conv_fwd(const Tensor& x, const Tensor& w, const Tensor& bias, const Geom& g) {
  autograd::Recorder rec("conv2d", {x, w, bias});
  Dims ys{x->shape[0], w->shape[0], conv_size(x->shape[2], w->shape[2], g, 0),
          conv_size(x->shape[3], w->shape[3], g, 1)};
  Tensor y = run(kOp_conv2d, x, w, bias, ys, g);
  if (rec)
    rec.finish({y}, [sx = rec.save(x), sw = rec.save(w), g](const autograd::TensorList& gr, autograd::NeedsGrad n) {
      Tensor x = sx.unpack(), w = sw.unpack();
      autograd::TensorList r(3);
      if (n[0]) r[0] = conv_adj(gr[0], w, Tensor(), x->shape, g);
      if (n[1]) r[1] = wgrad(x, gr[0], w->shape, g);
      if (n[2]) r[2] = bias_grad(gr[0]);
      return r;
    });
  return y;
}

// Rank, dtype and device checks shared by both convolutions.
void check_operands(const Tensor& x, const Tensor& w, const Tensor& bias, const char* op) {
  MF_CHECK(x->dim() == 3 || x->dim() == 4, RuntimeError, "Expected 3D (unbatched) or 4D (batched) input to ", op,
           ", but got input of size: ", shape_str(x->shape));
  MF_CHECK(w->dim() == 4, RuntimeError, op, ": expected a 4-D weight, but got weight of size ",
           shape_str(w->shape));
  MF_CHECK(w->shape[2] > 0 && w->shape[3] > 0, RuntimeError, op,
           ": kernel size should be greater than zero, but got kernel_height: ", w->shape[2],
           " kernel_width: ", w->shape[3]);
  MF_CHECK(is_floating(x->dtype), RuntimeError, op, ": expected a floating point input, but got ",
           dtype_name(x->dtype));
  MF_CHECK(x->dtype == w->dtype, RuntimeError, op, ": input type (", dtype_name(x->dtype), ") and weight type (",
           dtype_name(w->dtype), ") should be the same");
  MF_CHECK(x->device() == w->device(), RuntimeError, op,
           ": expected all tensors to be on the same device, but found ", x->device().str(), " and ",
           w->device().str());
  if (bias) {
    MF_CHECK(bias->dtype == x->dtype, RuntimeError, op, ": input type (", dtype_name(x->dtype),
             ") and bias type (", dtype_name(bias->dtype), ") should be the same");
    MF_CHECK(bias->device() == x->device(), RuntimeError, op,
             ": expected all tensors to be on the same device, but found ", x->device().str(), " and ",
             bias->device().str());
  }
}

void check_bias(const Tensor& bias, int64_t channels, const Tensor& w, const char* op) {
  if (!bias) return;
  MF_CHECK(bias->dim() == 1 && bias->shape[0] == channels, RuntimeError, op, ": given weight of size ",
           shape_str(w->shape), ", expected bias to be 1-dimensional with ", channels,
           " elements, but got bias of size ", shape_str(bias->shape), " instead");
}
}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Dims& stride, const Dims& padding,
              const Dims& dilation, int64_t groups) {
  const char* op = "conv2d";
  check_operands(x, w, bias, op);
  const Geom g = make_geom(stride, padding, dilation, groups, op);
  if (x->dim() == 3) return squeeze(conv2d(unsqueeze(x, 0), w, bias, stride, padding, dilation, groups), 0);
  const int64_t C = x->shape[1], O = w->shape[0];
  MF_CHECK(O % groups == 0, RuntimeError, op, ": given groups=", groups, ", expected weight to be divisible by ",
           groups, " at dimension 0, but got weight of size ", shape_str(w->shape), " instead");
  MF_CHECK(__int128(w->shape[1]) * groups == C, RuntimeError, op, ": given groups=", groups, ", weight of size ",
           shape_str(w->shape), ", expected input", shape_str(x->shape), " to have ",
           clamp_wide(__int128(w->shape[1]) * groups),
           " channels, but got ", C, " channels instead");
  check_bias(bias, O, w, op);
  for (int k = 0; k < 2; ++k) {
    auto padded = [&](int j) { return clamp_wide(__int128(x->shape[2 + j]) + 2 * __int128(g.p[j])); };
    auto span = [&](int j) { return clamp_wide(__int128(g.d[j]) * (w->shape[2 + j] - 1) + 1); };
    MF_CHECK(padded(k) >= span(k), RuntimeError, op, ": calculated padded input size per channel: (", padded(0),
             " x ", padded(1), "). Kernel size: (", span(0), " x ", span(1),
             "). Kernel size can't be greater than actual input size");
  }
  return conv_fwd(x, w, bias, g);
}

Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Dims& stride,
                        const Dims& padding, const Dims& output_padding, int64_t groups, const Dims& dilation) {
  const char* op = "conv_transpose2d";
  check_operands(x, w, bias, op);
  const Geom g = make_geom(stride, padding, dilation, groups, op);
  auto opad = pair_arg(output_padding, op, "output_padding");
  if (x->dim() == 3)
    return squeeze(conv_transpose2d(unsqueeze(x, 0), w, bias, stride, padding, output_padding, groups, dilation),
                   0);
  const int64_t Cin = x->shape[1];
  MF_CHECK(Cin % groups == 0 && w->shape[0] % groups == 0, RuntimeError, op, ": given groups=", groups,
           ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size ",
           shape_str(w->shape), " instead");
  MF_CHECK(w->shape[0] == Cin, RuntimeError, op, ": given transposed=1, weight of size ", shape_str(w->shape),
           ", expected input", shape_str(x->shape), " to have ", w->shape[0], " channels, but got ", Cin,
           " channels instead");
  const int64_t Cout = checked_mul(w->shape[1], groups, op);
  check_bias(bias, Cout, w, op);
  Dims xs{x->shape[0], Cout, 0, 0};
  for (int k = 0; k < 2; ++k) {
    MF_CHECK(opad[k] >= 0 && (opad[k] < g.s[k] || opad[k] < g.d[k]), RuntimeError, op,
             ": output padding must be non-negative and smaller than either stride or dilation, but got "
             "output_padding=(",
             opad[0], ", ", opad[1], "), stride=(", g.s[0], ", ", g.s[1], "), dilation=(", g.d[0], ", ", g.d[1],
             ")");
    xs[2 + k] = clamp_wide(__int128(x->shape[2 + k] - 1) * g.s[k] - 2 * __int128(g.p[k]) +
                           __int128(g.d[k]) * (w->shape[2 + k] - 1) + opad[k] + 1);
  }
  MF_CHECK(xs[2] > 0 && xs[3] > 0, RuntimeError, op, ": given input size per channel: (", x->shape[2], " x ",
           x->shape[3], "). Calculated output size per channel: (", xs[2], " x ", xs[3],
           "). Output size is too small");
  return conv_adj(x, w, bias, xs, g);
}

Tensor conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Dims& weight_shape, const Dims& stride,
                          const Dims& padding, const Dims& dilation, int64_t groups) {
  const char* op = "conv2d_weight_grad";
  const Geom g = make_geom(stride, padding, dilation, groups, op);
  MF_CHECK(x->dim() == 4 && gy->dim() == 4 && weight_shape.size() == 4, RuntimeError, op,
           ": expected 4-D input, output gradient and weight shape");
  MF_CHECK(x->dtype == gy->dtype && is_floating(x->dtype) && x->device() == gy->device(), RuntimeError, op,
           ": input and output gradient must be floating tensors of one dtype and device");
  MF_CHECK(x->shape[0] == gy->shape[0] && weight_shape[0] == gy->shape[1] && weight_shape[0] % groups == 0 &&
               __int128(weight_shape[1]) * groups == x->shape[1],
           RuntimeError, op, ": shapes do not line up: input ", shape_str(x->shape), ", output gradient ",
           shape_str(gy->shape), ", weight ", shape_str(weight_shape), ", groups=", groups);
  for (int k = 0; k < 2; ++k)
    MF_CHECK(conv_size(x->shape[2 + k], weight_shape[2 + k], g, k) == gy->shape[2 + k], RuntimeError, op,
             ": output gradient of size ", shape_str(gy->shape), " does not match the convolution of input ",
             shape_str(x->shape));
  return wgrad(x, gy, weight_shape, g);
}

}  // namespace monoflow
