// Pooling: max_pool2d, avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d.
//
// Kernels see [.., H, W] planes (any leading dims). Every backward is itself
// a recorded op whose derivative is the forward's linear part, so gradients
// of any order work: max pooling's backward scatters by the saved indices
// and its derivative gathers by them; avg pooling's forward and backward are
// adjoint linear maps of each other (as are the adaptive ones).
#include <array>
#include <optional>

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops_nn.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

namespace {
struct Window {
  int64_t k[2], s[2], p[2], d[2];
};

std::array<int64_t, 2> pair_arg(const Dims& v, const char* op, const char* what) {
  MF_CHECK(v.size() == 1 || v.size() == 2, ValueError, op, ": ", what,
           " must either be a single int, or a tuple of two ints");
  return {v[0], v[v.size() - 1]};
}

DType kernel_dtype(DType t) { return t == DType::Float64 ? DType::Float64 : DType::Float32; }

void check_input(const Tensor& x, const char* op) {
  bool ok = x->dim() == 3 || x->dim() == 4;
  for (int64_t d = x->dim() - 3; ok && d < x->dim(); ++d) ok = x->shape[d] > 0;
  MF_CHECK(ok, RuntimeError, op, ": expected a non-empty 3D or 4D (batch mode) tensor, but got input of size ",
           shape_str(x->shape));
  MF_CHECK(is_floating(x->dtype), RuntimeError, op, ": expected a floating point input, but got ",
           dtype_name(x->dtype));
}

// PyTorch's pooling output size: the last window must start inside the
// input or its left padding (ceil_mode may otherwise add a window of padding only).
// (In 128 bits: kernel, stride, padding and dilation are user numbers, and
// their products must not wrap around into a plausible size.)
int64_t pool_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  using Wide = __int128;
  Wide num = Wide(in) + 2 * Wide(p) - Wide(d) * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  Wide q = num >= 0 ? num / s : -((-num + s - 1) / s);
  Wide out = q + 1;
  if (ceil_mode && (out - 1) * s >= Wide(in) + p) --out;
  // an output this far out of range is refused by the callers' size checks
  return out > INT64_MAX ? INT64_MAX : out < -1 ? -1 : static_cast<int64_t>(out);
}

Window make_window(const Dims& kernel, const Dims& stride, const Dims& padding,
                   const Dims& dilation, const char* op) {
  Window w;
  auto k = pair_arg(kernel, op, "kernel_size");
  auto s = stride.empty() ? k : pair_arg(stride, op, "stride");
  auto p = pair_arg(padding, op, "padding");
  auto d = pair_arg(dilation, op, "dilation");
  for (int i = 0; i < 2; ++i) {
    MF_CHECK(k[i] > 0, RuntimeError, op, ": kernel size should be greater than zero, but got kH: ", k[0],
             " kW: ", k[1]);
    MF_CHECK(s[i] > 0, RuntimeError, op, ": stride should be greater than zero, but got dH: ", s[0], " dW: ", s[1]);
    MF_CHECK(d[i] > 0, RuntimeError, op, ": dilation should be greater than zero, but got dilationH: ", d[0],
             " dilationW: ", d[1]);
    MF_CHECK(p[i] >= 0 && p[i] <= k[i] / 2, RuntimeError, op,
             ": pad should be at most half of effective kernel size, but got pad=", p[i], ", kernel_size=", k[i],
             " and dilation=", d[i]);
    w.k[i] = k[i], w.s[i] = s[i], w.p[i] = p[i], w.d[i] = d[i];
  }
  return w;
}

Dims pooled_shape(const Tensor& x, const Window& w, bool ceil_mode, const char* op) {
  Dims out = x->shape;
  const int64_t nd = x->dim();
  for (int i = 0; i < 2; ++i)
    out[nd - 2 + i] = pool_size(x->shape[nd - 2 + i], w.k[i], w.s[i], w.p[i], w.d[i], ceil_mode);
  MF_CHECK(out[nd - 2] > 0 && out[nd - 1] > 0, RuntimeError, op, ": given input size: ",
           shape_str(Dims(x->shape.begin() + nd - 3, x->shape.end())), ". Calculated output size: ",
           shape_str(Dims(out.begin() + nd - 3, out.end())), ". Output size is too small");
  return out;
}


// Launches a pooling kernel: inputs (cast to the kernel dtype, contiguous),
// outputs of `shape` (values in the kernel dtype, then int64 indices if asked).
std::pair<Tensor, Tensor> run(int op_id, std::initializer_list<Tensor> inputs, const Dims& shape, DType dtype,
                              bool with_indices, const MFAttr* attrs, int num_attrs) {
  const DType kd = kernel_dtype(dtype);
  Tensor in[2];
  int n = 0;
  for (const Tensor& t : inputs) in[n++] = contiguous(t->dtype == DType::Int64 ? t : cast(t, kd));
  Tensor out[2] = {empty(shape, kd, in[0]->device()),
                   with_indices ? empty(shape, DType::Int64, in[0]->device()) : Tensor()};
  LaunchArgs la{&op_def(op_id), kd};
  la.inputs = in;
  la.num_inputs = n;
  la.outputs = out;
  la.num_outputs = with_indices ? 2 : 1;
  la.attrs = attrs;
  la.num_attrs = num_attrs;
  launch(la);
  return {cast(out[0], dtype), out[1]};
}

// gx[.., idx] += gy over each plane (max pooling's backward).
Tensor scatter_by_indices(const Tensor& gy, const Tensor& idx, const Dims& xs) {
  autograd::Recorder rec("max_pool2d_backward", {gy});
  Tensor gx = run(kOp_max_pool2d_backward, {gy, idx}, xs, gy->dtype, false, nullptr, 0).first;
  if (rec)
    rec.finish({gx}, [sidx = rec.save(idx), gs = gy->shape](const autograd::TensorList& g, autograd::NeedsGrad) {
      Tensor i = sidx.unpack();
      const int64_t nd = i->dim();
      Tensor gg = gather(flatten(g[0], nd - 2, nd - 1), nd - 2, flatten(i, nd - 2, nd - 1));
      return autograd::TensorList{reshape(gg, gs)};
    });
  return gx;
}

std::pair<Tensor, Tensor> with_index_grad(const char* name, int op_id, const Tensor& x, const Dims& ys,
                                          const MFAttr* attrs, int num_attrs) {
  autograd::Recorder rec(name, {x});
  auto [y, idx] = run(op_id, {x}, ys, x->dtype, true, attrs, num_attrs);
  if (rec)
    rec.finish({y, idx}, [sidx = rec.save(idx), xs = x->shape, xe = autograd::gradient_edge(x),
                          xm = autograd::GradMeta{x->shape, x->dtype, x->device()}](const autograd::TensorList& g,
                                                                                   autograd::NeedsGrad) {
      // Note [Formal inputs of piecewise-linear backward]
      return autograd::TensorList{autograd::formally_depends_on(scatter_by_indices(g[0], sidx.unpack(), xs), xe, xm)};
    });
  return {y, idx};
}

// avg pooling and its adjoint, with their attributes.
struct AvgArgs {
  Window w;
  bool include_pad;
  int64_t divisor;
};
// Average pooling and its adjoint are linear and each other's derivative.
// `a` empty: adaptive pooling (no attributes).
Tensor avg_pool(bool adjoint, const Tensor& in, const Dims& out_shape, const std::optional<AvgArgs>& a) {
  const int op = a ? (adjoint ? kOp_avg_pool2d_backward : kOp_avg_pool2d)
                   : (adjoint ? kOp_adaptive_avg_pool2d_backward : kOp_adaptive_avg_pool2d);
  autograd::Recorder rec(op_def(op).name, {in});
  std::array<MFAttr, 5> attrs{};
  int num_attrs = 0;
  if (a) {
    attrs = {ints_attr("kernel_size", a->w.k, 2), ints_attr("stride", a->w.s, 2), ints_attr("padding", a->w.p, 2),
             int_attr("count_include_pad", a->include_pad), int_attr("divisor_override", a->divisor)};
    num_attrs = 5;
  }
  Tensor out = run(op, {in}, out_shape, in->dtype, false, num_attrs ? attrs.data() : nullptr, num_attrs).first;
  if (rec) {
    // Note [Formal inputs of piecewise-linear backward]: the pooling's gradient reads its input formally
    autograd::Edge xe = adjoint ? autograd::Edge{} : autograd::gradient_edge(in);
    rec.finish({out}, [adjoint, a, in_shape = in->shape, xe, xm = autograd::GradMeta{in->shape, in->dtype, in->device()}](
                          const autograd::TensorList& g, autograd::NeedsGrad) {
      return autograd::TensorList{autograd::formally_depends_on(avg_pool(!adjoint, g[0], in_shape, a), xe, xm)};
    });
  }
  return out;
}

Dims adaptive_shape(const Tensor& x, const Dims& output_size, const char* op) {
  check_input(x, op);
  auto o = pair_arg(output_size, op, "output_size");
  MF_CHECK(o[0] >= 0 && o[1] >= 0, RuntimeError, op, ": elements of output_size must be non-negative, but got (",
           o[0], ", ", o[1], ")");
  Dims ys = x->shape;
  ys[x->dim() - 2] = o[0];
  ys[x->dim() - 1] = o[1];
  return ys;
}
}  // namespace

std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const Dims& kernel_size, const Dims& stride,
                                     const Dims& padding, const Dims& dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  check_input(x, op);
  const Window w = make_window(kernel_size, stride, padding, dilation, op);
  const Dims ys = pooled_shape(x, w, ceil_mode, op);
  MFAttr attrs[4] = {ints_attr("kernel_size", w.k, 2), ints_attr("stride", w.s, 2), ints_attr("padding", w.p, 2),
                     ints_attr("dilation", w.d, 2)};
  return with_index_grad(op, kOp_max_pool2d, x, ys, attrs, 4);
}

Tensor avg_pool2d(const Tensor& x, const Dims& kernel_size, const Dims& stride, const Dims& padding,
                  bool ceil_mode, bool count_include_pad, int64_t divisor_override) {
  const char* op = "avg_pool2d";
  check_input(x, op);
  const Window w = make_window(kernel_size, stride, padding, {1}, op);
  MF_CHECK(divisor_override >= 0, RuntimeError, op, ": divisor must be not zero");
  const Dims ys = pooled_shape(x, w, ceil_mode, op);
  return avg_pool(false, x, ys, AvgArgs{w, count_include_pad, divisor_override});
}

Tensor adaptive_avg_pool2d(const Tensor& x, const Dims& output_size) {
  return avg_pool(false, x, adaptive_shape(x, output_size, "adaptive_avg_pool2d"), std::nullopt);
}

std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const Dims& output_size) {
  const char* op = "adaptive_max_pool2d";
  return with_index_grad(op, kOp_adaptive_max_pool2d, x, adaptive_shape(x, output_size, op), nullptr, 0);
}

}  // namespace monoflow
