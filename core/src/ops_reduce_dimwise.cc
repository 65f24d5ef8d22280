// Dim-wise ops: cumsum/cumprod, softmax/log_softmax, sort/argsort, topk.
//
// Kernels see their dim as the last dim of every operand (docs/kernels.md
// "Op families"): the core passes permuted views, so kernels iterate rows.
// Outputs are allocated in x's own dim order and only *viewed* permuted, so
// results come back contiguous like PyTorch's.
#include <array>

#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_reduce_ext.h"

namespace monoflow {

namespace {

// t with dim `d` moved last (the other dims keep their order); a 0-dim
// tensor as one row of one element.
Tensor dim_last(const Tensor& t, int64_t d) {
  if (t->dim() == 0) return make_view(t, Dims{1}, Dims{1}, t->offset);
  Dims order;
  for (int64_t i = 0; i < t->dim(); ++i)
    if (i != d) order.push_back(i);
  order.push_back(d);
  return permute(t, order);
}

template <size_t N>
void run_dimwise(int op_id, const Tensor& x, int64_t d, const std::array<Tensor, N>& outs, const MFAttr* attrs = nullptr,
                 int num_attrs = 0) {
  Tensor xv = dim_last(x, d);
  std::array<Tensor, N> ov;
  for (size_t i = 0; i < N; ++i) ov[i] = dim_last(outs[i], d);
  LaunchArgs a{&op_def(op_id), x->dtype};
  a.inputs = &xv;
  a.num_inputs = 1;
  a.outputs = ov.data();
  a.num_outputs = static_cast<int>(N);
  a.attrs = attrs;
  a.num_attrs = num_attrs;
  launch(a);
}

Tensor scan(int op_id, const char* name, const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  int64_t d = wrap_dim(dim, x->dim(), name);
  Tensor xc = dtype ? cast(x, *dtype) : x;
  DType acc = output_dtype(op_def(op_id), xc->dtype);  // integers accumulate in int64
  Tensor out = empty(x->shape, acc, x->device());
  run_dimwise<1>(op_id, xc, d, {out});
  return dtype && *dtype != acc ? cast(out, *dtype) : out;
}

Tensor softmax_like(int op_id, const char* name, const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  int64_t d = wrap_dim(dim, x->dim(), name);
  Tensor xc = dtype ? cast(x, *dtype) : x;
  MF_CHECK(is_floating(xc->dtype), NotImplementedError, name, ": not implemented for '",
           dtype_torch_name(xc->dtype), "' (pass a floating dtype=)");
  Tensor out = empty(x->shape, xc->dtype, x->device());
  run_dimwise<1>(op_id, xc, d, {out});
  return out;
}
}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return scan(kOp_cumsum, "cumsum", x, dim, dtype);
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return scan(kOp_cumprod, "cumprod", x, dim, dtype);
}

Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return softmax_like(kOp_softmax, "softmax", x, dim, dtype);
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  return softmax_like(kOp_log_softmax, "log_softmax", x, dim, dtype);
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool /*stable*/) {
  // The kernel sorts stably in any case: a stable order is also a valid
  // unstable one, and it makes indices deterministic.
  int64_t d = wrap_dim(dim, x->dim(), "sort");
  Tensor values = empty(x->shape, x->dtype, x->device());
  Tensor indices = empty(x->shape, DType::Int64, x->device());
  MFAttr attr = int_attr("descending", descending);
  run_dimwise<2>(kOp_sort, x, d, {values, indices}, &attr, 1);
  return {values, indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return sort(x, dim, descending, stable).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  MF_CHECK(x->dtype != DType::Bool, RuntimeError, "topk: does not support bool dtypes");
  int64_t d = wrap_dim(dim, x->dim(), "topk");
  int64_t n = x->dim() ? x->shape[d] : 1;
  MF_CHECK(k >= 0 && k <= n, RuntimeError, "topk: selected index k out of range (k = ", k, ", dim ", d, " has size ",
           n, ")");
  Dims shape = x->shape;
  if (x->dim()) shape[d] = k;  // (a 0-dim x gives its element, as PyTorch does for k = 0 or 1)
  Tensor values = empty(shape, x->dtype, x->device());
  Tensor indices = empty(shape, DType::Int64, x->device());
  MFAttr attrs[2] = {int_attr("largest", largest), int_attr("sorted", sorted)};
  run_dimwise<2>(kOp_topk, x, d, {values, indices}, attrs, 2);
  return {values, indices};
}

}  // namespace monoflow
