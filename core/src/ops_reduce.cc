// Reductions over a set of dims.
#include <algorithm>

#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

namespace {
// Normalised, de-duplicated reduced dims as a mask; empty `dims` means all.
SmallVector<bool, 8> reduce_mask(const Tensor& x, const Dims& dims, const char* op) {
  int64_t nd = x->dim();
  SmallVector<bool, 8> mask(static_cast<size_t>(std::max<int64_t>(nd, 1)), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd, op);
    MF_CHECK(!mask[w], RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}
}  // namespace

Tensor sum(const Tensor& x, const Dims& dims, bool keepdim, std::optional<DType> dtype) {
  const OpDef& op = op_def(kOp_sum);
  Tensor xc = dtype ? to(x, x->device(), *dtype, false) : x;
  auto mask = reduce_mask(x, dims, "sum");
  Dims kept_shape, out_shape;
  for (int64_t d = 0; d < x->dim(); ++d) {
    kept_shape.push_back(mask[d] ? 1 : x->shape[d]);
    if (!mask[d] || keepdim) out_shape.push_back(mask[d] ? 1 : x->shape[d]);
  }
  DType acc = output_dtype(op, xc->dtype);
  Tensor out = empty(kept_shape, acc, x->device());
  LaunchArgs a{&op, xc->dtype};
  a.inputs = &xc;
  a.num_inputs = 1;
  a.outputs = &out;
  a.num_outputs = 1;
  launch(a);
  Tensor result = make_view(out, out_shape, contiguous_strides(out_shape), 0);
  if (dtype && *dtype != acc) result = to(result, result->device(), *dtype, false);
  return result;
}

}  // namespace monoflow
