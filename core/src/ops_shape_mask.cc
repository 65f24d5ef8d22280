// Masks: masked_fill (elementwise kernel), nonzero (count, then coordinates:
// the result's size depends on the data, so it synchronises), and
// masked_select (x[nonzero(mask)] on the `index` kernel).
#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/indexing.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

using autograd::NeedsGrad;
using autograd::TensorList;

namespace {
void check_mask(const char* op, const Tensor& x, const Tensor& mask) {
  MF_CHECK(mask->dtype == DType::Bool, RuntimeError, op, ": only supports boolean masks, but got mask with dtype ",
           dtype_name(mask->dtype));
  MF_CHECK(x->device() == mask->device(), RuntimeError, op,
           ": expected all tensors to be on the same device, but found at least two devices, ", x->device().str(),
           " and ", mask->device().str());
}

// The fill value: a number, or the value of a 0-dim tensor; refused (as by
// fill_) when x's dtype cannot hold it.
Scalar fill_value(const char* op, DType dtype, Scalar value, const Tensor& value_tensor) {
  if (value_tensor) {
    MF_CHECK(value_tensor->dim() == 0, RuntimeError, op,
             ": only supports a 0-dimensional value tensor, but got tensor with ", value_tensor->dim(),
             " dimension(s).");
    value = item(value_tensor);
  }
  checked_scalar_tensor(value, dtype, Device{0, 0}, op);  // the range check (on the host)
  if (dtype == DType::Bool) value = Scalar::from_bool(value.i != 0 || value.f != 0.0);
  return value;
}

void launch_masked_fill(const Tensor& x, const Tensor& mask, const Tensor& out, Scalar value) {
  // elementwise: every operand has out's shape
  launch(kOp_masked_fill, x->dtype, {x, mask}, out, {scalar_attr("value", value)}, /*coalesce=*/true);
}

// x's gradient is zero where filled; a 0-dim value tensor gets the sum of
// the gradient there.
autograd::BackwardFn masked_fill_backward(const Tensor& mask) {
  return [mask](const TensorList& g, NeedsGrad n) {
    TensorList r(2);
    if (n[0]) r[0] = masked_fill(g[0], mask, Scalar{});
    if (n[1]) r[1] = sum(binary(kOp_mul, g[0], mask), Dims{}, false, std::nullopt);
    return r;
  };
}
}  // namespace

// A 0-dim value tensor on x's device fills on the device (where): reading it
// on the host would freeze its value into a graph trace.
bool fills_on_device(const char* op, const Tensor& x, const Tensor& value_tensor) {
  if (!value_tensor || value_tensor->device() != x->device()) return false;
  MF_CHECK(value_tensor->dim() == 0, RuntimeError, op,
           ": only supports a 0-dimensional value tensor, but got tensor with ", value_tensor->dim(), " dimension(s).");
  return true;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value, const Tensor& value_tensor) {
  const char* op = "masked_fill";
  check_mask(op, x, mask);
  if (fills_on_device(op, x, value_tensor))
    return where(mask, TensorOrScalar::of(cast(value_tensor, x->dtype)), TensorOrScalar::of(x));
  Scalar v = fill_value(op, x->dtype, value, value_tensor);
  Dims shape = broadcast_shapes(x->shape, mask->shape, op);
  autograd::Recorder rec(op, {x, value_tensor});
  Tensor out = empty(shape, x->dtype, x->device());
  launch_masked_fill(expand(x, shape), expand(mask, shape), out, v);
  if (rec) rec.finish({out}, masked_fill_backward(mask));
  return out;
}

void masked_fill_(const Tensor& self, const Tensor& mask, Scalar value, const Tensor& value_tensor) {
  const char* op = "masked_fill_";
  check_mask(op, self, mask);
  check_writable("masked_fill", self);
  if (fills_on_device(op, self, value_tensor)) {
    Dims shape = broadcast_shapes(self->shape, mask->shape, op);
    MF_CHECK(shape == self->shape, RuntimeError, op, ": output with shape ", shape_str(self->shape),
             " doesn't match the broadcast shape ", shape_str(shape));
    copy_(self, where(mask, TensorOrScalar::of(cast(value_tensor, self->dtype)), TensorOrScalar::of(self)));
    return;
  }
  Scalar v = fill_value(op, self->dtype, value, value_tensor);
  Dims shape = broadcast_shapes(self->shape, mask->shape, op);
  MF_CHECK(shape == self->shape, RuntimeError, op, ": output with shape ", shape_str(self->shape),
           " doesn't match the broadcast shape ", shape_str(shape));
  // Elementwise in place: a mask in self's memory is fine element for
  // element, not shifted against it.
  Overlap ov = overlap(self, mask);
  Tensor m = ov == Overlap::Partial || ov == Overlap::TooHard ? clone(mask) : mask;
  autograd::Recorder rec(autograd::Recorder::InPlace{}, op, {self, value_tensor});
  launch_masked_fill(self, expand(m, shape), self, v);
  self->bump_version();
  if (rec) rec.finish_inplace(self, masked_fill_backward(m));
}

Tensor nonzero(const Tensor& x) {
  const Device dev = x->device();
  Tensor count = empty(Dims{}, DType::Int64, dev);
  if (x->numel() == 0) {
    fill_(count, Scalar::from_int(0));
  } else {
    launch(kOp_nonzero_count, x->dtype, {x}, count);
  }
  const int64_t n = item(count).i;  // synchronises
  Tensor out = empty(Dims{n, x->dim()}, DType::Int64, dev);
  launch(kOp_nonzero, x->dtype, {x}, out);  // (nothing to do for a 0-dim x: out is [n, 0])
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& x) {
  // A 0-dim tensor counts as 1-D here, as in PyTorch.
  Tensor nz = nonzero(x->dim() ? x : make_view(x, Dims{1}, Dims{1}, x->offset));
  std::vector<Tensor> out;
  for (int64_t j = 0; j < nz->shape[1]; ++j) out.push_back(contiguous(select(nz, 1, j)));
  return out;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  const char* op = "masked_select";
  MF_CHECK(mask->dtype == DType::Bool, RuntimeError, op, ": expected BoolTensor for mask (got ",
           dtype_name(mask->dtype), ")");
  check_mask(op, x, mask);
  Dims shape = broadcast_shapes(x->shape, mask->shape, op);
  autograd::Recorder rec(op, {x});
  Tensor xb = expand(x, shape), mb = expand(mask, shape);
  if (shape.empty()) {
    xb = make_view(xb, Dims{1}, Dims{1}, xb->offset);
    mb = make_view(mb, Dims{1}, Dims{1}, mb->offset);
  }
  Tensor nz = nonzero(mb);  // [n, ndim]: the I operand as it is
  const int64_t n = nz->shape[0];
  Dims ds{n}, dst{0};
  for (int64_t d = 0; d < xb->dim(); ++d) {
    ds.push_back(xb->shape[d]);
    dst.push_back(xb->strides[d]);
  }
  Tensor out = empty(Dims{n}, x->dtype, x->device());
  launch_index(out, make_view(xb, ds, dst, xb->offset), nz);
  if (rec)
    rec.finish({out}, [shape, mask](const TensorList& g, NeedsGrad) {
      // (x broadcast to `shape`)[mask] = g: the engine sums the broadcast away.
      Tensor r = full(shape, Scalar{}, g[0]->dtype, g[0]->device());
      index_put_(r, {index_item_tensor(expand(mask, shape))}, g[0], false);
      return TensorList{r};
    });
  return out;
}

}  // namespace monoflow
