// matmul with PyTorch's rules for 1-D operands and broadcast batch dims.
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

Tensor matmul(const Tensor& a, const Tensor& b) {
  MF_CHECK(a->dim() >= 1 && b->dim() >= 1, RuntimeError,
           "matmul: both arguments to matmul need to be at least 1D, but they are ", a->dim(), "D and ", b->dim(),
           "D");
  MF_CHECK(a->device() == b->device(), RuntimeError,
           "matmul: expected all tensors to be on the same device, but found at least two devices, ",
           a->device().str(), " and ", b->device().str());
  MF_CHECK(a->dtype == b->dtype, TypeError, "matmul: expected both operands to have the same dtype, but got ",
           dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  Tensor a2 = a->dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b->dim() == 1 ? unsqueeze(b, -1) : b;
  int64_t m = a2->shape[a2->dim() - 2], k = a2->shape[a2->dim() - 1];
  int64_t k2 = b2->shape[b2->dim() - 2], n = b2->shape[b2->dim() - 1];
  MF_CHECK(k == k2, ValueError, "matmul: shapes cannot be multiplied (", shape_str(a->shape), " and ",
           shape_str(b->shape), "): the inner dimensions ", k, " and ", k2, " differ");
  Dims batch_a(a2->shape.begin(), a2->shape.end() - 2), batch_b(b2->shape.begin(), b2->shape.end() - 2);
  Dims batch = broadcast_shapes(batch_a, batch_b, "matmul");
  auto with = [&](int64_t r, int64_t c) {
    Dims s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  Tensor out = empty(with(m, n), a->dtype, a->device());
  launch(kOp_matmul, a->dtype, {expand(a2, with(m, k)), expand(b2, with(k, n))}, out);
  if (b->dim() == 1) out = squeeze(out, -1);
  if (a->dim() == 1) out = squeeze(out, out->dim() == 1 ? 0 : -2);
  return out;
}

}  // namespace monoflow
