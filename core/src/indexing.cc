// tensor[...] and tensor[...] = value (Note [Advanced indexing] in indexing.h),
// and the index/index_put launch helpers the gather/scatter ops share.
#include "monoflow/indexing.h"

#include <algorithm>
#include <limits>

#include "monoflow/autograd.h"
#include "monoflow/backend.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

IndexItem index_item_tensor(const Tensor& t) {
  IndexItem it{};
  it.kind = IndexItem::TensorIndex;
  it.tensor = t;
  return it;
}

IndexItem index_item_bool(bool v) {
  IndexItem it{};
  it.kind = IndexItem::Bool;
  it.index = v ? 1 : 0;
  return it;
}

// ------------------------------------------------------------ machinery

namespace {
// Smallest and largest element of a strided integer array in host memory,
// a row at a time: dims that repeat values (stride 0) are skipped and
// contiguous neighbours merged, so a contiguous array is one vectorised loop.
template <class T>
std::pair<int64_t, int64_t> min_max_of(const char* base, const Dims& shape, const Dims& strides) {
  Dims sh, st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1 || strides[d] == 0) continue;
    if (!sh.empty() && st.back() == strides[d] * shape[d]) {
      sh.back() *= shape[d];
      st.back() = strides[d];
    } else {
      sh.push_back(shape[d]);
      st.push_back(strides[d]);
    }
  }
  if (sh.empty()) sh.push_back(1), st.push_back(1);
  const T* p = reinterpret_cast<const T*>(base);
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  const size_t last = sh.size() - 1;
  const int64_t n = sh[last], step = st[last];
  SmallVector<int64_t, 8> idx(sh.size(), 0);
  for (;;) {
    const T* row = p;
    for (size_t d = 0; d < last; ++d) row += idx[d] * st[d];
    if (step == 1) {  // four independent min/max chains
      T l[4] = {lo, lo, lo, lo}, h[4] = {hi, hi, hi, hi};
      int64_t i = 0;
      for (; i + 4 <= n; i += 4)
        for (int j = 0; j < 4; ++j) {
          l[j] = row[i + j] < l[j] ? row[i + j] : l[j];
          h[j] = row[i + j] > h[j] ? row[i + j] : h[j];
        }
      for (; i < n; ++i) {
        l[0] = row[i] < l[0] ? row[i] : l[0];
        h[0] = row[i] > h[0] ? row[i] : h[0];
      }
      for (int j = 0; j < 4; ++j) {
        lo = l[j] < lo ? l[j] : lo;
        hi = h[j] > hi ? h[j] : hi;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        lo = row[i * step] < lo ? row[i * step] : lo;
        hi = row[i * step] > hi ? row[i * step] : hi;
      }
    }
    size_t d = last;
    for (;;) {
      if (d == 0) return {static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
      --d;
      if (++idx[d] < sh[d]) break;
      idx[d] = 0;
    }
  }
}
}  // namespace

std::pair<int64_t, int64_t> index_min_max(const Tensor& index) {
  if (index->numel() == 0) return {0, -1};
  MF_CHECK(is_integral(index->dtype, false), RuntimeError, "index_min_max: expected an integer tensor");
  Backend& be = DeviceRegistry::get().backend(index->device());
  if (be.no_data()) return {0, -1};  // no values to check (Note [The meta device])
  std::vector<char> staging;
  const char* base;
  Dims strides = index->strides;
  if (be.host_memory()) {
    be.synchronize(index->device().index);
    base = static_cast<const char*>(index->data_ptr());
  } else {  // copy the indices to the host (contiguous)
    staging.resize(static_cast<size_t>(index->numel()) * itemsize(index->dtype));
    copy_to_host(index, staging.data());
    base = staging.data();
    strides = contiguous_strides(index->shape);
  }
  switch (index->dtype) {
    case DType::UInt8: return min_max_of<uint8_t>(base, index->shape, strides);
    case DType::Int8: return min_max_of<int8_t>(base, index->shape, strides);
    case DType::Int16: return min_max_of<int16_t>(base, index->shape, strides);
    case DType::Int32: return min_max_of<int32_t>(base, index->shape, strides);
    default: return min_max_of<int64_t>(base, index->shape, strides);
  }
}

void check_index_bounds(const Tensor& index, int64_t size, bool allow_negative, const char* op, int64_t dim) {
  auto [lo, hi] = index_min_max(index);
  if (lo > hi) return;  // no indices
  const int64_t min_ok = allow_negative ? -size : 0;
  if (lo < min_ok) throw IndexError(str_cat(op, ": index ", lo, " is out of bounds for dimension ", dim, " with size ", size));
  if (hi >= size) throw IndexError(str_cat(op, ": index ", hi, " is out of bounds for dimension ", dim, " with size ", size));
}

Tensor as_int64_index(const Tensor& index) {
  return index->dtype == DType::Int64 ? index : to(index, index->device(), DType::Int64, false);
}

void launch_index(const Tensor& out, const Tensor& x, const Tensor& I) {
  launch(kOp_index, x->dtype, {x, I}, out);
}

void launch_index_put(const Tensor& self, const Tensor& values, const Tensor& I, bool accumulate) {
  launch(kOp_index_put, self->dtype, {values, I}, self, {int_attr("accumulate", accumulate ? 1 : 0)});
}

Tensor checked_scalar_tensor(Scalar value, DType dtype, Device device, const char* op) {
  try {
    return full(Dims{}, value, dtype, device);
  } catch (const RuntimeError& e) {
    std::string msg = e.what();
    const std::string prefix = "fill_: ";
    if (msg.compare(0, prefix.size(), prefix) != 0) throw;
    throw RuntimeError(str_cat(op, ": ", msg.substr(prefix.size())));
  }
}

// ------------------------------------------------------------ indexing

namespace {

bool is_mask(DType d) { return d == DType::Bool || d == DType::UInt8; }

// The view after the basic items, and the int64 index tensors of its
// indexed dims (in increasing dim order; masks already expanded).
struct Advanced {
  Tensor view;
  std::vector<int64_t> dims;
  std::vector<Tensor> indices;
};

Advanced apply_items(const Tensor& t, const std::vector<IndexItem>& items) {
  const Device dev = t->device();
  int64_t consumed = 0, ellipses = 0;
  for (const auto& it : items) {
    switch (it.kind) {
      case IndexItem::Int:
      case IndexItem::Slice: ++consumed; break;
      case IndexItem::Ellipsis: ++ellipses; break;
      case IndexItem::TensorIndex: {
        DType d = it.tensor->dtype;
        MF_CHECK(d == DType::Int64 || d == DType::Int32 || is_mask(d), IndexError,
                 "indexing: tensors used as indices must be long, int, byte or bool tensors (got ", dtype_name(d), ")");
        consumed += is_mask(d) ? it.tensor->dim() : 1;
        break;
      }
      default: break;
    }
  }
  MF_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  if (consumed > t->dim() && t->dim() == 0) {
    // An int on a 0-dim tensor: PyTorch's IndexError, OneFlow's RuntimeError
    // (Note [Errors OneFlow raises as RuntimeError] in monoflow/error.h).
    for (const auto& it : items)
      MF_CHECK(it.kind != IndexItem::Int, IndexRuntimeError,
               "indexing: select() cannot be applied to a 0-dim tensor. Use tensor.item() to read its value");
  }
  MF_CHECK(consumed <= t->dim(), IndexError, "indexing: Too many indices for tensor of dimension ", t->dim());
  Advanced adv;
  Tensor r = t;
  int64_t dim = 0, orig_dim = 0;
  auto on_device = [&](const Tensor& x) { return x->device() == dev ? x : to(x, dev, x->dtype, false); };
  // A true scalar mask selects the one element of a new size-1 dim, a false one none.
  auto scalar_mask = [&](bool v) {
    r = unsqueeze(r, dim);
    adv.dims.push_back(dim);
    adv.indices.push_back(v ? full(Dims{1}, Scalar::from_int(0), DType::Int64, dev) : empty(Dims{0}, DType::Int64, dev));
    ++dim;
  };
  for (const auto& it : items) {
    switch (it.kind) {
      case IndexItem::Int: {
        int64_t size = r->shape[dim];
        // torch's wording, then OneFlow's
        MF_CHECK(it.index >= -size && it.index < size, IndexError, "index ", it.index,
                 " is out of bounds for dimension ", orig_dim, " with size ", size,
                 " (Index out of range (expected to be in range of [", -size, ", ", size - 1, "], but got ", it.index,
                 "))");
        r = select(r, dim, it.index);
        ++orig_dim;
        break;
      }
      case IndexItem::Slice:
        r = slice(r, dim, it.start, it.stop, it.step);
        ++dim, ++orig_dim;
        break;
      case IndexItem::None:
        r = unsqueeze(r, dim);
        ++dim;
        break;
      case IndexItem::Ellipsis:
        dim += t->dim() - consumed;
        orig_dim += t->dim() - consumed;
        break;
      case IndexItem::Bool:
        scalar_mask(it.index != 0);
        break;
      case IndexItem::TensorIndex: {
        const Tensor& x = it.tensor;
        if (!is_mask(x->dtype)) {
          adv.dims.push_back(dim);
          adv.indices.push_back(on_device(as_int64_index(x)));
          ++dim, ++orig_dim;
        } else if (x->dim() == 0) {
          scalar_mask(item(x).i != 0);
        } else {
          for (int64_t j = 0; j < x->dim(); ++j)
            MF_CHECK(x->shape[j] == r->shape[dim + j], IndexError, "The shape of the mask ", shape_str(x->shape),
                     " at index ", j, " does not match the shape of the indexed tensor ", shape_str(r->shape),
                     " at index ", dim + j);
          Tensor nz = nonzero(on_device(x));  // [n, k]: one index tensor per masked dim
          for (int64_t j = 0; j < x->dim(); ++j) {
            adv.dims.push_back(dim + j);
            adv.indices.push_back(select(nz, 1, j));
          }
          dim += x->dim();
          orig_dim += x->dim();
        }
        break;
      }
    }
  }
  adv.view = r == t ? make_view(t, t->shape, t->strides, t->offset) : r;
  return adv;
}

// The operands of the index kernels for an advanced index (see Note
// [Advanced indexing]): the result's shape, the data view restrided to it
// with the indexed dims appended, and I[..., k].
struct Plan {
  Dims shape;
  Tensor data;
  Tensor I;
};

// `check_bounds` false: the indices are known to be valid (a backward pass
// re-using the forward's), so no host pass over them.
Plan plan_advanced(const Advanced& adv, const char* op, bool check_bounds) {
  const Tensor& v = adv.view;
  const size_t k = adv.indices.size();
  // The index tensors broadcast together (IndexError, as in PyTorch).
  Dims B = adv.indices[0]->shape;
  for (size_t j = 1; j < k; ++j) {
    const Dims& s = adv.indices[j]->shape;
    size_t n = std::max(B.size(), s.size());
    Dims out(n);
    bool ok = true;
    for (size_t i = 0; i < n; ++i) {
      int64_t a = i < n - B.size() ? 1 : B[i - (n - B.size())];
      int64_t b = i < n - s.size() ? 1 : s[i - (n - s.size())];
      ok = ok && (a == b || a == 1 || b == 1);
      out[i] = a == 1 ? b : a;
    }
    if (!ok) {
      std::string shapes;
      for (size_t i = 0; i < k; ++i) shapes += (i ? ", " : "") + shape_str(adv.indices[i]->shape);
      throw IndexError(str_cat(op, ": shape mismatch: indexing tensors could not be broadcast together with shapes ",
                               shapes));
    }
    B = out;
  }

  // I as [*B, k]: a view for one index tensor, else the broadcast indices stacked.
  Tensor Ib;
  if (k == 1) {
    Ib = unsqueeze(expand(adv.indices[0], B), static_cast<int64_t>(B.size()));
  } else {
    std::vector<Tensor> parts;
    for (const Tensor& idx : adv.indices) parts.push_back(expand(idx, B));
    Ib = stack(parts, static_cast<int64_t>(B.size()));
  }
  bool adjacent = true;
  for (size_t j = 1; j < k; ++j) adjacent = adjacent && adv.dims[j] == adv.dims[j - 1] + 1;
  SmallVector<bool, 8> indexed(static_cast<size_t>(v->dim()), false);
  for (int64_t d : adv.dims) indexed[d] = true;

  Plan p;
  Dims dstrides, istrides;
  auto push_B = [&] {
    for (size_t i = 0; i < B.size(); ++i) {
      p.shape.push_back(B[i]);
      dstrides.push_back(0);
      istrides.push_back(Ib->strides[i]);
    }
  };
  if (!adjacent) push_B();  // the transposition rule
  for (int64_t d = 0; d < v->dim(); ++d) {
    if (adjacent && d == adv.dims[0]) push_B();
    if (indexed[d]) continue;
    p.shape.push_back(v->shape[d]);
    dstrides.push_back(v->strides[d]);
    istrides.push_back(0);
  }
  // As in PyTorch: indices into a dim of size 0 are refused outright; others
  // only when the result has elements (an empty result reads none of them).
  for (size_t j = 0; j < k; ++j)
    MF_CHECK(v->shape[adv.dims[j]] != 0 || shape_numel(B) == 0, IndexError, op,
             ": index is out of bounds for dimension with size 0 (dimension ", adv.dims[j], ")");
  if (check_bounds && shape_numel(p.shape) != 0)
    for (size_t j = 0; j < k; ++j) check_index_bounds(adv.indices[j], v->shape[adv.dims[j]], true, op, adv.dims[j]);
  Dims dshape = p.shape;
  for (int64_t d : adv.dims) {
    dshape.push_back(v->shape[d]);
    dstrides.push_back(v->strides[d]);
  }
  Dims ishape = p.shape;
  ishape.push_back(static_cast<int64_t>(k));
  istrides.push_back(Ib->strides.back());
  p.data = make_view(v, dshape, dstrides, v->offset);
  p.I = make_view(Ib, ishape, istrides, Ib->offset);
  return p;
}

Tensor drop_leading_ones(const Tensor& v) {
  int64_t i = 0;
  while (i < v->dim() && v->shape[i] == 1) ++i;
  if (i == 0) return v;
  return make_view(v, Dims(v->shape.begin() + i, v->shape.end()), Dims(v->strides.begin() + i, v->strides.end()),
                   v->offset);
}

bool broadcastable(const Dims& from, const Dims& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t f = from[from.size() - 1 - i], t = to[to.size() - 1 - i];
    if (f != 1 && f != t) return false;
  }
  return true;
}

void put_advanced(const Tensor& t, const Advanced& adv, const Tensor& values, bool accumulate, bool check_bounds) {
  const char* op = "index_put_";
  MF_CHECK(values->dtype == t->dtype, RuntimeError, op,
           ": Index put requires the source and destination dtypes match, got ", dtype_torch_name(t->dtype),
           " for the destination and ", dtype_torch_name(values->dtype), " for the source.");
  MF_CHECK(!adv.view->has_internal_overlap(), RuntimeError, op,
           ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.");
  Plan p = plan_advanced(adv, op, check_bounds);
  Tensor v = drop_leading_ones(values);
  MF_CHECK(broadcastable(v->shape, p.shape), RuntimeError, op, ": shape mismatch: value tensor of shape ",
           shape_str(values->shape), " cannot be broadcast to indexing result of shape ", shape_str(p.shape));
  if (v->device() != t->device()) v = to(v, t->device(), v->dtype, false);
  // The kernel reads values and indices while it writes: never from t's memory.
  if (v->storage == t->storage) v = clone(v);
  Tensor I = p.I->storage == t->storage ? clone(p.I) : p.I;
  launch_index_put(p.data, expand(v, p.shape), I, accumulate);
  t->bump_version();
}

bool has_advanced(const std::vector<IndexItem>& items) {
  for (const auto& it : items)
    if (it.kind == IndexItem::TensorIndex || it.kind == IndexItem::Bool) return true;
  return false;
}

// `items` with each mask replaced by the index tensors apply_items found for
// it (a 0-dim mask by a Python bool), so that a backward pass addresses the
// same elements without nonzero() and its synchronisation.
std::vector<IndexItem> resolved_items(const std::vector<IndexItem>& items, const Advanced& adv) {
  std::vector<IndexItem> out;
  size_t j = 0;
  for (const auto& it : items) {
    if (it.kind == IndexItem::Bool) {
      out.push_back(it);
      ++j;
    } else if (it.kind != IndexItem::TensorIndex) {
      out.push_back(it);
    } else if (!is_mask(it.tensor->dtype)) {
      out.push_back(index_item_tensor(adv.indices[j++]));
    } else if (it.tensor->dim() == 0) {
      out.push_back(index_item_bool(adv.indices[j++]->numel() == 1));
    } else {
      for (int64_t k = 0; k < it.tensor->dim(); ++k) out.push_back(index_item_tensor(adv.indices[j++]));
    }
  }
  return out;
}

Dims without_leading_ones(const Dims& shape) {
  size_t i = 0;
  while (i < shape.size() && shape[i] == 1) ++i;
  return Dims(shape.begin() + i, shape.end());
}

void index_put_impl(const Tensor& t, const std::vector<IndexItem>& items, const Tensor& values, bool accumulate,
                    bool check_bounds);

// t[items] with advanced items. Its gradient: zeros with the output's
// gradient accumulated at the same elements (duplicates add up).
Tensor index_impl(const Tensor& t, const std::vector<IndexItem>& items, bool check_bounds) {
  autograd::Recorder rec("index", {t});
  Advanced adv = apply_items(t, items);
  Plan p = plan_advanced(adv, "index", check_bounds);
  Tensor out = empty(p.shape, t->dtype, t->device());
  launch_index(out, p.data, p.I);
  if (rec)
    rec.finish({out}, [shape = t->shape, bitems = resolved_items(items, adv)](const autograd::TensorList& g,
                                                                              autograd::NeedsGrad) {
      Tensor r = full(shape, Scalar{}, g[0]->dtype, g[0]->device());
      index_put_impl(r, bitems, g[0], /*accumulate=*/true, /*check_bounds=*/false);
      return autograd::TensorList{r};
    });
  return out;
}

// t[items] = values (or +=) with advanced items. Gradients: t's is the
// output's, zero where written (unless accumulating); values' is the
// output's gradient read at the written elements, summed to values' shape.
void index_put_impl(const Tensor& t, const std::vector<IndexItem>& items, const Tensor& values, bool accumulate,
                    bool check_bounds) {
  autograd::Recorder rec(autograd::Recorder::InPlace{}, "index_put_", {t, values});
  Advanced adv = apply_items(t, items);
  put_advanced(t, adv, values, accumulate, check_bounds);
  if (rec)
    rec.finish_inplace(t, [bitems = resolved_items(items, adv), accumulate, vshape = values->shape,
                           dshape = without_leading_ones(values->shape)](const autograd::TensorList& g,
                                                                         autograd::NeedsGrad n) {
      autograd::TensorList r(2);
      if (n[0]) {
        if (accumulate) {
          r[0] = g[0];
        } else {
          r[0] = clone(g[0]);
          index_put_impl(r[0], bitems, full(Dims{}, Scalar{}, g[0]->dtype, g[0]->device()), false, false);
        }
      }
      if (n[1]) r[1] = reshape(autograd::sum_to(index_impl(g[0], bitems, false), dshape), vshape);
      return r;
    });
}
}  // namespace

Tensor index_basic(const Tensor& t, const std::vector<IndexItem>& items) {
  for (const auto& it : items)
    MF_CHECK(it.kind != IndexItem::TensorIndex && it.kind != IndexItem::Bool, IndexError,
             "index_basic: tensor and bool indices are advanced indices");
  return apply_items(t, items).view;
}

// Basic items give views (differentiable through make_view); basic writes
// are copy_/add_/fill_ on a view, which the engine records (CopySlices).
Tensor index(const Tensor& t, const std::vector<IndexItem>& items) {
  if (!has_advanced(items)) return apply_items(t, items).view;
  return index_impl(t, items, true);
}

void index_put_(const Tensor& t, const std::vector<IndexItem>& items, const Tensor& values, bool accumulate) {
  if (has_advanced(items)) return index_put_impl(t, items, values, accumulate, true);
  Advanced adv = apply_items(t, items);
  Tensor v = drop_leading_ones(values);  // (a mismatch is refused by expand, as in copy_)
  if (accumulate)
    binary_(kOp_add, adv.view, v);
  else
    copy_(adv.view, v);
  t->bump_version();
}

void index_put_scalar_(const Tensor& t, const std::vector<IndexItem>& items, Scalar value) {
  if (!has_advanced(items)) return fill_(apply_items(t, items).view, value);
  index_put_impl(t, items, checked_scalar_tensor(value, t->dtype, t->device(), "index_put_"), false, true);
}

void index_put_tensors_(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
  std::vector<IndexItem> items;
  for (const Tensor& i : indices) items.push_back(index_item_tensor(i));
  index_put_(t, items, values, accumulate);
}

}  // namespace monoflow
