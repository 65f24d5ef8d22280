#include "monoflow/tensor.h"

#include "monoflow/autograd.h"
#include "monoflow/error.h"
#include "monoflow/global_shard.h"

namespace monoflow {

int64_t shape_numel(const Dims& shape) {
  for (int64_t s : shape)
    if (s == 0) return 0;  // before multiplying: the other sizes may overflow together
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Dims contiguous_strides(const Dims& shape) {
  Dims strides(shape.size());
  // Unsigned: only a zero-size tensor can have sizes whose product overflows
  // (empty() checks the rest), and its strides are never used to address memory.
  uint64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(acc);
    acc *= static_cast<uint64_t>(std::max<int64_t>(shape[i], 1));
  }
  return strides;
}

std::string shape_str(const Dims& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-dim tensor accepts dim 0 and -1
  MF_CHECK(dim >= -n && dim < n, IndexError, op, ": dimension out of range (expected to be in range of [", -n,
           ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

int64_t TensorImpl::numel() const { return shape_numel(shape); }

bool TensorImpl::is_contiguous() const {
  for (int64_t s : shape)
    if (s == 0) return true;  // an empty tensor is contiguous whatever its strides (as in torch)
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

bool TensorImpl::has_internal_overlap() const {
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1 && strides[i] == 0) return true;
  return false;
}

void* TensorImpl::data_ptr() const {
  return static_cast<char*>(storage->data) + offset * static_cast<int64_t>(itemsize(dtype));
}

Tensor empty(const Dims& shape, DType dtype, Device device) {
  // The byte count is checked for overflow: a wrapped-around size would
  // allocate a small storage under a huge shape.
  bool zero_size = false;
  for (int64_t s : shape) {
    MF_CHECK(s >= 0, RuntimeError, "empty: negative dimension ", s, " in shape ", shape_str(shape));
    zero_size = zero_size || s == 0;
  }
  int64_t nbytes = zero_size ? 0 : static_cast<int64_t>(itemsize(dtype));
  for (size_t i = 0; i < shape.size() && !zero_size; ++i)
    MF_CHECK(!__builtin_mul_overflow(nbytes, shape[i], &nbytes), RuntimeError, "empty: a tensor of shape ",
             shape_str(shape), " and dtype ", dtype_name(dtype), " would need more than 2^63 bytes");
  auto t = std::make_shared<TensorImpl>();
  t->storage = Storage::allocate(device, static_cast<size_t>(nbytes));
  t->shape = shape;
  t->strides = contiguous_strides(shape);
  t->dtype = dtype;
  return t;
}

Tensor make_view(const Tensor& base, Dims shape, Dims strides, int64_t offset) {
  check_local(base, "view");
  auto t = std::make_shared<TensorImpl>();
  t->storage = base->storage;
  t->shape = std::move(shape);
  t->strides = std::move(strides);
  t->offset = offset;
  t->dtype = base->dtype;
  t->view_base = base->view_base ? base->view_base : base;
  autograd::record_view(base, t);
  return t;
}

}  // namespace monoflow
