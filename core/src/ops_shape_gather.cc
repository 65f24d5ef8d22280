// Gathering and scattering along one dim: gather, index_select, scatter,
// scatter_add, one_hot. All run on the `index`/`index_put` kernels: the data
// operand is restrided to the index's shape with stride 0 along `dim`, and
// the dim itself is appended as the one indexed dim (Note [Advanced
// indexing] in indexing.h). Indices are checked on the host first.
#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/indexing.h"
#include "monoflow/ops.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

using autograd::NeedsGrad;
using autograd::TensorList;

namespace {
void check_index_dtype(const Tensor& index, const char* op) {
  MF_CHECK(index->dtype == DType::Int64 || index->dtype == DType::Int32, RuntimeError, op,
           "(): Expected dtype int32 or int64 for index, got ", dtype_name(index->dtype));
}

void check_device(const char* op, const Tensor& a, const Tensor& b) {
  MF_CHECK(a->device() == b->device(), RuntimeError, op,
           ": expected all tensors to be on the same device, but found at least two devices, ", a->device().str(),
           " and ", b->device().str());
}

// A 0-dim tensor as 1-D of size 1 (gather/scatter treat them alike, as PyTorch does).
Tensor at_least_1d(const Tensor& t) { return t->dim() ? t : make_view(t, Dims{1}, Dims{1}, t->offset); }

// `t` restrided to `shape` (t's strides) with stride 0 along `dim`, and
// t's dim `dim` appended: the data operand of the index kernels.
Tensor along_dim(const Tensor& t, const Dims& shape, int64_t dim) {
  Dims s = shape, st;
  for (size_t j = 0; j < shape.size(); ++j) st.push_back(static_cast<int64_t>(j) == dim ? 0 : t->strides[j]);
  s.push_back(t->shape[dim]);
  st.push_back(t->strides[dim]);
  return make_view(t, s, st, t->offset);
}

// The I operand of index_select and its backward: the index vector along
// `dim` of `shape`, stride 0 elsewhere, with the size-1 index dim appended.
Tensor index_along(const Tensor& index, const Dims& shape, int64_t dim) {
  Tensor i64 = as_int64_index(index);
  Dims ishape = shape, istrides(shape.size(), 0);
  istrides[dim] = i64->strides[0];
  ishape.push_back(1);
  istrides.push_back(0);
  return make_view(i64, ishape, istrides, i64->offset);
}

std::string no_larger_message(const char* op, const Tensor& index, const Tensor& self, const Tensor& src,
                              int64_t dim) {
  std::string msg = str_cat(op, ": Expected index ", shape_str(index->shape), " to be no larger than self ",
                            shape_str(self->shape), " apart from dimension ", dim);
  if (src) msg += str_cat(" and to be no larger size than src ", shape_str(src->shape));
  return msg;
}
}  // namespace

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = "gather";
  check_index_dtype(index, op);
  check_device(op, x, index);
  const int64_t d = wrap_dim(dim, x->dim(), op);
  Tensor xv = at_least_1d(x), iv = at_least_1d(index);
  MF_CHECK(iv->dim() == xv->dim(), RuntimeError, op,
           ": Index tensor must have the same number of dimensions as input tensor");
  for (int64_t j = 0; j < xv->dim(); ++j)
    MF_CHECK(j == d || iv->shape[j] <= xv->shape[j], RuntimeError, op, ": Size does not match at dimension ", j,
             " expected index ", shape_str(index->shape), " to be no larger than self ", shape_str(x->shape),
             " apart from dimension ", d);
  autograd::Recorder rec("gather", {x});
  Tensor out = empty(index->shape, x->dtype, x->device());
  if (out->numel()) {
    check_index_bounds(iv, xv->shape[d], false, op, d);
    launch_index(at_least_1d(out), along_dim(xv, iv->shape, d), unsqueeze(as_int64_index(iv), iv->dim()));
  }
  if (rec)
    rec.finish({out}, [d, index, shape = x->shape](const TensorList& g, NeedsGrad) {
      return TensorList{gather_backward(shape, d, index, g[0])};
    });
  return out;
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  const char* op = "index_select";
  check_index_dtype(index, op);
  check_device(op, x, index);
  MF_CHECK(index->dim() <= 1, IndexError, op, "(): Index is supposed to be a vector");
  const int64_t d = wrap_dim(dim, x->dim(), op);
  const int64_t m = index->numel();
  MF_CHECK(x->dim() > 0 || m == 1, RuntimeError, op, "(): Index to scalar can have only 1 value, got ", m,
           " value(s)");
  Tensor xv = at_least_1d(x), iv = at_least_1d(index);
  Dims shape = xv->shape;
  shape[d] = m;
  check_index_bounds(iv, xv->shape[d], false, op, d);  // (even when out is empty, as in PyTorch)
  autograd::Recorder rec("index_select", {x});
  Tensor out = empty(x->dim() ? shape : Dims{}, x->dtype, x->device());
  if (out->numel()) launch_index(at_least_1d(out), along_dim(xv, shape, d), index_along(iv, shape, d));
  if (rec)
    rec.finish({out}, [d, index, shape = x->shape](const TensorList& g, NeedsGrad) {
      return TensorList{index_select_backward(shape, d, index, g[0])};
    });
  return out;
}

// Embedding's backward: one zero fill and one accumulating index_put.
Tensor index_select_backward(const Dims& shape, int64_t dim, const Tensor& index, const Tensor& src) {
  autograd::Recorder rec("index_add", {src});
  Tensor out = full(shape, Scalar{}, src->dtype, src->device());
  if (src->numel()) {
    Tensor ov = at_least_1d(out), sv = at_least_1d(src);
    launch_index_put(along_dim(ov, sv->shape, dim), sv, index_along(at_least_1d(index), sv->shape, dim), true);
  }
  if (rec)
    rec.finish({out}, [dim, index](const TensorList& g, NeedsGrad) {
      return TensorList{index_select(g[0], dim, index)};
    });
  return out;
}

Tensor gather_backward(const Dims& shape, int64_t dim, const Tensor& index, const Tensor& src) {
  autograd::Recorder rec("scatter_add", {src});
  Tensor out = full(shape, Scalar{}, src->dtype, src->device());
  if (src->numel()) {
    Tensor ov = at_least_1d(out), iv = at_least_1d(index);
    launch_index_put(along_dim(ov, iv->shape, dim), at_least_1d(src), unsqueeze(as_int64_index(iv), iv->dim()),
                     true);
  }
  if (rec)
    rec.finish({out}, [dim, index](const TensorList& g, NeedsGrad) {
      return TensorList{gather(g[0], dim, index)};
    });
  return out;
}

namespace {
void scatter_impl(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  Scalar value, bool accumulate) {
  check_index_dtype(index, op);
  check_device(op, self, index);
  if (src) check_device(op, self, src);
  MF_CHECK(!self->has_internal_overlap(), RuntimeError, op,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
  const int64_t d = wrap_dim(dim, self->dim(), op);
  Tensor sv = at_least_1d(self), iv = at_least_1d(index);
  MF_CHECK(iv->dim() == sv->dim(), RuntimeError, op,
           ": Index tensor must have the same number of dimensions as self tensor");
  Tensor srcv = src ? at_least_1d(src) : nullptr;
  if (src) {
    MF_CHECK(srcv->dim() == iv->dim(), RuntimeError, op,
             ": Index tensor must have the same number of dimensions as src tensor");
    MF_CHECK(src->dtype == self->dtype, RuntimeError, op, "(): Expected self.dtype to be equal to src.dtype (got ",
             dtype_name(self->dtype), " and ", dtype_name(src->dtype), ")");
  }
  for (int64_t j = 0; j < iv->dim(); ++j) {
    MF_CHECK((j == d || iv->shape[j] <= sv->shape[j]) && (!src || iv->shape[j] <= srcv->shape[j]), RuntimeError,
             no_larger_message(op, index, self, src, d));
  }
  Tensor values = src ? nullptr : checked_scalar_tensor(value, self->dtype, self->device(), op);
  if (iv->numel() == 0) {
    self->bump_version();
    return;
  }
  check_index_bounds(iv, sv->shape[d], false, op, d);
  if (src) {  // the part of src the index covers; never read from self's memory while writing it
    values = make_view(srcv, iv->shape, srcv->strides, srcv->offset);
    if (values->storage == self->storage) values = clone(values);
  } else {
    values = expand(values, iv->shape);
  }
  Tensor I = unsqueeze(as_int64_index(iv), iv->dim());
  if (I->storage == self->storage) I = clone(I);
  launch_index_put(along_dim(sv, iv->shape, d), values, I, accumulate);
  self->bump_version();
}
// The gradient of src: the gradient gathered at the index, zero where src
// reached past the index's extent.
Tensor scattered_src_grad(const Tensor& g, const Dims& src_shape) {
  if (g->shape == src_shape) return g;
  if (g->numel() == shape_numel(src_shape) || g->dim() != static_cast<int64_t>(src_shape.size()))
    return reshape(g, src_shape);  // a 0-dim tensor against a 1-element one
  Dims pads;
  for (int64_t d = g->dim() - 1; d >= 0; --d) {
    pads.push_back(0);
    pads.push_back(src_shape[d] - g->shape[d]);
  }
  return pad(g, pads, PadMode::Constant, std::nullopt);
}

// scatter: self's gradient is zero where written; scatter_add: all of it.
autograd::BackwardFn scatter_backward(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                                      bool accumulate) {
  const int64_t d = wrap_dim(dim, self->dim(), "scatter");
  return [d, index, accumulate, has_src = src != nullptr,
          src_shape = src ? src->shape : Dims{}](const TensorList& g, NeedsGrad n) {
    TensorList r(2);
    if (n[0]) r[0] = accumulate ? g[0] : scatter(g[0], d, index, nullptr, Scalar{});
    if (n[1] && has_src) r[1] = scattered_src_grad(gather(g[0], d, index), src_shape);
    return r;
  };
}

void scatter_inplace(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     Scalar value, bool accumulate) {
  autograd::Recorder rec(autograd::Recorder::InPlace{}, op, {self, src});
  scatter_impl(op, self, dim, index, src, value, accumulate);
  if (rec) rec.finish_inplace(self, scatter_backward(self, dim, index, src, accumulate));
}

Tensor scatter_outplace(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        Scalar value, bool accumulate) {
  autograd::Recorder rec(op, {self, src});
  Tensor out = clone(self);
  scatter_impl(op, out, dim, index, src, value, accumulate);
  if (rec) rec.finish({out}, scatter_backward(self, dim, index, src, accumulate));
  return out;
}
}  // namespace

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Scalar value) {
  scatter_inplace("scatter_", self, dim, index, src, value, false);
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Scalar value) {
  return scatter_outplace("scatter", self, dim, index, src, value, false);
}

void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  MF_CHECK(src, TypeError, "scatter_add_: src must be a tensor");
  scatter_inplace("scatter_add_", self, dim, index, src, Scalar{}, true);
}

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  MF_CHECK(src, TypeError, "scatter_add: src must be a tensor");
  return scatter_outplace("scatter_add", self, dim, index, src, Scalar{}, true);
}

Tensor one_hot(const Tensor& x, int64_t num_classes) {
  const char* op = "one_hot";
  MF_CHECK(x->dtype == DType::Int64, RuntimeError, op,
           ": one_hot is only applicable to index tensor of type LongTensor (got ", dtype_name(x->dtype), ")");
  int64_t classes = num_classes;
  if (x->numel() == 0) {
    MF_CHECK(num_classes > 0, RuntimeError, op, ": Can not infer total number of classes from empty tensor.");
  } else {
    auto [lo, hi] = index_min_max(x);
    MF_CHECK(lo >= 0, RuntimeError, op, ": Class values must be non-negative.");
    if (num_classes == -1) classes = hi + 1;
    MF_CHECK(hi < classes, RuntimeError, op, ": Class values must be smaller than num_classes.");
  }
  Dims shape = x->shape;
  shape.push_back(classes);
  Tensor out = full(shape, Scalar::from_int(0), DType::Int64, x->device());
  if (x->numel() == 0) return out;
  // out[..., x[...]] = 1: out's last dim is the indexed one.
  Dims ss = x->shape, st(x->shape.size());
  for (size_t j = 0; j < st.size(); ++j) st[j] = out->strides[j];
  ss.push_back(classes);
  st.push_back(1);
  Tensor one = expand(full(Dims{}, Scalar::from_int(1), DType::Int64, x->device()), x->shape);
  launch_index_put(make_view(out, ss, st, 0), one, unsqueeze(x, x->dim()), false);
  return out;
}

}  // namespace monoflow
