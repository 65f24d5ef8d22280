#include "monoflow/tensor.h"

#include "monoflow/error.h"

namespace monoflow {

int64_t shape_numel(const Dims& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Dims contiguous_strides(const Dims& shape) {
  Dims strides(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
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
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (shape[i] == 0) return true;
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
  for (int64_t s : shape) MF_CHECK(s >= 0, RuntimeError, "empty: negative dimension ", s, " in shape ", shape_str(shape));
  auto t = std::make_shared<TensorImpl>();
  t->storage = Storage::allocate(device, static_cast<size_t>(shape_numel(shape)) * itemsize(dtype));
  t->shape = shape;
  t->strides = contiguous_strides(shape);
  t->dtype = dtype;
  return t;
}

Tensor make_view(const Tensor& base, Dims shape, Dims strides, int64_t offset) {
  auto t = std::make_shared<TensorImpl>();
  t->storage = base->storage;
  t->shape = std::move(shape);
  t->strides = std::move(strides);
  t->offset = offset;
  t->dtype = base->dtype;
  return t;
}

}  // namespace monoflow
