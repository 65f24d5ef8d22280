// torch.nn.functional.pad. Constant mode fills the output and copies x into
// its interior (negative pads crop). Reflect and replicate gather each padded
// dim in turn through the `index` kernel with a host-built index vector (the
// indices are valid by construction, so no bounds pass); slices of the dims
// after it move as contiguous runs.
#include <algorithm>
#include <vector>

#include "monoflow/autograd.h"
#include "monoflow/checked_arith.h"
#include "monoflow/error.h"
#include "monoflow/indexing.h"
#include "monoflow/ops.h"
#include "monoflow/ops_shape.h"

namespace monoflow {

namespace {
// out = x with dim `d` replaced by x[..., idx[j], ...] (j < idx.size());
// its gradient accumulates back along the same indices.
Tensor gather_dim(const char* name, const Tensor& x, int64_t d, const std::vector<int64_t>& idx) {
  const int64_t m = static_cast<int64_t>(idx.size());
  Tensor iv = from_host(idx.data(), Dims{m}, DType::Int64, x->device());
  autograd::Recorder rec(name, {x});
  Dims shape = x->shape;
  shape[d] = m;
  Tensor out = empty(shape, x->dtype, x->device());
  if (out->numel()) {
    Dims xs = shape, xst = x->strides, is = shape, ist(shape.size(), 0);
    xst[d] = 0;
    xs.push_back(x->shape[d]);
    xst.push_back(x->strides[d]);
    ist[d] = 1;
    is.push_back(1);
    ist.push_back(0);
    launch_index(out, make_view(x, xs, xst, x->offset), make_view(iv, is, ist, 0));
  }
  if (rec)
    rec.finish({out}, [d, iv, xshape = x->shape](const autograd::TensorList& g, autograd::NeedsGrad) {
      return autograd::TensorList{index_select_backward(xshape, d, iv, g[0])};
    });
  return out;
}

const char* mode_name(PadMode mode) { return mode == PadMode::Reflect ? "reflect" : "replicate"; }
}  // namespace

Tensor pad(const Tensor& x, const Dims& pads, PadMode mode, std::optional<Scalar> value) {
  const char* op = "pad";
  // torch's wording, then OneFlow's (in OneFlow's order: the length against the rank first)
  MF_CHECK(static_cast<int64_t>(pads.size()) <= 2 * x->dim(), RuntimeError, op,
           ": Padding length should be less than or equal to two times the input dimension but got padding length ",
           pads.size(), " and input of dimension ", x->dim(), " (Pad size should less than or equal to input axes * 2.)");
  MF_CHECK(pads.size() % 2 == 0, RuntimeError, op,
           ": Padding length must be divisible by 2 (Length of pad must be even but instead it equals ", pads.size(),
           ")");
  const int64_t k = static_cast<int64_t>(pads.size()) / 2, nd = x->dim();
  // pads[2i], pads[2i+1]: before and after dim nd-1-i
  auto lo = [&](int64_t i) { return pads[2 * i]; };
  auto hi = [&](int64_t i) { return pads[2 * i + 1]; };

  if (mode == PadMode::Constant) {
    Scalar v = value.value_or(Scalar::from_int(0));
    Dims shape = x->shape;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t d = nd - 1 - i;
      // (as PyTorch: the negative pads crop x first, and may not crop more than it has;
      // in 128 bits, as the pads are user numbers)
      const __int128 kept = __int128(x->shape[d]) - std::max<__int128>(-__int128(lo(i)), 0) -
                            std::max<__int128>(-__int128(hi(i)), 0);
      MF_CHECK(kept >= 0, RuntimeError, op, ": negative padding (", lo(i), ", ", hi(i),
               ") crops more than the input size ", x->shape[d], " of dimension ", d);
      shape[d] = checked_add(checked_add(x->shape[d], lo(i), op), hi(i), op);
    }
    checked_scalar_tensor(v, x->dtype, Device{0, 0}, op);  // the fill value must fit x's dtype
    autograd::Recorder rec("constant_pad_nd", {x});
    Tensor out = empty(shape, x->dtype, x->device());
    fill_(out, v, /*check_range=*/false);
    [&] {
      if (out->numel() == 0 || x->numel() == 0) return;
      Tensor dst = out, src = x;
      for (int64_t i = 0; i < k; ++i) {  // the part of x that stays, and where it goes
        const int64_t d = nd - 1 - i;
        const int64_t cut_lo = std::max<int64_t>(-lo(i), 0), cut_hi = std::max<int64_t>(-hi(i), 0);
        const int64_t len = x->shape[d] - cut_lo - cut_hi;
        if (len <= 0) return;  // all of x is cropped away
        src = narrow(src, d, cut_lo, len);
        dst = narrow(dst, d, std::max<int64_t>(lo(i), 0), len);
      }
      copy_(dst, src);
    }();
    if (rec) {
      // The opposite pads crop what was added and put zeros where x was cropped.
      Dims back;
      for (int64_t p : pads) back.push_back(-p);
      rec.finish({out}, [back](const autograd::TensorList& g, autograd::NeedsGrad) {
        return autograd::TensorList{pad(g[0], back, PadMode::Constant, std::nullopt)};
      });
    }
    return out;
  }

  MF_CHECK(!value, RuntimeError, op, ": Padding mode \"", mode_name(mode), "\" doesn't take in value argument");
  MF_CHECK(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2), NotImplementedError, op, ": Padding size ", pads.size(),
           " is not supported for ", nd, "D input tensor. Supported combinations for non-constant padding: 2D or 3D "
           "input with padding size 2 (pads the last dimension), 3D or 4D input with padding size 4 (the last 2 "
           "dimensions), 4D or 5D input with padding size 6 (the last 3 dimensions)");
  for (int64_t d = nd == k + 2 ? 1 : 0; d < nd; ++d)
    MF_CHECK(x->shape[d] != 0, RuntimeError, op, ": Expected ", k + 1, "D or ", k + 2,
             "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
             shape_str(x->shape));
  Tensor cur = x;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, n = x->shape[d], l = lo(i), r = hi(i);
    if (mode == PadMode::Reflect)
      MF_CHECK(l < n && r < n, RuntimeError, op, ": Padding size should be less than the corresponding input "
               "dimension, but got: padding (", l, ", ", r, ") at dimension ", d, " of input ", shape_str(x->shape));
    const int64_t m = n + l + r;
    MF_CHECK(m >= 1, RuntimeError, op, ": input (size ", n, " at dimension ", d,
             ") is too small. Calculated output size: ", m);
    if (l == 0 && r == 0) continue;
    std::vector<int64_t> idx(static_cast<size_t>(m));
    for (int64_t j = 0; j < m; ++j) {
      int64_t s = j - l;  // the source position before reflecting or clamping
      if (mode == PadMode::Reflect) {
        if (s < 0) s = -s;
        if (s >= n) s = 2 * (n - 1) - s;
      } else {
        s = std::min(std::max<int64_t>(s, 0), n - 1);
      }
      idx[static_cast<size_t>(j)] = s;
    }
    cur = gather_dim(mode == PadMode::Reflect ? "reflection_pad" : "replication_pad", cur, d, idx);
  }
  return cur == x ? clone(x) : cur;
}

}  // namespace monoflow
