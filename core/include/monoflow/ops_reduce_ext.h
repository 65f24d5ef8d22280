// The reduce family beyond `sum` (ops.h): reductions over dims, scans,
// softmax, sort and top-k, with PyTorch's semantics, dtypes and errors.
// Kernel conventions: docs/kernels/reduce.md.
#pragma once
#include <optional>
#include <utility>

#include "monoflow/ops.h"

namespace monoflow {

// ---- reductions over a set of dims (empty `dims` = all dims)
// Floating inputs only, unless `dtype` (floating) is given: x is cast to it first.
Tensor mean(const Tensor& x, const Dims& dims, bool keepdim, std::optional<DType> dtype);
// Integers and bool multiply into int64; `dim` empty: all dims.
Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype);
// Refuse empty reductions (no identity), propagate NaN.
Tensor amax(const Tensor& x, const Dims& dims, bool keepdim);
Tensor amin(const Tensor& x, const Dims& dims, bool keepdim);
Tensor max_all(const Tensor& x);  // max(x): a 0-dim tensor
Tensor min_all(const Tensor& x);
// max(x, dim): (values, indices), the index of the first maximum (or first NaN).
std::pair<Tensor, Tensor> max_dim(const Tensor& x, int64_t dim, bool keepdim);
std::pair<Tensor, Tensor> min_dim(const Tensor& x, int64_t dim, bool keepdim);
// `dim` empty: the index into the flattened tensor.
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim);
// Divides the sum of squared deviations by max(0, N - correction).
Tensor var(const Tensor& x, const Dims& dims, double correction, bool keepdim);
Tensor stddev(const Tensor& x, const Dims& dims, double correction, bool keepdim);
// linalg.vector_norm: (sum |x|^p)^(1/p); p = 0 counts non-zeros, +-inf is max/min |x|.
Tensor vector_norm(const Tensor& x, double p, const Dims& dims, bool keepdim, std::optional<DType> dtype);
// log(sum(exp(x))) without overflow; integers compute in the default float dtype.
Tensor logsumexp(const Tensor& x, const Dims& dims, bool keepdim);
// bool result (uint8 for uint8 input, as in PyTorch).
Tensor all(const Tensor& x, const Dims& dims, bool keepdim);
Tensor any(const Tensor& x, const Dims& dims, bool keepdim);

// ---- dim-wise ops (the result has x's shape, except topk's k)
Tensor cumsum(const Tensor& x, int64_t dim, std::optional<DType> dtype);
Tensor cumprod(const Tensor& x, int64_t dim, std::optional<DType> dtype);
// Floating inputs only, unless `dtype` (floating) is given.
Tensor softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<DType> dtype);
// (values, indices); NaN sorts as the largest value; always stable.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable);
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable);
// The k largest (smallest) along dim: (values, indices), sorted if `sorted`
// (and in that same order otherwise).
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted);

}  // namespace monoflow
