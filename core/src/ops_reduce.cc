// Reductions over a set of dims: sum, mean, prod, amax/amin, max/min (with
// indices), argmax/argmin, var/std, vector_norm, logsumexp, all/any.
//
// Every kernel gets x (of the kernel dtype) and outputs of x's rank with
// size 1 on the reduced dims (docs/kernels/reduce.md); the result is then
// viewed without those dims unless keepdim.
#include <algorithm>
#include <array>
#include <cmath>

#include "monoflow/autograd.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_reduce_ext.h"

namespace monoflow {

namespace {
struct Plan {
  SmallVector<bool, 8> mask;  // reduced dims (size max(ndim, 1))
  bool all_dims = false;      // no dims were given
  Dims kept_shape;            // x's rank, 1 on reduced dims: what kernels write
  Dims out_shape;             // the result's shape
};

// Normalised, de-duplicated reduced dims; empty `dims` means all.
Plan plan_reduce(const Tensor& x, const Dims& dims, bool keepdim, const char* op) {
  int64_t nd = x->dim();
  Plan p;
  p.all_dims = dims.empty();
  p.mask.assign(static_cast<size_t>(std::max<int64_t>(nd, 1)), dims.empty());
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, nd, op);
    MF_CHECK(!p.mask[w], RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
    p.mask[w] = true;
  }
  for (int64_t d = 0; d < nd; ++d) {
    p.kept_shape.push_back(p.mask[d] ? 1 : x->shape[d]);
    if (!p.mask[d] || keepdim) p.out_shape.push_back(p.mask[d] ? 1 : x->shape[d]);
  }
  return p;
}

// Ops without an identity (max, argmax, inf-norms) refuse to reduce nothing.
void check_nonempty(const Tensor& x, const Plan& p, const char* op) {
  if (x->numel() != 0) return;
  MF_CHECK(!p.all_dims, RuntimeError, op,
           "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
           "'dim' argument.");
  for (int64_t d = 0; d < x->dim(); ++d)
    MF_CHECK(!(p.mask[d] && x->shape[d] == 0), IndexError, op, "(): Expected reduction dim ", d,
             " to have non-zero size.");
}


// Runs reduce kernel `op_id` on x into fresh outputs of the plan's kept
// shape (one per dtype in `out_dtypes`); returns them viewed as out_shape.
template <size_t N>
std::array<Tensor, N> run_reduce(int op_id, const Tensor& x, const Plan& p, const std::array<DType, N>& out_dtypes,
                                 const MFAttr* attr = nullptr) {
  std::array<Tensor, N> outs;
  for (size_t i = 0; i < N; ++i) outs[i] = empty(p.kept_shape, out_dtypes[i], x->device());
  LaunchArgs a{&op_def(op_id), x->dtype};
  a.inputs = &x;
  a.num_inputs = 1;
  a.outputs = outs.data();
  a.num_outputs = static_cast<int>(N);
  a.attrs = attr;
  a.num_attrs = attr ? 1 : 0;
  launch(a);
  for (auto& o : outs) o = make_view(o, p.out_shape, contiguous_strides(p.out_shape), 0);
  return outs;
}

Tensor run_reduce1(int op_id, const Tensor& x, const Plan& p, DType out_dtype, const MFAttr* attr = nullptr) {
  return run_reduce<1>(op_id, x, p, {out_dtype}, attr)[0];
}

void check_floating(const Tensor& x, const char* op, const char* what) {
  MF_CHECK(is_floating(x->dtype), RuntimeError, op, what, dtype_torch_name(x->dtype));
}
}  // namespace

Tensor sum(const Tensor& x, const Dims& dims, bool keepdim, std::optional<DType> dtype) {
  autograd::Recorder rec("sum", {x});
  Plan p = plan_reduce(x, dims, keepdim, "sum");
  Tensor xc = dtype ? cast(x, *dtype) : x;
  DType acc = output_dtype(op_def(kOp_sum), xc->dtype);
  Tensor result = run_reduce1(kOp_sum, xc, p, acc);
  if (dtype && *dtype != acc) result = cast(result, *dtype);
  if (rec)
    rec.finish({result}, [shape = x->shape, dims, keepdim](const autograd::TensorList& g, autograd::NeedsGrad) {
      return autograd::TensorList{expand(autograd::unsqueeze_reduced(g[0], shape, dims, keepdim), shape)};
    });
  return result;
}

Tensor mean(const Tensor& x, const Dims& dims, bool keepdim, std::optional<DType> dtype) {
  if (dtype)
    MF_CHECK(is_floating(*dtype), RuntimeError,
             "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex "
             "dtype. Got: ",
             dtype_torch_name(*dtype));
  else
    check_floating(x, "mean",
                   "(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
                   "Got: ");
  Plan p = plan_reduce(x, dims, keepdim, "mean");
  Tensor xc = dtype ? cast(x, *dtype) : x;
  return run_reduce1(kOp_mean, xc, p, xc->dtype);
}

Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
  Plan p = plan_reduce(x, dim ? Dims{*dim} : Dims{}, keepdim, "prod");
  Tensor xc = dtype ? cast(x, *dtype) : x;
  DType acc = output_dtype(op_def(kOp_prod), xc->dtype);
  Tensor result = run_reduce1(kOp_prod, xc, p, acc);
  if (dtype && *dtype != acc) result = cast(result, *dtype);
  return result;
}

namespace {
Tensor extremum(int op_id, const char* name, const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = plan_reduce(x, dims, keepdim, name);
  check_nonempty(x, p, name);
  return run_reduce1(op_id, x, p, x->dtype);
}

std::pair<Tensor, Tensor> extremum_dim(int op_id, const char* name, const Tensor& x, int64_t dim, bool keepdim) {
  Plan p = plan_reduce(x, Dims{dim}, keepdim, name);
  p.all_dims = false;
  check_nonempty(x, p, name);
  auto r = run_reduce<2>(op_id, x, p, {x->dtype, DType::Int64});
  return {r[0], r[1]};
}

Tensor arg_extremum(int op_id, const char* name, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  MF_CHECK(x->dtype != DType::Bool, RuntimeError, name, "(): does not support bool input");
  if (dim) {
    Plan p = plan_reduce(x, Dims{*dim}, keepdim, name);
    p.all_dims = false;
    check_nonempty(x, p, name);
    return run_reduce<2>(op_id, x, p, {x->dtype, DType::Int64})[1];
  }
  // The index into the flattened tensor: reduce x viewed as 1-D.
  MF_CHECK(x->numel() != 0, IndexError, name,
           "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor flat = reshape(x, Dims{x->numel()});
  Plan p = plan_reduce(flat, Dims{0}, false, name);
  Tensor idx = run_reduce<2>(op_id, flat, p, {x->dtype, DType::Int64})[1];
  if (!keepdim) return idx;
  Dims ones(static_cast<size_t>(x->dim()), 1);
  return make_view(idx, ones, contiguous_strides(ones), idx->offset);
}
}  // namespace

Tensor amax(const Tensor& x, const Dims& dims, bool keepdim) { return extremum(kOp_amax, "amax", x, dims, keepdim); }
Tensor amin(const Tensor& x, const Dims& dims, bool keepdim) { return extremum(kOp_amin, "amin", x, dims, keepdim); }
Tensor max_all(const Tensor& x) { return extremum(kOp_amax, "max", x, Dims{}, false); }
Tensor min_all(const Tensor& x) { return extremum(kOp_amin, "min", x, Dims{}, false); }

std::pair<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_dim(kOp_max, "max", x, dim, keepdim);
}
std::pair<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim) {
  return extremum_dim(kOp_min, "min", x, dim, keepdim);
}

Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(kOp_max, "argmax", x, dim, keepdim);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  return arg_extremum(kOp_min, "argmin", x, dim, keepdim);
}

namespace {
Tensor moment(int op_id, const char* name, const Tensor& x, const Dims& dims, double correction, bool keepdim) {
  check_floating(x, name, "(): std and var only support floating point and complex dtypes, got ");
  Plan p = plan_reduce(x, dims, keepdim, name);
  MFAttr attr = float_attr("correction", correction);
  return run_reduce1(op_id, x, p, x->dtype, &attr);
}
}  // namespace

Tensor var(const Tensor& x, const Dims& dims, double correction, bool keepdim) {
  return moment(kOp_var, "var", x, dims, correction, keepdim);
}
Tensor stddev(const Tensor& x, const Dims& dims, double correction, bool keepdim) {
  return moment(kOp_std, "std", x, dims, correction, keepdim);
}

Tensor vector_norm(const Tensor& x, double p, const Dims& dims, bool keepdim, std::optional<DType> dtype) {
  check_floating(x, "vector_norm", "(): Expected a floating point or complex tensor as input. Got ");
  if (dtype)
    MF_CHECK(is_floating(*dtype) && promote_types(x->dtype, *dtype) == *dtype, RuntimeError,
             "vector_norm(): the dtype of the input (", dtype_torch_name(x->dtype),
             ") should be convertible without narrowing to the specified dtype (", dtype_torch_name(*dtype), ")");
  MF_CHECK(!std::isnan(p), RuntimeError, "vector_norm(): the order p must not be NaN");
  Plan plan = plan_reduce(x, dims, keepdim, "vector_norm");
  // Orders whose reduction of nothing is not 0 (max |x|, or sums of |x|^p
  // with p < 0) have no identity, as in PyTorch.
  if ((std::isinf(p) || p < 0) && x->numel() == 0) {
    MF_CHECK(!plan.all_dims, RuntimeError, "vector_norm(): cannot compute the ", p,
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < x->dim(); ++d)
      MF_CHECK(!(plan.mask[d] && x->shape[d] == 0), RuntimeError, "vector_norm(): cannot compute the ", p,
               " norm on the dimension ", d, " because this dimension is empty and the operation does not have an "
               "identity");
  }
  Tensor xc = dtype ? cast(x, *dtype) : x;
  MFAttr attr = float_attr("p", p);
  return run_reduce1(kOp_vector_norm, xc, plan, xc->dtype, &attr);
}

Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = plan_reduce(x, dims, keepdim, "logsumexp");
  Tensor xc = cast(x, compute_dtype(op_def(kOp_logsumexp), x->dtype));
  return run_reduce1(kOp_logsumexp, xc, p, xc->dtype);
}

namespace {
Tensor all_any(int op_id, const char* name, const Tensor& x, const Dims& dims, bool keepdim) {
  Plan p = plan_reduce(x, dims, keepdim, name);
  Tensor r = run_reduce1(op_id, x, p, DType::Bool);
  return x->dtype == DType::UInt8 ? cast(r, DType::UInt8) : r;  // PyTorch keeps uint8
}
}  // namespace

Tensor all(const Tensor& x, const Dims& dims, bool keepdim) { return all_any(kOp_all, "all", x, dims, keepdim); }
Tensor any(const Tensor& x, const Dims& dims, bool keepdim) { return all_any(kOp_any, "any", x, dims, keepdim); }

}  // namespace monoflow
