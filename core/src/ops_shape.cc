// Joining, splitting, reordering and repeating: cat, stack, split, chunk,
// flip, roll, repeat, tile, tril, triu.
//
// cat, roll and repeat are copies into views of the output (the device's
// `copy` kernel moves contiguous runs at memcpy speed and every device has
// one), so they need no kernel of their own; flip and tril/triu have kernels.
#include <algorithm>

#include "monoflow/autograd.h"
#include "monoflow/checked_arith.h"
#include "monoflow/dispatch.h"
#include "monoflow/error.h"
#include "monoflow/ops.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

using autograd::NeedsGrad;
using autograd::TensorList;

namespace {
void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  MF_CHECK(a->device() == b->device(), RuntimeError, op,
           ": expected all tensors to be on the same device, but found at least two devices, ", a->device().str(),
           " and ", b->device().str());
}
}  // namespace

// ------------------------------------------------------------ cat, stack

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  MF_CHECK(!tensors.empty(), ValueError, "cat: expected a non-empty list of Tensors");
  // PyTorch skips 1-D empty inputs (legacy behaviour), but their dtypes still
  // take part in the promotion.
  auto skipped = [](const Tensor& t) { return t->dim() == 1 && t->shape[0] == 0; };
  DType dtype = tensors[0]->dtype;
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    check_same_device("cat", tensors[0], t);
    dtype = promote_types(dtype, t->dtype);
    MF_CHECK(t->dim() > 0, RuntimeError, "cat: zero-dimensional tensor (at position ", i,
             ") cannot be concatenated");
    if (!ref && !skipped(t)) ref = &t;
  }
  if (!ref) {  // all inputs skipped: an empty result, still connected to them
    autograd::Recorder rec("cat", tensors);
    Tensor out = empty(Dims{0}, dtype, tensors[0]->device());
    if (rec)
      rec.finish({out}, [k = tensors.size()](const TensorList& g, NeedsGrad n) {
        TensorList r(k);
        for (size_t i = 0; i < k; ++i)
          if (n[i]) r[i] = g[0];
        return r;
      });
    return out;
  }
  const int64_t nd = (*ref)->dim();
  const int64_t d = wrap_dim(dim, nd, "cat");
  Dims shape = (*ref)->shape;
  shape[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped(t)) continue;
    MF_CHECK(t->dim() == nd, RuntimeError, "cat: Tensors must have same number of dimensions: got ", nd, " and ",
             t->dim());
    for (int64_t j = 0; j < nd; ++j)
      MF_CHECK(j == d || t->shape[j] == (*ref)->shape[j], RuntimeError, "cat: Sizes of tensors must match except in dimension ",
               d, ". Expected size ", (*ref)->shape[j], " but got size ", t->shape[j], " for tensor number ", i,
               " in the list.");
    shape[d] += t->shape[d];
  }
  autograd::Recorder rec("cat", tensors);
  Tensor out = empty(shape, dtype, tensors[0]->device());
  int64_t offset = 0;
  Dims starts;  // each input's start along d (-1: a skipped 1-D empty input)
  for (const Tensor& t : tensors) {
    starts.push_back(skipped(t) ? -1 : offset);
    if (skipped(t) || t->shape[d] == 0) continue;
    // The copy kernel straight away (it casts to the promoted dtype): the
    // output is fresh and on the inputs' device, so copy_'s overlap,
    // transfer and autograd checks have nothing to find (they cost more
    // than a small input's copy).
    launch(kOp_copy, t->dtype, {t}, narrow(out, d, offset, t->shape[d]), {}, /*coalesce=*/true);
    offset += t->shape[d];
  }
  if (rec) {
    // Each input's gradient is a narrow view of the output's.
    Dims lengths;
    for (const Tensor& t : tensors) lengths.push_back(skipped(t) ? 0 : t->shape[d]);
    rec.finish({out}, [d, starts, lengths](const TensorList& g, NeedsGrad n) {
      TensorList r(starts.size());
      for (size_t i = 0; i < starts.size(); ++i) {
        if (!n[i]) continue;
        r[i] = starts[i] < 0 ? full(Dims{0}, Scalar{}, g[0]->dtype, g[0]->device())
                             : narrow(g[0], d, starts[i], lengths[i]);
      }
      return r;
    });
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  MF_CHECK(!tensors.empty(), RuntimeError, "stack: expects a non-empty TensorList");
  DType dtype = tensors[0]->dtype;
  for (size_t i = 1; i < tensors.size(); ++i) {
    MF_CHECK(tensors[i]->shape == tensors[0]->shape, RuntimeError,
             "stack: stack expects each tensor to be equal size, but got ", shape_str(tensors[0]->shape),
             " at entry 0 and ", shape_str(tensors[i]->shape), " at entry ", i);
    check_same_device("stack", tensors[0], tensors[i]);
    dtype = promote_types(dtype, tensors[i]->dtype);
  }
  const int64_t d = wrap_dim(dim, tensors[0]->dim() + 1, "stack");
  Dims shape;
  for (int64_t j = 0; j <= tensors[0]->dim(); ++j)
    shape.push_back(j == d ? static_cast<int64_t>(tensors.size()) : tensors[0]->shape[j < d ? j : j - 1]);
  // One node whose backward selects each input's slice of the gradient, and
  // each input copied straight into its slice of the output (as in cat: no
  // unsqueezed view per input).
  autograd::Recorder rec("stack", tensors);
  Tensor out = empty(shape, dtype, tensors[0]->device());
  if (out->numel())
    for (size_t i = 0; i < tensors.size(); ++i)
      launch(kOp_copy, tensors[i]->dtype, {tensors[i]}, select(out, d, static_cast<int64_t>(i)), {},
             /*coalesce=*/true);
  if (rec)
    rec.finish({out}, [d, k = tensors.size()](const TensorList& g, NeedsGrad n) {
      TensorList r(k);
      for (size_t i = 0; i < k; ++i)
        if (n[i]) r[i] = select(g[0], d, static_cast<int64_t>(i));
      return r;
    });
  return out;
}

// ------------------------------------------------------------ split, chunk

std::vector<Tensor> split_with_sizes(const Tensor& t, const Dims& sizes, int64_t dim) {
  MF_CHECK(t->dim() > 0, RuntimeError, "split_with_sizes expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    MF_CHECK(s >= 0, RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got "
             "split_sizes=", shape_str(sizes));
    total += s;
  }
  MF_CHECK(total == t->shape[d], RuntimeError, "split_with_sizes expects split_sizes to sum exactly to ",
           t->shape[d], " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_str(sizes));
  // The pieces are views; one node for all of them, whose backward joins
  // their gradients (a view node per piece would each scatter into a
  // zero tensor of t's size).
  autograd::Recorder rec("split_with_sizes", {t});
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(t, d, start, s));
    start += s;
  }
  if (rec) rec.finish(out, [d](const TensorList& g, NeedsGrad) { return TensorList{cat(g, d)}; });
  return out;
}

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
  MF_CHECK(t->dim() > 0, IndexError, "unbind: Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, t->dim(), "unbind");
  autograd::Recorder rec("unbind", {t});
  std::vector<Tensor> out;
  for (int64_t i = 0; i < t->shape[d]; ++i) out.push_back(select(t, d, i));
  if (rec && !out.empty())
    rec.finish(out, [d](const TensorList& g, NeedsGrad) { return TensorList{stack(g, d)}; });
  return out;
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
  MF_CHECK(t->dim() > 0, RuntimeError, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, t->dim(), "split");
  MF_CHECK(split_size >= 0, RuntimeError, "split: split expects split_size be non-negative, but got split_size=",
           split_size);
  const int64_t size = t->shape[d];
  MF_CHECK(split_size > 0 || size == 0, RuntimeError,
           "split: split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  if (size == 0) return {narrow(t, d, 0, 0)};
  Dims sizes;
  for (int64_t start = 0; start < size; start += split_size) sizes.push_back(std::min(split_size, size - start));
  return split_with_sizes(t, sizes, d);
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
  MF_CHECK(t->dim() > 0, RuntimeError, "chunk expects at least a 1-dimensional tensor");
  MF_CHECK(chunks > 0, RuntimeError, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, t->dim(), "chunk");
  const int64_t size = t->shape[d];
  // (an empty dim splits into `chunks` empty pieces, as in PyTorch)
  if (size == 0) return split_with_sizes(t, Dims(static_cast<size_t>(chunks), 0), d);
  return split(t, (size + chunks - 1) / chunks, d);
}

// ------------------------------------------------------------ flip, roll

Tensor flip(const Tensor& t, const Dims& dims) {
  autograd::Recorder rec("flip", {t});
  SmallVector<bool, 8> seen(static_cast<size_t>(std::max<int64_t>(t->dim(), 1)), false);
  uint64_t mask = 0;
  for (int64_t dim : dims) {
    int64_t d = wrap_dim(dim, t->dim(), "flip");
    MF_CHECK(!seen[d], RuntimeError, "flip: dim ", d, " appears multiple times in the list of dims");
    seen[d] = true;
    if (t->dim() > 0 && t->shape[d] > 1) mask |= uint64_t(1) << d;  // size-1 dims read the same either way
  }
  Tensor out;
  if (!mask) {
    out = clone(t);
  } else {
    out = empty(t->shape, t->dtype, t->device());
    launch(kOp_flip, t->dtype, {t}, out, {int_attr("dims", static_cast<int64_t>(mask))});
  }
  if (rec) rec.finish({out}, [dims](const TensorList& g, NeedsGrad) { return TensorList{flip(g[0], dims)}; });
  return out;
}

Tensor roll(const Tensor& t, const Dims& shifts, const Dims& dims) {
  MF_CHECK(!shifts.empty(), RuntimeError, "roll: `shifts` required");
  if (dims.empty()) {
    MF_CHECK(shifts.size() == 1, RuntimeError, "roll: shifts and dimensions must align. shifts: ", shifts.size(),
             ", dims:", dims.size());
    return view(roll(flatten(t, 0, -1), shifts, Dims{0}), t->shape);
  }
  MF_CHECK(shifts.size() == dims.size(), RuntimeError, "roll: shifts and dimensions must align. shifts: ",
           shifts.size(), ", dims:", dims.size());
  // Net shift per dim (a dim may be listed twice), in [0, size).
  Dims net(static_cast<size_t>(std::max<int64_t>(t->dim(), 1)), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], t->dim(), "roll");
    int64_t n = t->dim() ? t->shape[d] : 1;
    if (n > 0) net[d] = ((net[d] + shifts[i] % n) % n + n) % n;
  }
  autograd::Recorder rec("roll", {t});
  Tensor out = empty(t->shape, t->dtype, t->device());
  // out = x with each rolled dim cut in two and the halves swapped: one copy
  // per combination of halves.
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < t->dim(); ++d)
    if (net[d] != 0) rolled.push_back(d);
  for (uint64_t combo = 0; out->numel() && combo < (uint64_t(1) << rolled.size()); ++combo) {
    Tensor dst = out, src = t;
    for (size_t j = 0; j < rolled.size(); ++j) {
      const int64_t d = rolled[j], n = t->shape[d], s = net[d];
      if (combo >> j & 1) {  // the tail of x moves to the front
        dst = narrow(dst, d, 0, s);
        src = narrow(src, d, n - s, s);
      } else {
        dst = narrow(dst, d, s, n - s);
        src = narrow(src, d, 0, n - s);
      }
    }
    copy_(dst, src);
  }
  if (rec) {
    // The gradient rolls back.
    Dims back_shifts, back_dims;
    for (int64_t d : rolled) back_shifts.push_back(-net[d]), back_dims.push_back(d);
    rec.finish({out}, [back_shifts, back_dims](const TensorList& g, NeedsGrad) {
      return TensorList{back_dims.empty() ? g[0] : roll(g[0], back_shifts, back_dims)};
    });
  }
  return out;
}

// ------------------------------------------------------------ repeat, tile

Tensor repeat(const Tensor& t, const Dims& repeats) {
  const int64_t m = static_cast<int64_t>(repeats.size());
  MF_CHECK(m >= t->dim(), RuntimeError,
           "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  // out viewed as [r0, s0, r1, s1, ...] is x (left-padded with size-1 dims)
  // expanded along the r's: one copy from a stride-0 source.
  Dims out_shape, pair_shape, src_strides;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t j = i - (m - t->dim());
    const int64_t s = j >= 0 ? t->shape[j] : 1;
    const int64_t st = j >= 0 ? t->strides[j] : 0;
    MF_CHECK(repeats[i] >= 0, RuntimeError, "repeat: Trying to create tensor with negative dimension ", repeats[i],
             ": ", shape_str(repeats));
    out_shape.push_back(checked_mul(repeats[i], s, "repeat"));
    pair_shape.push_back(repeats[i]);
    pair_shape.push_back(s);
    src_strides.push_back(0);
    src_strides.push_back(st);
  }
  autograd::Recorder rec("repeat", {t});
  Tensor out = empty(out_shape, t->dtype, t->device());
  if (out->numel())
    copy_(make_view(out, pair_shape, contiguous_strides(pair_shape), 0),
          make_view(t, pair_shape, src_strides, t->offset));
  if (rec) {
    // The gradient, viewed as [r0, s0, r1, s1, ...], summed over the r's.
    rec.finish({out}, [pair_shape, m, in_shape = t->shape](const TensorList& g, NeedsGrad) {
      Dims rdims;
      for (int64_t i = 0; i < m; ++i) rdims.push_back(2 * i);
      Tensor s = m ? sum(reshape(g[0], pair_shape), rdims, false, std::nullopt) : g[0];
      return TensorList{reshape(s, in_shape)};
    });
  }
  return out;
}

Tensor tile(const Tensor& t, const Dims& reps) {
  Dims r = reps;
  while (static_cast<int64_t>(r.size()) < t->dim()) r.insert(0, 1);
  return repeat(t, r);
}

// ------------------------------------------------------------ tril, triu

namespace {
void run_triangle(int op_id, const Tensor& x, const Tensor& out, int64_t diagonal) {
  const char* name = op_def(op_id).name;
  MF_CHECK(x->dim() >= 2, RuntimeError, name, ": input tensor must have at least 2 dimensions");
  launch(op_id, x->dtype, {x}, out, {int_attr("diagonal", diagonal)});
}

Tensor triangle(int op_id, const Tensor& t, int64_t diagonal) {
  autograd::Recorder rec(op_def(op_id).name, {t});
  Tensor out = empty(t->shape, t->dtype, t->device());
  run_triangle(op_id, t, out, diagonal);
  if (rec) rec.finish({out}, [op_id, diagonal](const TensorList& g, NeedsGrad) {
    return TensorList{triangle(op_id, g[0], diagonal)};
  });
  return out;
}

void triangle_(int op_id, const Tensor& t, int64_t diagonal) {
  check_writable(op_def(op_id).name, t);
  autograd::Recorder rec(autograd::Recorder::InPlace{}, op_def(op_id).name, {t});
  run_triangle(op_id, t, t, diagonal);  // in place: the same descriptor in and out
  t->bump_version();
  if (rec) rec.finish_inplace(t, [op_id, diagonal](const TensorList& g, NeedsGrad) {
    return TensorList{triangle(op_id, g[0], diagonal)};
  });
}
}  // namespace

Tensor tril(const Tensor& t, int64_t diagonal) { return triangle(kOp_tril, t, diagonal); }
Tensor triu(const Tensor& t, int64_t diagonal) { return triangle(kOp_triu, t, diagonal); }
void tril_(const Tensor& t, int64_t diagonal) { triangle_(kOp_tril, t, diagonal); }
void triu_(const Tensor& t, int64_t diagonal) { triangle_(kOp_triu, t, diagonal); }

}  // namespace monoflow
