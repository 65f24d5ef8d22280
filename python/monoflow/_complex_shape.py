"""Complex data movement: where, advanced indexing, flip, tril/triu,
gather/scatter, masked ops, products along a dim (Note [Complex through real
views] in _complex.py).

Each op runs the real op on view_as_real(x), whose last dim holds the
(real, imag) pair: an index, mask or condition over x's dims gains a
trailing dim (unsqueezed, or a trailing full slice), so the pair moves as
one element. Gradients come from the real ops through the two views.
"""
import builtins

import numpy as np

from monoflow import _C, _complex, _dtypes


def _real_view(v, dt, like):
    return _complex.view_as_real(_complex._as_complex_tensor(v, dt, like))


def _as_complex(r):
    return _complex.view_as_complex(r if r.stride()[-1] == 1 and r.storage_offset() % 2 == 0 else r.contiguous())


def _dim(x, d, op):
    n = builtins.max(x.dim(), 1)
    if not -n <= d < n:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d % n


def where(cond, x, y):
    cond = _C.check_tensor(cond, "where", "condition")
    if cond.dtype != _dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{cond.dtype}")
    dt = _complex.result_type(x, y)
    like = x if isinstance(x, _C.TensorBase) else y if isinstance(y, _C.TensorBase) else cond
    return _as_complex(_C._where(cond.unsqueeze(-1), _real_view(x, dt, like), _real_view(y, dt, like)))


def masked_fill(x, mask, value, inplace):
    out = where(_C.check_tensor(mask, "masked_fill", "mask"), value, x)
    if not inplace:
        return out
    x.copy_(out)
    return x


def masked_select(x, mask):
    shape = _C.broadcast_shapes(x.shape, mask.shape)
    return _as_complex(_complex.view_as_real(x.expand(shape))[mask.expand(shape)])


def nonzero(x, as_tuple):
    from monoflow import _complex_math

    return _complex_math.ne(x, 0).nonzero(as_tuple=as_tuple)


# ---------------------------------------------------------------- indexing

def is_advanced(idx):
    """Whether an index needs the index/index_put kernels (tensors, lists, arrays)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    return builtins.any(isinstance(i, (_C.TensorBase, list, np.ndarray)) for i in items)


def getitem_on_real_view(x, idx):
    """Advanced indexes, and (for autograd: their backward writes through
    index_put) slices with a step on a tensor that requires grad."""
    if is_advanced(idx):
        return True
    items = idx if isinstance(idx, tuple) else (idx,)
    return x.requires_grad and builtins.any(isinstance(i, slice) and i.step not in (None, 1) for i in items)


def _real_index(idx):
    # the same index over the real view, keeping its trailing pair dim whole
    items = idx if isinstance(idx, tuple) else (idx,)
    if builtins.any(i is Ellipsis for i in items):
        return items + (slice(None),)
    return items + (Ellipsis, slice(None))


def getitem(x, idx):
    return _as_complex(_complex.view_as_real(x)[_real_index(idx)])


def setitem(x, idx, value):
    if x.requires_grad or (isinstance(value, _C.TensorBase) and value.requires_grad):
        raise NotImplementedError("index_put_(): assignment with an index tensor into a complex tensor is not "
                                  "differentiable in monoflow; build the result with where() or index_put()")
    _complex._raw_as_real(x)[_real_index(idx)] = _real_view(value, x.dtype, x).detach()


def index_put(x, indices, values, accumulate, inplace):
    # in place on the raw memory (no autograd), out of place on a differentiable copy
    r = _complex._raw_as_real(x) if inplace else _complex.view_as_real(x).clone()
    out = _C.index_put_(r, tuple(indices), _real_view(values, x.dtype, x), accumulate)
    return x if inplace else _as_complex(out)


def index_select(x, dim, index):
    return _as_complex(_C.index_select(_complex.view_as_real(x), _dim(x, dim, "index_select"), index))


def _pair_index(index):
    index = _C.check_tensor(index, "gather", "index")
    return index.unsqueeze(-1).expand(*index.shape, 2)


def gather(x, dim, index):
    return _as_complex(_C.gather(_complex.view_as_real(x), _dim(x, dim, "gather"), _pair_index(index)))


def scatter(x, dim, index, src, add, inplace):
    op = ("scatter_add" if add else "scatter") + ("_" if inplace else "")
    d = _dim(x, dim, op)
    idx = _pair_index(index)
    if isinstance(src, _C.TensorBase):
        s = _real_view(src, x.dtype, x)
    else:
        s = _real_view(_complex.full(tuple(index.shape), src, x.dtype, x.device), x.dtype, x)
    s = s[tuple(slice(0, n) for n in idx.shape)]
    if inplace:
        r = _complex._raw_as_real(x)
        (_C.scatter_add(r, d, idx, s, True) if add else _C.scatter(r, d, idx, s, True))
        return x
    r = _complex.view_as_real(x)
    return _as_complex(_C.scatter_add(r, d, idx, s) if add else _C.scatter(r, d, idx, s))


# ---------------------------------------------------------------- shape ops

def expand(x, sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = tuple(sizes[0])
    return _complex.view_as_complex(_complex.view_as_real(x).expand(*sizes, 2))


def repeat(x, reps):
    reps = [reps] if isinstance(reps, int) else list(reps)
    if len(reps) < x.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    return _as_complex(_complex.view_as_real(x).repeat(*reps, 1))


def tile(x, reps):
    reps = [reps] if isinstance(reps, int) else list(reps)
    return repeat(x, [1] * (x.dim() - len(reps)) + reps)


def flip(x, dims):
    dims = [dims] if isinstance(dims, int) else list(dims)
    return _as_complex(_C.flip(_complex.view_as_real(x), [_dim(x, d, "flip") for d in dims]))


def _triangle(op, x, k):
    _C.check_tensor(x, op, "input", 1)
    if x.dim() < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    ones = _C._full(tuple(x.shape[-2:]), True, _dtypes.bool_, x.device)
    return where(_C.tril(ones, k) if op == "tril" else _C.triu(ones, k), x, 0)


def tril(x, diagonal, inplace=False):
    out = _triangle("tril", x, diagonal)
    return x.copy_(out) if inplace else out


def triu(x, diagonal, inplace=False):
    out = _triangle("triu", x, diagonal)
    return x.copy_(out) if inplace else out


# ---------------------------------------------------------------- products

def prod(x, dim, keepdim, dtype):
    """The product along dim (all elements when None) as a tree of complex
    multiplications: exact zeros, and gradients from the multiplications."""
    if dtype is not None:
        x = x.to(dtype)
    if dim is None:
        r = x.reshape(-1)
        d = 0
    else:
        d = _dim(x, dim, "prod")
        r = x.movedim(d, -1) if x.dim() else x.reshape(1)
    from monoflow import ops_shape

    while r.shape[-1] > 1:
        h = r.shape[-1] // 2
        prods = r[..., :h] * r[..., h:2 * h]
        r = ops_shape.cat([prods, r[..., 2 * h:]], -1) if r.shape[-1] % 2 else prods
    if r.shape[-1] == 0:
        r = _complex.full(tuple(r.shape[:-1]) + (1,), 1, x.dtype, x.device)
    out = r[..., 0]
    if dim is None:
        return out.reshape([1] * x.dim()) if keepdim else out
    return out.unsqueeze(d) if keepdim and x.dim() else out


def cumprod(x, dim, dtype):
    """Running products as a doubling scan of complex multiplications
    (log2(n) steps: exact zeros, and gradients from the multiplications)."""
    if dtype is not None:
        x = x.to(dtype)
    if x.dim() == 0:
        return x.clone()
    from monoflow import ops_shape

    d = _dim(x, dim, "cumprod")
    r = x.movedim(d, -1)
    n, shift = r.shape[-1], 1
    while shift < n:
        r = ops_shape.cat([r[..., :shift], r[..., shift:] * r[..., :n - shift]], -1)
        shift *= 2
    return r.movedim(-1, d)


def cumsum(x, dim, dtype):
    if dtype is not None:
        x = x.to(dtype)
    if x.dim() == 0:
        return x.clone()
    return _as_complex(_complex.view_as_real(x).cumsum(_dim(x, dim, "cumsum")))
