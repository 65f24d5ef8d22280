#include "monoflow/tensor.h"

#include <algorithm>
#include <vector>

#include "monoflow/autograd.h"
#include "monoflow/checked_arith.h"
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

int64_t checked_numel(const Dims& shape, const char* op) {
  for (int64_t s : shape)
    if (s == 0) return 0;
  int64_t n = 1;
  for (int64_t s : shape)
    MF_CHECK(!__builtin_mul_overflow(n, s, &n), RuntimeError, op, ": the shape ", shape_str(shape),
             " has more elements than an int64 can count");
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
  MF_CHECK(dim >= -n && dim < n, IndexError, op, ": Dimension out of range (expected to be in range of [", -n,
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
  if (numel() == 0) return false;  // nothing is written (numpy gives empty arrays zero strides), as torch
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1 && strides[i] == 0) return true;  // a broadcast dim
  if (is_contiguous()) return false;
  // Non-overlapping for sure when, dims sorted by |stride|, each stride steps
  // past everything the smaller ones reach (transposes, slices, most views).
  struct Dim {
    uint64_t stride, size;
  };
  SmallVector<Dim, 8> dims;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] > 1)
      dims.push_back({strides[i] < 0 ? 0 - static_cast<uint64_t>(strides[i]) : static_cast<uint64_t>(strides[i]),
                      static_cast<uint64_t>(shape[i])});
  std::sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  unsigned __int128 reach = 0;  // largest offset the dims so far address
  bool separated = true;
  for (const Dim& d : dims) {
    separated = separated && d.stride > reach;
    reach += static_cast<unsigned __int128>(d.size - 1) * d.stride;
  }
  if (separated) return false;
  // Otherwise (unfold with step < size, as_strided with interleaved or
  // repeated strides) decide exactly by listing the offsets, if few enough;
  // beyond that, as torch, an undecided layout is allowed.
  const int64_t n = numel();
  if (n > (int64_t{1} << 16)) return false;
  std::vector<int64_t> offsets(static_cast<size_t>(n));
  Dims index(shape.size(), 0);
  for (int64_t k = 0, off = 0; k < n; ++k) {
    offsets[static_cast<size_t>(k)] = off;
    for (size_t d = shape.size(); d-- > 0;) {  // next index, odometer order
      off += strides[d];
      if (++index[d] < shape[d]) break;
      off -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

void* TensorImpl::data_ptr() const {
  return static_cast<char*>(storage->data) + offset * static_cast<int64_t>(itemsize(dtype));
}

Tensor empty(const Dims& shape, DType dtype, Device device) {
  // The byte count is checked for overflow: a wrapped-around size would
  // allocate a small storage under a huge shape.
  MF_CHECK(shape.size() <= kMaxTensorDims, RuntimeError, "empty: a tensor has at most ", kMaxTensorDims,
           " dimensions, but got ", shape.size());
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
  t->inference = autograd::inference_mode_enabled();
  return t;
}

void TensorImpl::check_inference_write() const {
  MF_CHECK(autograd::inference_mode_enabled(), RuntimeError,
           "Inplace update to inference tensor outside InferenceMode is not allowed. Clone it first to get a "
           "normal tensor that can be updated in place.");
}

namespace {
// Every view must address only elements of its storage: this is the one
// place all view ops (and as_strided) pass through, so sizes, strides and
// offsets computed from user numbers are checked here, overflow included.
void check_view_in_bounds(const TensorImpl& base, const Dims& shape, const Dims& strides, int64_t offset) {
  MF_CHECK(shape.size() == strides.size(), RuntimeError, "view: ", shape.size(), " sizes but ", strides.size(),
           " strides");
  MF_CHECK(shape.size() <= kMaxTensorDims, RuntimeError, "view: a tensor has at most ", kMaxTensorDims,
           " dimensions, but got ", shape.size());
  bool empty = false;
  for (int64_t s : shape) {
    MF_CHECK(s >= 0, RuntimeError, "view: negative size ", s, " in shape ", shape_str(shape));
    empty = empty || s == 0;
  }
  if (empty) return;  // addresses nothing, whatever the strides and offset
  checked_numel(shape, "view");
  int64_t lo = offset, hi = offset;
  bool ok = true;
  for (size_t i = 0; i < shape.size() && ok; ++i) {
    int64_t span;
    ok = !__builtin_mul_overflow(shape[i] - 1, strides[i], &span);
    if (ok) ok = !__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi);
  }
  const int64_t capacity = static_cast<int64_t>(base.storage->nbytes / itemsize(base.dtype));
  MF_CHECK(ok && lo >= 0 && hi < capacity, RuntimeError, "view: sizes ", shape_str(shape), ", strides ",
           shape_str(strides), " and storage offset ", offset, " address memory outside the storage (",
           capacity, " elements)");
}
}  // namespace

Tensor make_view(const Tensor& base, Dims shape, Dims strides, int64_t offset, const char* grad_name) {
  check_local(base, "view");
  check_view_in_bounds(*base, shape, strides, offset);
  auto t = std::make_shared<TensorImpl>();
  t->storage = base->storage;
  t->shape = std::move(shape);
  t->strides = std::move(strides);
  t->offset = offset;
  t->dtype = base->dtype;
  t->inference = base->inference;
  t->view_base = base->view_base ? base->view_base : base;
  autograd::record_view(base, t, grad_name);
  return t;
}

}  // namespace monoflow
