"""Rearranging and writing-into ops composed of views, gather/scatter and
index_put: rot90, unflatten, ravel, repeat_interleave, narrow_copy, take,
the diagonal family (diag, diag_embed, diagflat, trace, fill_diagonal_),
tril/triu_indices, and the out-of-place writers (index_add, index_copy,
index_fill, masked_scatter, select/slice/diagonal_scatter, scatter_reduce).
Differentiable through the core ops they use."""
import numbers

import numpy as np

from monoflow import _C, _autocast, _dtypes
from monoflow import _composite as _c
from monoflow import ops_shape as _shape

__all__ = ["rot90", "unflatten", "ravel", "repeat_interleave", "narrow_copy", "take", "diag", "diag_embed",
           "diagflat", "trace", "tril_indices", "triu_indices", "index_add", "index_copy", "index_fill",
           "masked_scatter", "select_scatter", "slice_scatter", "diagonal_scatter", "scatter_reduce"]

_INT64 = _dtypes.ALIASES["int64"]


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees k times in the plane of `dims` (from the first towards the second)."""
    _C.check_tensor(input, "rot90", "input", 1)
    dims = list(_c.int_tuple("rot90", "dims", dims))
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _c.wrap_dim("rot90", dims[0], input.dim()), _c.wrap_dim("rot90", dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = _C.check_int(k, "rot90", "k", 2) % 4
    if k == 1:
        return _C.flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return _C.flip(input, (d0, d1))
    if k == 3:
        return _C.flip(input, (d0,)).transpose(d0, d1)
    return input.clone()


def unflatten(input, dim, sizes):
    """Splits dim `dim` into `sizes` (one entry may be -1)."""
    _C.check_tensor(input, "unflatten", "input", 1)
    d = _c.wrap_dim("unflatten", dim, input.dim())
    sizes = list(_c.int_tuple("unflatten", "sizes", sizes))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    return input.reshape(shape[:d] + sizes + shape[d + 1:])


def ravel(input):
    _C.check_tensor(input, "ravel", "input", 1)
    return input.reshape(-1)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats each element (along `dim`, or of the flattened input) `repeats`
    times; repeat_interleave(repeats) alone gives the repeated indices."""
    _C.check_tensor(input, "repeat_interleave", "input", 1)
    if repeats is None:  # repeat_interleave(repeats_tensor)
        counts = input
        if counts.dim() != 1 or counts.dtype.is_floating_point:
            raise RuntimeError("repeat_interleave: repeats must be a 1-D integer tensor")
        reps = counts.detach().cpu().numpy()
        if (reps < 0).any():
            raise RuntimeError("repeats can not be negative")
        idx = np.repeat(np.arange(len(reps), dtype=np.int64), reps)
        return _c.host_tensor(idx, counts.dtype, counts.device)
    x = input
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = _c.wrap_dim("repeat_interleave", dim, x.dim())
    n = x.shape[d] if x.dim() else 1
    if isinstance(repeats, _C.TensorBase) and repeats.numel() == 1 and repeats.dim() <= 1:
        repeats = int(repeats.item())
    if isinstance(repeats, numbers.Integral):
        repeats = _C.check_int(repeats, "repeat_interleave", "repeats", 2)
        if repeats < 0:
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        if x.dim() == 0:
            x = x.reshape(1)
        shape = list(x.shape)
        out = x.unsqueeze(d + 1).expand(shape[:d + 1] + [repeats] + shape[d + 1:])
        return out.reshape(shape[:d] + [shape[d] * repeats] + shape[d + 1:])
    if not isinstance(repeats, _C.TensorBase):  # (torch takes a Tensor or an int, not a sequence)
        raise TypeError(f"repeat_interleave(): argument 'repeats' (position 2) must be Tensor, not "
                        f"{type(repeats).__name__}")
    if repeats.dtype.is_floating_point or repeats.dtype.is_complex or repeats.dtype.name == "bool":
        raise RuntimeError(f"repeat_interleave: repeats has to be Long tensor, got {repeats.dtype}")
    if repeats.dim() > 1:
        raise RuntimeError(f"repeat_interleave: repeats must be 0-dim or 1-dim tensor (repeat_interleave only accept "
                           f"1D vector as repeat), got {repeats.dim()}-dim")
    reps = repeats.detach().cpu().numpy()
    if reps.ndim != 1 or reps.shape[0] != n:
        raise RuntimeError(f"repeat_interleave: repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {reps.shape[0] if reps.ndim else 0} and input.size({d}) = {n}")
    if (reps < 0).any():
        raise RuntimeError("repeat_interleave: repeats can not be negative")
    idx = _c.host_tensor(np.repeat(np.arange(n, dtype=np.int64), reps), _INT64, x.device)
    return x.index_select(d, idx)


def narrow_copy(input, dim, start, length):
    return _C.check_tensor(input, "narrow_copy", "input", 1).narrow(dim, start, length).clone()


def take(input, index):
    """input (flattened) at `index`, in index's shape."""
    _C.check_tensor(input, "take", "input", 1)
    _C.check_tensor(index, "take", "index", 2)
    if index.dtype.is_floating_point or index.dtype.is_complex or index.dtype.name == "bool":  # (torch's check)
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    flat = input.reshape(-1)
    n = flat.shape[0]
    idx = index.reshape(-1)
    if idx.numel():
        lo, hi = int(idx.min().item()), int(idx.max().item())
        if lo < -n or hi >= n:
            raise IndexError(f"take(): index {hi if hi >= n else lo} out of range for tensor of size "
                             f"{list(input.shape)}.")
    idx = _C._where(idx < 0, idx + n, idx)
    return flat.index_select(0, idx).reshape(tuple(index.shape))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices (dims dim1, dim2 of the result) whose `offset` diagonal holds input's last dim."""
    _C.check_tensor(input, "diag_embed", "input", 1)
    offset = _C.check_int(offset, "diag_embed", "offset", 2)
    nd = max(input.dim(), 1) + 1
    d1, d2 = _c.wrap_dim("diag_embed", dim1, nd), _c.wrap_dim("diag_embed", dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] if input.dim() else 1
    eye = _C._eye(n, n, _dtypes.bool_, input.device)
    # (..., n, n), input[..., i] at [i, i]; selected, not multiplied: a NaN or inf stays off the other entries
    out = _C._where(eye, input.unsqueeze(-1), input.new_zeros(()))
    k = abs(offset)
    if k:
        out = _C.pad(out, (k, 0, 0, k) if offset > 0 else (0, k, k, 0), "constant", 0)
    return _shape.movedim(out, (nd - 2, nd - 1), (d1, d2))


def diag(input, diagonal=0):
    """1-D: the matrix with input on its `diagonal`; 2-D: that diagonal (a copy)."""
    _C.check_tensor(input, "diag", "input", 1)
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return _shape.diagonal(input, diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D (the dimension is expected to be in range of [1, 2], but got {input.dim()})")


def diagflat(input, offset=0):
    _C.check_tensor(input, "diagflat", "input", 1)
    return diag_embed(input.reshape(-1), _C.check_int(offset, "diagflat", "offset", 2))


@_autocast.fp32
def trace(input):
    _C.check_tensor(input, "trace", "input", 1)
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    d = _shape.diagonal(input)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        return d.sum(dtype=_INT64)
    return d.sum()


def _triangle_indices(op, row, col, offset, dtype, device, lower):
    row, col = _C.check_int(row, op, "row", 1), _C.check_int(col, op, "col", 2)
    offset = _C.check_int(offset, op, "offset", 3)
    if row < 0 or col < 0:
        raise RuntimeError(f"{op}: row and col must be non-negative, got {row} and {col}")
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return _c.host_tensor(np.stack([r, c]).astype(np.int64).reshape(2, -1), dtype or _INT64, device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the lower triangle of a row x col matrix, row by row."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) coordinates of the upper triangle of a row x col matrix, row by row."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, False)


# ---------------------------------------------------------------- writers

def _along(index, dim, shape):
    """`index` (1-D) as a full index tensor of `shape`, varying along `dim`."""
    view = [1] * len(shape)
    view[dim] = index.shape[0]
    return index.reshape(view).expand(shape)


def _check_index(op, index):
    if not isinstance(index, _C.TensorBase) or index.dim() > 1 or index.dtype.is_floating_point:
        raise IndexError(f"{op}(): Index is supposed to be a vector of integers")
    return index.reshape(-1)


def index_add(input, dim, index, source, *, alpha=1):
    """input with alpha * source's slices added at `index` along `dim` (repeats accumulate)."""
    _C.check_tensor(input, "index_add", "input", 1)
    _C.check_tensor(index, "index_add", "index", 3)
    _C.check_tensor(source, "index_add", "source", 4)
    d = _c.wrap_dim("index_add", dim, input.dim())
    index = _check_index("index_add", index)
    src = source if source.dim() else source.reshape(1)
    if alpha != 1:
        src = src * alpha
    return input.scatter_add(d, _along(index, d, tuple(src.shape)), src.to(input.dtype))


def index_copy(input, dim, index, source):
    """input with source's slices written at `index` along `dim`."""
    _C.check_tensor(input, "index_copy", "input", 1)
    _C.check_tensor(index, "index_copy", "index", 3)
    _C.check_tensor(source, "index_copy", "source", 4)
    d = _c.wrap_dim("index_copy", dim, input.dim())
    index = _check_index("index_copy", index)
    src = source if source.dim() else source.reshape(1)
    return input.scatter(d, _along(index, d, tuple(src.shape)), src.to(input.dtype))


def index_fill(input, dim, index, value):
    """input with the slices at `index` along `dim` set to `value`."""
    _C.check_tensor(input, "index_fill", "input", 1)
    d = _c.wrap_dim("index_fill", dim, input.dim())
    index = _check_index("index_fill", index)
    shape = list(input.shape) if input.dim() else [1]
    shape[d] = index.shape[0]
    x = input if input.dim() else input.reshape(1)
    if isinstance(value, _C.TensorBase):
        if value.dim() != 0:
            raise RuntimeError(f"index_fill(): only a 0-dimensional value tensor is supported, but got tensor with "
                               f"{value.dim()} dimension(s).")
        out = x.scatter(d, _along(index, d, tuple(shape)), value.to(x.dtype).expand(tuple(shape)))
    else:
        if not isinstance(value, numbers.Number):  # (scatter's message would name scatter)
            raise TypeError(f"index_fill(): argument 'value' (position 4) must be Tensor or Number, not "
                            f"{type(value).__name__}")
        out = x.scatter(d, _along(index, d, tuple(shape)), value=value)
    return out if input.dim() else out.reshape(())


def masked_scatter(input, mask, source):
    """input with the positions where `mask` is True filled, in order, from source's elements."""
    _C.check_tensor(input, "masked_scatter", "input", 1)
    _C.check_tensor(mask, "masked_scatter", "mask", 2)
    _C.check_tensor(source, "masked_scatter", "source", 3)
    shape = _C.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    if tuple(shape) != tuple(input.shape):
        raise RuntimeError("masked_scatter: the mask must broadcast to input's shape")
    flat_mask = mask.expand(shape).reshape(-1)
    pos = _C.nonzero(flat_mask, False).reshape(-1)
    count = pos.shape[0]
    if count > source.numel():
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    values = source.reshape(-1).narrow(0, 0, count).to(input.dtype)
    return _C.index_put_(input.reshape(-1).clone(), (pos,), values, False).reshape(shape)


def select_scatter(input, src, dim, index):
    """input with the slice select(dim, index) replaced by src."""
    _C.check_tensor(input, "select_scatter", "input", 1)
    _C.check_tensor(src, "select_scatter", "src", 2)
    d = _c.wrap_dim("select_scatter", dim, input.dim())
    index = _C.check_int(index, "select_scatter", "index", 4)
    if input.dim() == 0:
        raise IndexError("select_scatter(): select() cannot be applied to a 0-dim tensor")
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select_scatter(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    if tuple(src.shape) != tuple(input.select(d, index).shape):
        raise RuntimeError(f"select_scatter: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(input.select(d, index).shape)}")
    idx = _C._full((1,), index % n, _INT64, input.device)
    return index_copy(input, d, idx, src.unsqueeze(d))


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with the slice [start:end:step] along `dim` replaced by src."""
    _C.check_tensor(input, "slice_scatter", "input", 1)
    _C.check_tensor(src, "slice_scatter", "src", 2)
    if input.dim() == 0:  # (torch's type)
        raise IndexError("slice_scatter(): slice() cannot be applied to a 0-dim tensor.")
    d = _c.wrap_dim("slice_scatter", dim, input.dim())
    for pos, (name, v) in enumerate((("start", start), ("end", end)), 4):
        if v is not None:  # (a non-int met Python's "slice indices must be integers")
            _C.check_int(v, "slice_scatter", name, pos)
    step = _C.check_int(step, "slice_scatter", "step", 6)
    if step <= 0:
        raise RuntimeError("slice_scatter(): slice step must be positive")
    positions = range(input.shape[d])[slice(start, end, step)]
    idx = _C._arange(positions.start, positions.stop, positions.step, _INT64, input.device) if len(positions) \
        else _C._empty((0,), _INT64, input.device)
    expect = list(input.shape)
    expect[d] = len(positions)
    if list(src.shape) != expect:
        raise RuntimeError(f"slice_scatter: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {expect}")
    return index_copy(input, d, idx, src)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its `offset` diagonal (of dims dim1, dim2) replaced by src."""
    _C.check_tensor(input, "diagonal_scatter", "input", 1)
    _C.check_tensor(src, "diagonal_scatter", "src", 2)
    diag_view = _shape.diagonal(input, offset, dim1, dim2)
    if tuple(src.shape) != tuple(diag_view.shape):
        raise RuntimeError(f"diagonal_scatter: expected src to have a size equal to the diagonal of self. src size "
                           f"= {list(src.shape)}, diagonal size = {list(diag_view.shape)}")
    nd = input.dim()
    d1, d2 = dim1 % nd, dim2 % nd
    # with the two dims last, the diagonal's positions in row-major order are src's order
    xt = _shape.movedim(input, (d1, d2), (-2, -1))
    mask = _C._full(tuple(xt.shape), False, _dtypes.bool_, input.device)
    _shape.diagonal(mask, offset, -2, -1).fill_(True)
    out = masked_scatter(xt, mask, src.to(input.dtype).reshape(-1))
    return _shape.movedim(out, (-2, -1), (d1, d2))


_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduces src's values into input at index along dim ('sum', 'prod', 'mean', 'amax', 'amin').
    Differentiable in input and src with torch's gradients (floating dtypes)."""
    for pos, (name, t) in enumerate((("input", input), ("index", index), ("src", src))):
        _C.check_tensor(t, "scatter_reduce", name, (1, 3, 4)[pos])
    if not isinstance(reduce, str):
        raise TypeError(f"scatter_reduce(): argument 'reduce' (position 4) must be str, not {type(reduce).__name__}")
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError(f"scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    d = _c.wrap_dim("scatter_reduce", dim, input.dim())
    if reduce in ("sum", "mean"):
        base = input if include_self else input.scatter(d, index, value=0)
        total = base.scatter_add(d, index, _narrow_like(src, index))
        if reduce == "sum":
            return total
        ones = _C._full(tuple(index.shape), 1, input.dtype, input.device)
        start = _C._full(tuple(input.shape), 1 if include_self else 0, input.dtype, input.device)
        count = start.scatter_add(d, index, ones)
        count = _C._where(count == 0, 1, count)
        if input.dtype.is_floating_point:
            return total / count
        return total // count
    src = _narrow_like(src, index)
    if not _fn_cache:
        _fn_cache.append(_make_scatter_reduce_function())
    return _fn_cache[0].apply(input, src, d, index, reduce, include_self)


def _np_scatter_reduce(x, coords, vals, reduce, include_self):
    """numpy scatter_reduce for 'prod', 'amax', 'amin': ufunc.at reduces into a copy of x."""
    out = x.copy()
    if not include_self:
        touched = np.zeros(out.shape, dtype=bool)
        touched[coords] = True
        out[touched] = {"prod": 1, "amax": _lowest(out.dtype), "amin": _highest(out.dtype)}[reduce]
    {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce].at(out, coords, vals)
    return out


def _np_scatter_reduce_grads(x, coords, vals, out, g, reduce, include_self):
    """torch's gradients of scatter_reduce 'prod' / 'amax' / 'amin' (numpy): amax/amin share the
    gradient evenly among the members equal to the result, input's own value counted even when
    include_self=False; prod divides the result by the member, zeros handled apart."""
    if reduce == "prod":
        masked_x = np.where(x == 0, 1, x)
        gx = g * _np_scatter_reduce(masked_x, coords, vals, reduce, include_self) / masked_x
        src_zero = vals == 0
        zeros = np.zeros(x.shape, dtype=x.dtype)
        np.add.at(zeros, coords, src_zero.astype(x.dtype))
        single = src_zero & (zeros[coords] == 1)
        without = _np_scatter_reduce(x, coords, np.where(single, 1, vals), reduce, include_self)
        gs = np.where(single, (g * without)[coords], (g * out)[coords] / np.where(src_zero, 1, vals))
    else:
        x_hit = (x == out).astype(x.dtype)
        src_hit = (vals == out[coords]).astype(x.dtype)
        count = x_hit.copy()
        np.add.at(count, coords, src_hit)
        share = g / count
        gx = x_hit * share
        gs = src_hit * share[coords]
    if not include_self:
        gx[coords] = 0
    return gx, gs


def _make_scatter_reduce_function():
    from .autograd.function import Function

    class ScatterReduce(Function):
        @staticmethod
        def forward(ctx, x, src, d, index, reduce, include_self):
            # copies: an in-place caller overwrites x's memory before backward runs
            xn = np.array(x.detach().cpu().numpy())
            idx = index.cpu().numpy()
            vals = np.array(src.detach().cpu().numpy(), dtype=xn.dtype)
            coords = list(np.indices(idx.shape))
            coords[d] = idx
            coords = tuple(coords)
            out = _np_scatter_reduce(xn, coords, vals, reduce, include_self)
            ctx.state = (xn, coords, vals, out, reduce, include_self, x.dtype, x.device)
            return _c.host_tensor(out, x.dtype, x.device)

        @staticmethod
        def backward(ctx, grad):
            xn, coords, vals, out, reduce, include_self, dtype, device = ctx.state
            gx, gs = _np_scatter_reduce_grads(xn, coords, vals, out, grad.detach().cpu().numpy(), reduce,
                                              include_self)
            return _c.host_tensor(gx, dtype, device), _c.host_tensor(gs, dtype, device), None, None, None, None

    return ScatterReduce


_fn_cache = []


def _narrow_like(src, index):
    # scatter uses only the leading index.shape part of src
    for d in range(src.dim()):
        if src.shape[d] != index.shape[d]:
            src = src.narrow(d, 0, index.shape[d])
    return src


def _lowest(dt):
    return -np.inf if np.issubdtype(dt, np.floating) else np.iinfo(dt).min


def _highest(dt):
    return np.inf if np.issubdtype(dt, np.floating) else np.iinfo(dt).max


# ---------------------------------------------------------------- Tensor methods

class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def contiguous_(self):
        """Makes this tensor contiguous in place (OneFlow's ``Tensor.contiguous_``) and returns it.

        A non-contiguous tensor (a transpose, a permutation ...) gets a
        row-major copy of its values as its own data, as ``contiguous()``
        would return, but the tensor object stays the same (``x.contiguous_()
        is x``). A contiguous tensor is returned unchanged. A non-contiguous
        tensor with autograd history (a ``grad_fn``) raises RuntimeError: its
        backward would still read the old layout; use ``contiguous()`` there.
        Takes no arguments.

        Example::

            >>> x = flow.arange(6.0).reshape(2, 3).t()
            >>> x.is_contiguous()
            False
            >>> x.contiguous_() is x, x.is_contiguous(), x.stride()
            (True, True, (2, 1))
            >>> x
            tensor([[0., 3.],
                    [1., 4.],
                    [2., 5.]])
        """
        if not _C.TensorBase.is_contiguous(self):
            if self.grad_fn is not None:
                raise RuntimeError(
                    "contiguous_(): cannot make a non-contiguous tensor with autograd history "
                    f"(grad_fn={type(self.grad_fn).__name__}) contiguous in place; use contiguous()")
            self.data = self.contiguous()
        return self

    def fill_diagonal_(self, fill_value, wrap=False):
        """Fills the main diagonal (all dims equal for N-D; tall 2-D matrices
        restart below every n+1 rows when wrap=True, as numpy)."""
        if not (isinstance(fill_value, _C.TensorBase) and fill_value.dim() == 0):
            _c.number("fill_diagonal_", "fill_value", 1, fill_value)
        _c.boolean("fill_diagonal_", "wrap", 2, wrap)
        nd = self.dim()
        if nd < 2:
            raise RuntimeError("fill_diagonal_(): dimensions must larger than 1")
        if nd > 2 and len(set(self.shape)) != 1:
            raise RuntimeError("fill_diagonal_(): all dimensions of input must be of equal length")
        shape = list(self.shape)
        total = int(np.prod(shape))
        step = sum(int(np.prod(shape[i + 1:])) for i in range(nd))  # one step along every dim at once
        count = total if nd == 2 and wrap else min(shape)
        pos = np.arange(0, total, step, dtype=np.int64)[:count] if total else np.zeros(0, np.int64)
        mask = np.zeros(total, dtype=bool)
        mask[pos] = True
        return self.masked_fill_(_c.host_tensor(mask.reshape(shape), _dtypes.ALIASES["bool"], self.device), fill_value)


for _fn in (rot90, unflatten, ravel, narrow_copy, take, diag, diag_embed, diagflat, trace, index_add, index_copy,
            index_fill, masked_scatter, select_scatter, slice_scatter, diagonal_scatter, scatter_reduce):
    setattr(TensorMethods, _fn.__name__, _c.method(_fn))
for _fn in (index_add, index_copy, index_fill, masked_scatter, scatter_reduce):
    setattr(TensorMethods, _fn.__name__ + "_", _c.inplace_method(_fn))


def _repeat_interleave_method(self, repeats, dim=None, *, output_size=None):
    return repeat_interleave(self, repeats, dim, output_size=output_size)


TensorMethods.repeat_interleave = _c.method(_repeat_interleave_method, "repeat_interleave")
del _fn
