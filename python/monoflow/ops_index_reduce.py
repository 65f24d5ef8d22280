"""index_reduce: source's slices reduced ('prod', 'mean', 'amax', 'amin') into input at `index`
along `dim`, with torch's gradients.

Each target slice i reduces a group: input's slice i (include_self=True) and the source slices j
with index[j] == i. The groups are gathered on the host with numpy; backward recomputes them, so
the gradients are exact (prod: product of the other members, zeros included; amax/amin: shared
evenly among the members equal to the result, as torch).
"""
import numpy as np

from monoflow import _C
from monoflow import _composite as _c

__all__ = ["index_reduce"]

_REDUCES = ("prod", "mean", "amax", "amin")


def _groups(index, n):
    """{target slice: source slice numbers} for the indices in range."""
    out = {}
    for j, i in enumerate(index.tolist()):
        if not -n <= i < n:
            raise IndexError(f"index_reduce(): index out of range in self: index {i} for dimension size {n}")
        out.setdefault(i % n, []).append(j)
    return out


def _forward(x, src, groups, reduce, include_self):
    """x, src: numpy with the reduced dim first."""
    out = x.copy()
    for i, js in groups.items():
        members = ([x[i]] if include_self else []) + [src[j] for j in js]
        stack = np.stack(members)
        if reduce == "prod":
            out[i] = np.prod(stack, axis=0)
        elif reduce == "amax":
            out[i] = np.max(stack, axis=0)
        elif reduce == "amin":
            out[i] = np.min(stack, axis=0)
        else:
            total = np.sum(stack, axis=0, dtype=np.float64 if x.dtype.kind in "iub" else x.dtype)
            mean = total / len(members)
            out[i] = np.floor(mean) if x.dtype.kind in "iub" else mean
    return out


def _exclusive_prod(stack):
    # product of all members but one, for each member: prefix times suffix products (zero-safe)
    k = stack.shape[0]
    ones = np.ones_like(stack[:1])
    pre = np.concatenate([ones, np.cumprod(stack, axis=0)[:-1]], axis=0)
    suf = np.concatenate([np.cumprod(stack[::-1], axis=0)[:-1][::-1], ones], axis=0) if k > 1 else ones
    return pre * suf


def _backward(x, src, out, g, groups, reduce, include_self):
    gx = g.copy()
    gs = np.zeros_like(src)
    for i, js in groups.items():
        members = ([x[i]] if include_self else []) + [src[j] for j in js]
        stack = np.stack(members)
        if reduce == "prod":
            w = _exclusive_prod(stack)
        elif reduce == "mean":
            w = np.full_like(stack, 1.0 / len(members))
        else:
            hit = (stack == out[i]).astype(stack.dtype)
            count = hit.sum(axis=0, keepdims=True)
            if not include_self:  # torch counts a tie of input's own value even when it is left out
                count = count + (x[i] == out[i])
            w = hit / count
        contrib = w * g[i]
        if include_self:
            gx[i] = contrib[0]
            contrib = contrib[1:]
        else:
            gx[i] = 0
        for j, c in zip(js, contrib):
            gs[j] += c
    return gx, gs


def _make_function():
    from monoflow.autograd.function import Function

    class IndexReduce(Function):
        @staticmethod
        def forward(ctx, x, src, d, index, reduce, include_self):
            # copies: index_reduce_ overwrites x's memory (shared by numpy()) before backward runs
            xn = np.moveaxis(np.array(x.detach().cpu().numpy()), d, 0)
            sn = np.moveaxis(np.array(src.detach().cpu().numpy()), d, 0)
            groups = _groups(index, xn.shape[0])
            on = _forward(xn, sn, groups, reduce, include_self)
            ctx.state = (xn, sn, on, groups, d, reduce, include_self, x.device, x.dtype)
            return _c.host_tensor(np.asarray(np.moveaxis(on, 0, d), order="C"), x.dtype, x.device)

        @staticmethod
        def backward(ctx, grad):
            xn, sn, on, groups, d, reduce, include_self, device, dtype = ctx.state
            g = np.moveaxis(grad.detach().cpu().numpy(), d, 0)
            gx, gs = _backward(xn, sn, on, g, groups, reduce, include_self)
            back = [_c.host_tensor(np.asarray(np.moveaxis(a, 0, d), order="C"), dtype, device) for a in (gx, gs)]
            return back[0], back[1], None, None, None, None

    return IndexReduce


_fn_cache = []


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """input with source's slices reduced in at `index` along `dim`; reduce is ``'prod'``, ``'mean'``,
    ``'amax'`` or ``'amin'``; ``include_self=False`` leaves input's own values out of the slices
    that `index` names. Differentiable in input and source (floating dtypes).

    Example::

        >>> src = flow.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]])
        >>> flow.index_reduce(flow.ones(3, 2), 0, flow.tensor([0, 0, 2]), src, "prod")
        tensor([[ 8., 15.],
                [ 1.,  1.],
                [ 6.,  7.]])
    """
    _C.check_tensor(input, "index_reduce", "input", 1)
    _C.check_tensor(index, "index_reduce", "index", 3)
    _C.check_tensor(source, "index_reduce", "source", 4)
    if not isinstance(reduce, str):
        raise TypeError(f"index_reduce(): argument 'reduce' (position 5) must be str, not {type(reduce).__name__}")
    if reduce not in _REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if not isinstance(include_self, bool):
        raise TypeError(f"index_reduce(): argument 'include_self' must be bool, not {type(include_self).__name__}")
    if index.dim() > 1 or index.dtype.is_floating_point:
        raise IndexError("index_reduce(): Index is supposed to be a vector of integers")
    if str(index.dtype).split(".")[-1] not in ("int32", "int64"):
        raise RuntimeError(f"index_reduce(): Expected dtype int32/int64 for index but got: {index.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_reduce(): self ({input.dtype}) and source ({source.dtype}) must have the "
                           "same scalar type")
    x, src, index = input, source, index.reshape(-1)
    nd = max(x.dim(), 1)
    d = _c.wrap_dim("index_reduce", dim, nd)
    if x.dim() == 0:
        x = x.reshape(1)
    if src.dim() == 0:
        src = src.reshape(1)
    if src.dim() != x.dim():
        raise IndexError("index_reduce(): Source/destination tensor must have same number of dimensions")
    if src.shape[d] != index.shape[0]:
        raise RuntimeError(f"index_reduce(): Number of indices ({index.shape[0]}) should be equal to "
                           f"source.size(dim) ({src.shape[d]})")
    for k in range(x.dim()):
        if k != d and src.shape[k] != x.shape[k]:
            raise RuntimeError(f"index_reduce(): Source/destination tensor must have same slice shapes. "
                               f"Destination slice shape: {list(x.shape)} at dimension {d} and source slice "
                               f"shape: {list(src.shape)} at dimension {d}.")
    if not _fn_cache:
        _fn_cache.append(_make_function())
    out = _fn_cache[0].apply(x, src, d, index.cpu(), reduce, include_self)
    return out.reshape(()) if input.dim() == 0 else out


class TensorMethods:
    """Mixed into monoflow.Tensor."""


TensorMethods.index_reduce = _c.method(index_reduce)
TensorMethods.index_reduce_ = _c.inplace_method(index_reduce)
TensorMethods.index_reduce_.__doc__ = """In-place version of :meth:`index_reduce` (self(dim, index, source, reduce,
include_self=True)): writes the result into ``self`` and returns ``self``.

Example::

    >>> x = flow.ones(3)
    >>> x.index_reduce_(0, flow.tensor([1, 1]), flow.tensor([2.0, 5.0]), "amax")
    tensor([1., 5., 1.])
"""
