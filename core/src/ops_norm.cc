// Note [Fused layer norm]
//   x is viewed as rows of n elements (the normalized dims). The forward
//   kernel writes y = (x - mean) * rstd (* w + b) and each row's mean and
//   rstd = 1 / sqrt(var + eps) (biased variance), one pass over memory
//   instead of the composite's eight kernels. Backward, one kernel too: with
//   xhat = (x - mean) * rstd and gw = g * w, dx = rstd * (gw - mean(gw) -
//   xhat * mean(gw * xhat)), dw = sum over rows of g * xhat and db = sum over
//   rows of g. Under create_graph the same formulas run as differentiable
//   ops (mean and rstd recomputed from x), so any order works.
#include "monoflow/autograd.h"
#include "monoflow/backend.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_nn.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

namespace {
using autograd::NeedsGrad;
using autograd::TensorList;

DType kernel_dtype(DType t) { return t == DType::Float64 ? DType::Float64 : DType::Float32; }

Tensor mul(const Tensor& a, const Tensor& b) { return binary(kOp_mul, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(kOp_sub, a, b); }
Tensor row_mean(const Tensor& t) {  // (rows, n) -> (rows, 1)
  return binary_scalar(kOp_div_scalar, sum(t, Dims{1}, true, std::nullopt), Scalar::from_float(double(t->shape[1])));
}

// (xhat, rstd) of the rows of x from differentiable ops.
std::pair<Tensor, Tensor> normalized(const Tensor& x, double eps) {
  Tensor centered = sub(x, row_mean(x));
  Tensor rs = math_unary(kOp_rsqrt, binary_scalar(kOp_add_scalar, row_mean(mul(centered, centered)),
                                                  Scalar::from_float(eps)));
  return {mul(centered, rs), rs};
}

// Runs a layer_norm kernel on contiguous operands in the kernel dtype (null inputs left out).
void run(int op_id, std::initializer_list<Tensor> inputs, std::initializer_list<Tensor> outputs, DType kd,
         std::initializer_list<MFAttr> attrs) {
  Tensor in[5], out[3];
  int ni = 0, no = 0;
  for (const Tensor& t : inputs)
    if (t) in[ni++] = contiguous(cast(t, kd));
  for (const Tensor& t : outputs) out[no++] = t;
  LaunchArgs la{&op_def(op_id), kd};
  la.inputs = in;
  la.num_inputs = ni;
  la.outputs = out;
  la.num_outputs = no;
  la.attrs = attrs.begin();
  la.num_attrs = static_cast<int>(attrs.size());
  launch(la);
}

// dx, dw, db of the (rows, n) views: one kernel, or, when the backward is
// itself recorded (create_graph), differentiable ops with mean and rstd
// recomputed from x, so that they depend on it.
TensorList backward(const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w,
                    double eps, NeedsGrad need, DType kd) {
  if (!autograd::grad_enabled()) {
    const int64_t n = x->shape[1];
    Tensor dx = empty(x->shape, kd, x->device());
    Tensor dw = full({1, n}, Scalar::from_int(0), kd, x->device()), db = full({1, n}, Scalar::from_int(0), kd, x->device());
    if (x->numel()) run(kOp_layer_norm_backward, {g, x, mean, rstd, w}, {dx, dw, db}, kd, {});  // (no rows: zeros)
    return {need[0] ? dx : Tensor(), need[1] ? dw : Tensor(), need[2] ? db : Tensor()};
  }
  auto [xhat, rs] = normalized(x, eps);
  TensorList r(3);
  if (need[0]) {
    Tensor gw = w ? mul(g, w) : g;
    r[0] = mul(rs, sub(sub(gw, row_mean(gw)), mul(xhat, row_mean(mul(gw, xhat)))));
  }
  if (need[1]) r[1] = sum(mul(g, xhat), Dims{0}, false, std::nullopt);
  if (need[2]) r[2] = sum(g, Dims{0}, false, std::nullopt);
  return r;
}
}  // namespace

Tensor layer_norm(const Tensor& x, int64_t normalized_ndim, const Tensor& weight, const Tensor& bias, double eps) {
  const char* op = "layer_norm";
  MF_CHECK(normalized_ndim >= 1 && normalized_ndim <= x->dim(), RuntimeError, op,
           ": normalized_ndim must be in [1, ", x->dim(), "], got ", normalized_ndim);
  MF_CHECK(is_floating(x->dtype), RuntimeError, op, ": expected a floating point input, but got ",
           dtype_name(x->dtype));
  const Dims tail(x->shape.end() - normalized_ndim, x->shape.end());
  for (const Tensor* t : {&weight, &bias}) {
    if (!*t) continue;
    MF_CHECK((*t)->shape == tail && (*t)->dtype == x->dtype && (*t)->device() == x->device(), RuntimeError, op,
             ": weight and bias must have the normalized shape ", shape_str(tail), ", the input's dtype and device");
  }
  int64_t n = 1;
  for (int64_t s : tail) n *= s;
  const int64_t rows = n ? x->numel() / n : 0;
  const DType kd = kernel_dtype(x->dtype);
  const Tensor w = weight ? reshape(cast(weight, kd), {1, n}) : Tensor();
  const Tensor b = bias ? reshape(cast(bias, kd), {1, n}) : Tensor();
  Tensor x2 = reshape(contiguous(cast(x, kd)), {rows, n});
  if (!DeviceRegistry::get().backend(x->device()).find_kernel(kOp_layer_norm, kd, kd)) {
    // a device without the kernel: the same formula from its elementwise and reduction kernels
    Tensor y = normalized(x2, eps).first;
    if (w) y = mul(y, w);
    if (b) y = binary(kOp_add, y, b);
    return cast(reshape(y, x->shape), x->dtype);
  }
  autograd::Recorder rec("native_layer_norm", {x, weight, bias});
  Tensor y = empty({rows, n}, kd, x->device()), mean = empty({rows, 1}, kd, x->device()),
         rstd = empty({rows, 1}, kd, x->device());
  if (rows && n)
    run(kOp_layer_norm, {x2, w, b}, {y, mean, rstd}, kd,
        {int_attr("has_weight", bool(w)), int_attr("has_bias", bool(b)), float_attr("eps", eps)});
  Tensor out = cast(reshape(y, x->shape), x->dtype);
  if (rec)
    rec.finish({out}, [sx = rec.save(x2), sw = w ? rec.save(w) : autograd::SavedTensor(), mean, rstd, kd, eps, rows,
                       n, shape = x->shape, wshape = tail, dt = x->dtype](const TensorList& g, NeedsGrad need) {
      Tensor g2 = reshape(contiguous(cast(g[0], kd)), {rows, n});
      TensorList r = backward(g2, sx.unpack(), mean, rstd, sw.defined() ? sw.unpack() : Tensor(), eps, need, kd);
      if (r[0]) r[0] = cast(reshape(r[0], shape), dt);
      if (r[1]) r[1] = cast(reshape(r[1], wshape), dt);
      if (r[2]) r[2] = cast(reshape(r[2], wshape), dt);
      return r;
    });
  return out;
}

}  // namespace monoflow
