// The shape ops (PyTorch semantics and errors): joining and splitting,
// reordering, gathering and scattering through index tensors, masks, padding.
// Advanced indexing (tensor[...] with index tensors) is in indexing.h.
#pragma once
#include <optional>
#include <vector>

#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

// Joining and splitting. cat promotes the inputs' dtypes and skips 1-D empty
// inputs (shape [0]) as PyTorch does; split/chunk return views.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& t, const Dims& sizes, int64_t dim);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
// The slices along `dim` (select views), recorded as one node.
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);

// Reordering and repeating (new tensors).
Tensor flip(const Tensor& t, const Dims& dims);
// Empty `dims`: rolls the flattened tensor by shifts[0].
Tensor roll(const Tensor& t, const Dims& shifts, const Dims& dims);
Tensor repeat(const Tensor& t, const Dims& repeats);
Tensor tile(const Tensor& t, const Dims& reps);
Tensor tril(const Tensor& t, int64_t diagonal);
Tensor triu(const Tensor& t, int64_t diagonal);
void tril_(const Tensor& t, int64_t diagonal);
void triu_(const Tensor& t, int64_t diagonal);

// Gathering and scattering along a dim (index: int64 or int32).
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
// scatter: src a tensor of self's dtype, or (src null) the number `value`.
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Scalar value = {});
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Scalar value = {});
void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// num_classes -1: one more than the largest class value.
Tensor one_hot(const Tensor& x, int64_t num_classes);

// The backward ops of gather and index_select (differentiable themselves):
// a zero tensor of `shape` with `src` accumulated at `index` along `dim`
// (index_add into zeros / scatter_add into zeros). The indices are trusted:
// they were checked by the forward op.
Tensor index_select_backward(const Dims& shape, int64_t dim, const Tensor& index, const Tensor& src);
Tensor gather_backward(const Dims& shape, int64_t dim, const Tensor& index, const Tensor& src);

// Masks. `value` of masked_fill: a number, or (value_tensor non-null) a
// 0-dim tensor whose value is read (synchronising).
Tensor masked_fill(const Tensor& x, const Tensor& mask, Scalar value, const Tensor& value_tensor = nullptr);
void masked_fill_(const Tensor& self, const Tensor& mask, Scalar value, const Tensor& value_tensor = nullptr);
Tensor masked_select(const Tensor& x, const Tensor& mask);
// The indices of the non-zero elements, [n, ndim] int64 (synchronises: the
// size of the result depends on the data).
Tensor nonzero(const Tensor& x);
std::vector<Tensor> nonzero_tuple(const Tensor& x);  // one 1-D tensor per dim

// torch.nn.functional.pad: `pad` lists (left, right) pairs from the last dim
// backwards. Constant mode takes any even length (negative pads crop);
// reflect and replicate pad the last 1-3 dims of a tensor with 1 or 2 more.
enum class PadMode { Constant, Reflect, Replicate };
Tensor pad(const Tensor& x, const Dims& pad, PadMode mode, std::optional<Scalar> value);

}  // namespace monoflow
