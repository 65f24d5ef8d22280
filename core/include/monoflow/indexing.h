// Indexing: tensor[...] and tensor[...] = value, exactly as in PyTorch.
//
// Note [Advanced indexing]
//   Basic items (ints, slices, None, Ellipsis) give views and are applied
//   first, left to right (an int selects, so it is *not* an advanced index,
//   unlike numpy). Index tensors (integer indices, or bool masks, which stand
//   for the index tensors nonzero() gives, one per dim they cover) then index
//   dims of that view: they broadcast together to a shape B, and the result
//   has B in place of the indexed dims when those are adjacent, else B first
//   followed by the other dims (the transposition rule). A Python bool or a
//   0-dim bool tensor inserts a dim of size 1 and masks it.
//
//   All advanced reads and writes (and gather, index_select, scatter) run on
//   two kernels, `index` and `index_put`, which take the data operand
//   restrided to the result's shape (stride 0 on the dims that come from the
//   indices) with the indexed dims appended, and one int64 operand
//   I[..., k] holding the k indices of each result element
//   (docs/kernels/shape.md).
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "monoflow/scalar.h"
#include "monoflow/tensor.h"

namespace monoflow {

struct IndexItem {
  enum Kind { Int, Slice, None, Ellipsis, TensorIndex, Bool } kind = Int;
  int64_t index = 0;                            // Int; Bool: 0 or 1
  std::optional<int64_t> start, stop;           // Slice
  int64_t step = 1;                             // Slice
  Tensor tensor;                                // TensorIndex: int64/int32 indices or a bool/uint8 mask
};
IndexItem index_item_tensor(const Tensor& t);
IndexItem index_item_bool(bool v);

// Basic items only: a view.
Tensor index_basic(const Tensor& t, const std::vector<IndexItem>& items);
// Any items: a view when all are basic, else a new tensor.
Tensor index(const Tensor& t, const std::vector<IndexItem>& items);
// t[items] = values (values broadcast to the indexed shape after leading
// size-1 dims are dropped; basic-only targets cast like copy_, advanced ones
// need values of t's dtype, as in PyTorch).
void index_put_(const Tensor& t, const std::vector<IndexItem>& items, const Tensor& values, bool accumulate);
void index_put_scalar_(const Tensor& t, const std::vector<IndexItem>& items, Scalar value);
// Tensor.index_put_(indices, values, accumulate): one index tensor per
// leading dim; values broadcast to the indexed shape.
void index_put_tensors_(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values,
                        bool accumulate);

// ---- machinery shared by the shape ops (gather, scatter, masks, pad)

// Smallest and largest element of an integer tensor (0, -1 when empty), read
// on the host: synchronises the tensor's device.
std::pair<int64_t, int64_t> index_min_max(const Tensor& index);
// IndexError "<op>: index i is out of bounds for dimension <dim> with size
// <size>" unless every index is in [0, size) (or [-size, size) when
// allow_negative).
void check_index_bounds(const Tensor& index, int64_t size, bool allow_negative, const char* op, int64_t dim);
// The int64 version of an int64/int32 index tensor (a copy only for int32).
Tensor as_int64_index(const Tensor& index);
// A 0-dim tensor of `dtype` holding `value`; RuntimeError naming `op` when
// the dtype cannot hold it (as fill_ refuses it).
Tensor checked_scalar_tensor(Scalar value, DType dtype, Device device, const char* op);
// out[p] = x[p, I[p, 0..k)]: x has out's dims plus k indexed dims, I out's
// dims plus one of size k (see Note [Advanced indexing]).
void launch_index(const Tensor& out, const Tensor& x, const Tensor& I);
// self[p, I[p, 0..k)] = values[p] (or += when accumulate); self has values'
// dims plus k indexed dims.
void launch_index_put(const Tensor& self, const Tensor& values, const Tensor& I, bool accumulate);

}  // namespace monoflow
