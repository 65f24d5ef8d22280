// matmul with PyTorch's rules for 1-D operands and broadcast batch dims.
#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

namespace {
// Note [Gradients in the operand's layout]
//   A matrix operand that is the transpose of a row-major matrix (linear's
//   weight.t()) gets its gradient computed transposed, (x^T @ y)^T = y^T @ x:
//   a row-major product seen through a transposed view. The transpose's own
//   backward then hands the weight a row-major gradient, which accumulates
//   into .grad with a plain copy (or none: a graph's copy elision lets the
//   product write .grad directly) instead of a transposing copy, so the
//   weight's gradient is not held in two layouts at once. Only for 2-D
//   operands of a 2-D product: each element is the same sum of the same
//   products either way (BLAS may block the sum differently, so results
//   can differ from the other order in the last bit; eager and graph use
//   this same path).
bool transposed_row_major(const Tensor& t) {
  return t->dim() == 2 && t->shape[0] > 1 && t->shape[1] > 1 && t->strides[0] == 1 && t->strides[1] == t->shape[0];
}

// Works on the 2-D (batched) forms of 1-D operands; batch broadcasting is
// summed away by sum_to.
autograd::TensorList matmul_backward(const Tensor& g, const Tensor& a, const Tensor& b, autograd::NeedsGrad n) {
  Tensor a2 = a->dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b->dim() == 1 ? unsqueeze(b, -1) : b;
  Tensor g2 = g;
  if (b->dim() == 1) g2 = unsqueeze(g2, -1);
  if (a->dim() == 1) g2 = unsqueeze(g2, g2->dim() == 1 ? 0 : -2);
  const bool plain = a2->dim() == 2 && b2->dim() == 2 && g2->dim() == 2;
  Tensor ga, gb;
  if (n[0] && plain && a->dim() == 2 && transposed_row_major(a))  // Note [Gradients in the operand's layout]
    ga = transpose(matmul(b2, transpose(g2, 0, 1)), 0, 1);
  else if (n[0])
    ga = reshape(autograd::sum_to(matmul(g2, transpose(b2, -1, -2)), a2->shape), a->shape);
  if (n[1] && b2->dim() == 2 && a2->dim() > 2) {
    // A matrix shared by the whole batch (linear over leading dims): its
    // gradient is one product over all the batch's rows, not a batch of
    // products summed afterwards (Note [One GEMM for a shared right operand]).
    const int64_t k = a2->shape[a2->dim() - 1], cols = g2->shape[g2->dim() - 1];
    Tensor af = reshape(a2, {-1, k}), gf = reshape(g2, {-1, cols});
    gb = transposed_row_major(b2) ? transpose(matmul(transpose(gf, 0, 1), af), 0, 1)
                                  : matmul(transpose(af, 0, 1), gf);
    gb = reshape(gb, b->shape);
  } else if (n[1] && plain && b->dim() == 2 && transposed_row_major(b))
    gb = transpose(matmul(transpose(g2, 0, 1), a2), 0, 1);
  else if (n[1])
    gb = reshape(autograd::sum_to(matmul(transpose(a2, -1, -2), g2), b2->shape), b->shape);
  return {ga, gb};
}
}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  MF_CHECK(a->dim() >= 1 && b->dim() >= 1, RuntimeError,
           "matmul: both arguments to matmul need to be at least 1D, but they are ", a->dim(), "D and ", b->dim(),
           "D");
  MF_CHECK(a->device() == b->device(), RuntimeError,
           "matmul: expected all tensors to be on the same device, but found at least two devices, ",
           a->device().str(), " and ", b->device().str());
  MF_CHECK(a->dtype == b->dtype, RuntimeError, "matmul: expected both operands to have the same dtype, but got ",
           dtype_name(a->dtype), " and ", dtype_name(b->dtype));
  autograd::Recorder rec("matmul", {a, b});
  Tensor a2 = a->dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor b2 = b->dim() == 1 ? unsqueeze(b, -1) : b;
  int64_t m = a2->shape[a2->dim() - 2], k = a2->shape[a2->dim() - 1];
  int64_t k2 = b2->shape[b2->dim() - 2], n = b2->shape[b2->dim() - 1];
  MF_CHECK(k == k2, RuntimeError, "matmul: shapes cannot be multiplied (", shape_str(a->shape), " and ",
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
  if (rec)
    rec.finish({out}, [sa = rec.save(a), sb = rec.save(b)](const autograd::TensorList& g, autograd::NeedsGrad n) {
      return matmul_backward(g[0], sa.unpack(), sb.unpack(), n);
    });
  return out;
}

}  // namespace monoflow
