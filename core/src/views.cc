// View ops: new shape/strides/offset over the same storage, no kernel.
#include <algorithm>
#include <optional>

#include "monoflow/autograd.h"
#include "monoflow/checked_arith.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"

namespace monoflow {

Dims infer_view_shape(const Dims& shape, int64_t numel, const char* op) {
  Dims out = shape;
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      MF_CHECK(infer < 0, RuntimeError, op, ": only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else {
      // (OneFlow's capital I; torch's "at index" detail)
      MF_CHECK(out[i] >= 0, RuntimeError, op, ": Invalid shape dimension ", out[i], " at index ", i, " of shape ",
               shape_str(shape));
      MF_CHECK(!__builtin_mul_overflow(known, out[i], &known), RuntimeError, op, ": shape '", shape_str(shape),
               "' is invalid for input of size ", numel);
    }
  }
  if (infer >= 0) {
    MF_CHECK(known != 0 && numel % known == 0, RuntimeError, op, ": shape '", shape_str(shape),
             "' is invalid for input of size ", numel);
    out[infer] = numel / known;
  }
  MF_CHECK(shape_numel(out) == numel, RuntimeError, op, ": shape '", shape_str(shape),
           "' is invalid for input of size ", numel);
  return out;
}

namespace {
// Strides for viewing (shape, strides) as new_shape without a copy, if any:
// each run of dims that is contiguous in memory may be re-split freely.
std::optional<Dims> view_strides(Dims old_shape, Dims old_strides, const Dims& new_shape) {
  // (PyTorch's computeStride: an empty tensor viewed as its own shape keeps
  // its strides, otherwise any empty or 0-dim tensor views as contiguous)
  if (shape_numel(old_shape) == 0 && old_shape == new_shape) return old_strides;
  if (shape_numel(old_shape) == 0 || old_shape.empty()) return contiguous_strides(new_shape);
  Dims out(new_shape.size());
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    if (d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}
}  // namespace

Tensor view(const Tensor& t, const Dims& shape) {
  Dims s = infer_view_shape(shape, t->numel(), "view");
  auto strides = view_strides(t->shape, t->strides, s);
  MF_CHECK(strides, RuntimeError,
           "view: view size is not compatible with input tensor's size and stride (at least one dimension spans "
           "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(t, s, *strides, t->offset);
}

Tensor reshape(const Tensor& t, const Dims& shape) {
  Dims s = infer_view_shape(shape, t->numel(), "reshape");
  if (auto strides = view_strides(t->shape, t->strides, s)) return make_view(t, s, *strides, t->offset);
  Tensor c = clone(t);
  return make_view(c, s, contiguous_strides(s), 0);
}

Tensor transpose(const Tensor& t, int64_t d0, int64_t d1) {
  int64_t nd = t->dim();
  d0 = wrap_dim(d0, nd, "transpose");
  d1 = wrap_dim(d1, nd, "transpose");
  if (nd == 0) return make_view(t, t->shape, t->strides, t->offset);
  Dims shape = t->shape, strides = t->strides;
  std::swap(shape[d0], shape[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(t, shape, strides, t->offset, "TransposeBackward0");
}

Tensor permute(const Tensor& t, const Dims& dims) {
  int64_t nd = t->dim();
  MF_CHECK(static_cast<int64_t>(dims.size()) == nd, RuntimeError, "permute: number of dims don't match (got ",
           dims.size(), " for a tensor of dimension ", nd, ")");
  Dims shape(nd), strides(nd);
  SmallVector<bool, 8> seen(static_cast<size_t>(nd), false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd, "permute");
    MF_CHECK(!seen[d], RuntimeError, "permute: repeated dim ", d);
    seen[d] = true;
    shape[i] = t->shape[d];
    strides[i] = t->strides[d];
  }
  return make_view(t, shape, strides, t->offset, "PermuteBackward0");
}

Tensor expand(const Tensor& t, const Dims& shape) {
  if (shape == t->shape) return t;
  autograd::Recorder rec("expand", {t});
  int64_t nd = static_cast<int64_t>(shape.size()), td = t->dim();
  MF_CHECK(nd >= td, RuntimeError, "expand: the number of sizes provided (", nd,
           ") must be greater or equal to the number of dimensions in the tensor (", td, ")");
  Dims out_shape(nd), out_strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t j = i - (nd - td);
    int64_t want = shape[i];
    if (j < 0) {
      MF_CHECK(want >= 0, RuntimeError, "expand: The expanded size of the tensor (", want,
               ") isn't allowed in a leading, non-existing dimension ", i);
      out_shape[i] = want;
      // (torch's strides: a new size-1 dim gets the stride a contiguous
      // layout would give it; a broadcast one 0)
      // (wrapping: an overflowing shape is refused by make_view's numel check)
      out_strides[i] = want == 1 && i + 1 < nd ? wrapping_mul(out_shape[i + 1], out_strides[i + 1]) : 0;
      continue;
    }
    int64_t have = t->shape[j];
    if (want == -1) want = have;
    MF_CHECK(want >= 0, RuntimeError, "expand: invalid size ", want, " at dimension ", i, " (sizes must be >= 0 or -1)");
    MF_CHECK(have == want || have == 1, RuntimeError, "expand: The expanded size of the tensor (", want,
             ") must match the existing size (", have, ") at non-singleton dimension ", i, ".  Target sizes: ",
             shape_str(shape), ".  Tensor sizes: ", shape_str(t->shape));
    out_shape[i] = want;
    out_strides[i] = have == want ? t->strides[j] : 0;
  }
  checked_numel(out_shape, "expand");
  Tensor out = make_view(t, out_shape, out_strides, t->offset, "ExpandBackward0");
  if (rec)  // the engine sums the broadcast dims away
    rec.finish({out}, [](const autograd::TensorList& g, autograd::NeedsGrad) { return g; });
  return out;
}

Tensor squeeze(const Tensor& t, std::optional<int64_t> dim) {
  Dims shape, strides;
  int64_t only = dim ? wrap_dim(*dim, t->dim(), "squeeze") : -1;
  for (int64_t i = 0; i < t->dim(); ++i) {
    bool drop = t->shape[i] == 1 && (!dim || i == only);
    if (!drop) {
      shape.push_back(t->shape[i]);
      strides.push_back(t->strides[i]);
    }
  }
  return make_view(t, shape, strides, t->offset, dim ? "SqueezeBackward1" : "SqueezeBackward0");
}

Tensor unsqueeze(const Tensor& t, int64_t dim) {
  int64_t d = wrap_dim(dim, t->dim() + 1, "unsqueeze");
  Dims shape = t->shape, strides = t->strides;
  int64_t stride = d < t->dim() ? t->shape[d] * t->strides[d] : 1;
  shape.insert(d, 1);
  strides.insert(d, stride);
  return make_view(t, shape, strides, t->offset, "UnsqueezeBackward0");
}

namespace {
// The stride of a dim of `len` elements taken every `step` of `stride`, as
// torch (stride * step). Only a dim of at most one element may have a step
// whose product overflows (it steps past the end): its stride is never used
// to address memory, so it keeps `stride`. (The product must fit in bytes
// too, as numpy's and DLPack's strides are.)
int64_t step_stride(int64_t stride, int64_t step, int64_t len, const char* op) {
  int64_t out, bytes;
  if (!__builtin_mul_overflow(stride, step, &out) && !__builtin_mul_overflow(out, int64_t{16}, &bytes)) return out;
  MF_CHECK(len <= 1, RuntimeError, op, ": integer multiplication overflow (stride ", stride, " * step ", step, ")");
  return stride;
}
}  // namespace

Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step) {
  MF_CHECK(t->dim() > 0, IndexError, "slice: cannot slice a 0-dim tensor");
  int64_t d = wrap_dim(dim, t->dim(), "slice");
  MF_CHECK(step > 0, ValueRuntimeError, "slice: Step must be greater than zero");
  int64_t size = t->shape[d];
  auto clampi = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  int64_t s = start ? clampi(*start) : 0;
  int64_t e = stop ? clampi(*stop) : size;
  int64_t len = e > s ? (e - s + step - 1) / step : 0;
  Dims shape = t->shape, strides = t->strides;
  shape[d] = len;
  strides[d] = step_stride(t->strides[d], step, len, "slice");
  // (only an empty slice, one past the end of a size-1 dim with a huge
  // stride, can overflow here; it addresses nothing and keeps the offset)
  int64_t offset;
  if (__builtin_mul_overflow(s, t->strides[d], &offset) || __builtin_add_overflow(offset, t->offset, &offset))
    offset = t->offset;
  return make_view(t, shape, strides, offset, "SliceBackward0");
}

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  MF_CHECK(t->dim() > 0, RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, t->dim(), "narrow");
  int64_t size = t->shape[d];
  // torch's range, OneFlow's "Dimension out of range" (it checks start as it checks a dim)
  MF_CHECK(start >= -size && start <= size, IndexError, "narrow: start (", start, ") is out of bounds for dimension ",
           d, " of size ", size, ": Dimension out of range (expected to be in range of [", -size, ", ", size,
           "], but got ", start, ")");
  if (start < 0) start += size;
  MF_CHECK(length >= 0 && length <= size - start, RuntimeError, "narrow: start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ")");
  return slice(t, d, start, start + length, 1);
}

Tensor select(const Tensor& t, int64_t dim, int64_t index) {
  MF_CHECK(t->dim() > 0, IndexError, "select: invalid index of a 0-dim tensor");
  int64_t d = wrap_dim(dim, t->dim(), "select");
  int64_t size = t->shape[d];
  MF_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ", d,
           " with size ", size, " (Index out of range (expected to be in range of [", -size, ", ", size - 1,
           "], but got ", index, "))");  // torch's wording, then OneFlow's
  if (index < 0) index += size;
  Dims shape = t->shape, strides = t->strides;
  shape.erase(d);
  strides.erase(d);
  return make_view(t, shape, strides, t->offset + index * t->strides[d], "SelectBackward0");
}

Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step) {
  int64_t d = wrap_dim(dim, t->dim(), "unfold");
  int64_t len = t->dim() ? t->shape[d] : 1;
  int64_t st = t->dim() ? t->strides[d] : 1;
  MF_CHECK(size >= 0 && size <= len, RuntimeError, "unfold: maximum size for tensor at dimension ", d, " is ", len,
           " but size is ", size);
  MF_CHECK(step > 0, RuntimeError, "unfold: step is ", step, " but must be > 0");
  Dims shape = t->shape, strides = t->strides;
  if (t->dim()) {
    shape[d] = (len - size) / step + 1;
    strides[d] = step_stride(st, step, shape[d], "unfold");
  }
  shape.push_back(size);
  strides.push_back(st);
  return make_view(t, shape, strides, t->offset, "UnfoldBackward0");
}

Tensor flatten(const Tensor& t, int64_t start, int64_t end) {
  if (t->dim() == 0) return reshape(t, Dims{1});
  int64_t s = wrap_dim(start, t->dim(), "flatten"), e = wrap_dim(end, t->dim(), "flatten");
  MF_CHECK(s <= e, RuntimeError, "flatten: start_dim cannot come after end_dim");
  if (s == e) return make_view(t, t->shape, t->strides, t->offset);  // as torch: the strides stay as they are
  Dims shape;
  for (int64_t i = 0; i < s; ++i) shape.push_back(t->shape[i]);
  int64_t n = 1;
  for (int64_t i = s; i <= e; ++i) n *= t->shape[i];
  shape.push_back(n);
  for (int64_t i = e + 1; i < t->dim(); ++i) shape.push_back(t->shape[i]);
  return reshape(t, shape);
}

Tensor as_strided(const Tensor& t, const Dims& shape, const Dims& strides, int64_t offset) {
  MF_CHECK(shape.size() == strides.size(), RuntimeError, "as_strided: mismatch in length of strides and shape");
  int64_t hi = offset;
  bool overflow = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    MF_CHECK(shape[i] >= 0 && strides[i] >= 0, RuntimeError, "as_strided: negative size or stride");
    if (shape[i] == 0) hi = -1;
    int64_t span;
    if (hi >= 0 && !overflow)
      overflow = __builtin_mul_overflow(shape[i] - 1, strides[i], &span) || __builtin_add_overflow(hi, span, &hi);
  }
  int64_t capacity = static_cast<int64_t>(t->storage->nbytes / itemsize(t->dtype));
  MF_CHECK(offset >= 0 && !overflow && hi < capacity, RuntimeError, "as_strided: setStorage: sizes ",
           shape_str(shape), ", strides ", shape_str(strides), " and storage offset ", offset,
           " require more memory than the storage holds (", capacity, " elements)");
  return make_view(t, shape, strides, offset, "AsStridedBackward0");
}

}  // namespace monoflow
