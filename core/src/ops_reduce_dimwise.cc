// Dim-wise ops: cumsum/cumprod, softmax/log_softmax, sort/argsort, topk.
//
// Kernels see their dim as the last dim of every operand (docs/kernels.md
// "Op families"): the core passes permuted views, so kernels iterate rows.
// Outputs are allocated in x's own dim order and only *viewed* permuted, so
// results come back contiguous like PyTorch's.
#include <array>

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_math.h"
#include "monoflow/ops_reduce_ext.h"
#include "monoflow/ops_shape.h"

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

// ---- backward helpers (differentiable op API, so create_graph works)
using autograd::NeedsGrad;
using autograd::SavedTensor;
using autograd::TensorList;


Tensor mul(const Tensor& a, const Tensor& b) { return binary(kOp_mul, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(kOp_sub, a, b); }
Tensor sum_dim(const Tensor& t, int64_t d) { return sum(t, Dims{d}, true, std::nullopt); }
Tensor pick(const Tensor& cond, const Tensor& a, Scalar otherwise) {
  return where(cond, TensorOrScalar::of(a), TensorOrScalar::of(otherwise));
}
Tensor eq_int(const Tensor& a, int64_t v) { return binary(kOp_eq, a, scalar_operand(a, Scalar::from_int(v))); }

// sum_{j >= i} t_j along d
Tensor reverse_cumsum(const Tensor& t, int64_t d) {
  return flip(cumsum(flip(t, Dims{d}), d, std::nullopt), Dims{d});
}

// d/dx_i of sum_j g_j prod_{m<=j} x_m. Before the first zero of a row it is
// reverse_cumsum(g * out) / x_i; at the first zero, the same sum with that
// zero taken as 1 (the products after it do not vanish for it); after the
// first zero it is 0 (every term holds that zero).
Tensor cumprod_backward(const Tensor& g, const Tensor& x, const Tensor& out, int64_t d) {
  if (x->dim() == 0 || x->numel() == 0) return reshape(g, x->shape);
  Tensor zero = eq_int(x, 0);
  Tensor zeros_so_far = cumsum(zero, d, std::nullopt);
  Tensor before = eq_int(zeros_so_far, 0);
  Tensor first = math_binary(kOp_logical_and, TensorOrScalar::of(zero), TensorOrScalar::of(eq_int(zeros_so_far, 1)));
  Tensor a = binary(kOp_div, reverse_cumsum(mul(g, out), d), pick(before, x, Scalar::from_int(1)));
  a = pick(before, a, Scalar::from_int(0));
  Tensor y = where(first, TensorOrScalar::of(Scalar::from_int(1)), TensorOrScalar::of(x));
  Tensor b = reverse_cumsum(mul(g, cumprod(y, d, std::nullopt)), d);
  return binary(kOp_add, a, pick(first, b, Scalar::from_int(0)));
}

// The values' gradient goes back to where they came from (a permutation or
// a selection along d: no index repeats).
Tensor scatter_back(const Tensor& g, const Tensor& idx, const Dims& shape, int64_t d) {
  if (shape.empty()) return reshape(g, shape);
  return scatter(full(shape, Scalar{}, g->dtype, g->device()), d, idx, g);
}
}  // namespace

Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  autograd::Recorder rec("cumsum", {x});
  Tensor out = scan(kOp_cumsum, "cumsum", x, dim, dtype);
  if (rec)
    rec.finish({out}, [d = wrap_dim(dim, x->dim(), "cumsum"), shape = x->shape](const TensorList& g, NeedsGrad) {
      if (shape.empty()) return TensorList{g[0]};
      return TensorList{reverse_cumsum(g[0], d)};
    });
  return out;
}
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  autograd::Recorder rec("cumprod", {x});
  Tensor xc = dtype ? cast(x, *dtype) : x;
  Tensor out = scan(kOp_cumprod, "cumprod", xc, dim, dtype);
  if (rec) {
    rec.finish({out}, [d = wrap_dim(dim, x->dim(), "cumprod"), sx = rec.save(xc), so = SavedTensor(out, true)](const TensorList& g,
                                                                                                              NeedsGrad) {
      return TensorList{cumprod_backward(g[0], sx.unpack(), so.unpack(), d)};
    });
  }
  return out;
}

// softmax: out * (g - sum(g * out)); log_softmax: g - exp(out) * sum(g).
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  autograd::Recorder rec("softmax", {x});
  Tensor out = softmax_like(kOp_softmax, "softmax", x, dim, dtype);
  if (rec) {
    rec.finish({out}, [d = wrap_dim(dim, x->dim(), "softmax"), so = SavedTensor(out, true)](const TensorList& g,
                                                                                           NeedsGrad) {
      Tensor y = so.unpack();
      return TensorList{mul(y, sub(g[0], sum_dim(mul(g[0], y), d)))};
    });
  }
  return out;
}
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype) {
  autograd::Recorder rec("log_softmax", {x});
  Tensor out = softmax_like(kOp_log_softmax, "log_softmax", x, dim, dtype);
  if (rec) {
    rec.finish({out}, [d = wrap_dim(dim, x->dim(), "log_softmax"), so = SavedTensor(out, true)](const TensorList& g,
                                                                                               NeedsGrad) {
      Tensor y = so.unpack();
      return TensorList{sub(g[0], mul(math_unary(kOp_exp, y), sum_dim(g[0], d)))};
    });
  }
  return out;
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool /*stable*/) {
  // The kernel sorts stably in any case: a stable order is also a valid
  // unstable one, and it makes indices deterministic.
  autograd::Recorder rec("sort", {x});
  int64_t d = wrap_dim(dim, x->dim(), "sort");
  Tensor values = empty(x->shape, x->dtype, x->device());
  Tensor indices = empty(x->shape, DType::Int64, x->device());
  MFAttr attr = int_attr("descending", descending);
  run_dimwise<2>(kOp_sort, x, d, {values, indices}, &attr, 1);
  if (rec)
    rec.finish({values, indices}, [si = SavedTensor(indices, false), shape = x->shape, d](const TensorList& g,
                                                                                        NeedsGrad) {
      return TensorList{scatter_back(g[0], si.unpack(), shape, d)};
    });
  return {values, indices};
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return sort(x, dim, descending, stable).second;
}

std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  MF_CHECK(x->dtype != DType::Bool, RuntimeError, "topk: does not support bool dtypes");
  autograd::Recorder rec("topk", {x});
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
  if (rec)
    rec.finish({values, indices}, [si = SavedTensor(indices, false), shape = x->shape, d](const TensorList& g,
                                                                                        NeedsGrad) {
      return TensorList{scatter_back(g[0], si.unpack(), shape, d)};
    });
  return {values, indices};
}

}  // namespace monoflow
