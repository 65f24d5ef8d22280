"""Set and counting ops: unique, unique_consecutive, bincount, histc,
searchsorted and bucketize. None of them is differentiable (as in torch),
except bincount's weights sum through scatter_add."""
import numpy as np

from monoflow import _C, _dtypes
from monoflow import _composite as _c

__all__ = ["unique", "unique_consecutive", "bincount", "histc", "searchsorted", "bucketize"]

_INT64 = _dtypes.ALIASES["int64"]


def _check(op, x, name="input"):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")
    return x


def _runs(vals):
    """For a 1-D tensor: the mask of the first element of each run of equal values."""
    n = vals.shape[0]
    if n == 0:
        return _C._full((0,), True, _dtypes.ALIASES["bool"], vals.device)
    head = _C._full((1,), True, _dtypes.ALIASES["bool"], vals.device)
    return _C.cat([head, vals.narrow(0, 1, n - 1) != vals.narrow(0, 0, n - 1)], 0)


def _grouped(vals, order, shape, return_inverse, return_counts):
    """unique values of sorted (or run-grouped) 1-D `vals`; `order` maps them back to the input."""
    x = vals.detach()
    first = _runs(x)
    group = first.to(_INT64).cumsum(0) - 1
    out = [x.masked_select(first)]
    if return_inverse:
        inverse = _C._full((x.shape[0],), 0, _INT64, x.device)
        inverse = inverse.scatter(0, order, group) if order is not None else group
        out.append(inverse.reshape(shape))
    if return_counts:
        k = out[0].shape[0]
        ones = _C._full((x.shape[0],), 1, _INT64, x.device)
        out.append(_C._full((k,), 0, _INT64, x.device).scatter_add(0, group, ones))
    return out[0] if len(out) == 1 else tuple(out)


def _flags(op, return_inverse, return_counts):
    # (an array's truth value is ambiguous: a ValueError naming no op)
    return _c.flag(op, "return_inverse", return_inverse), _c.flag(op, "return_counts", return_counts)


def _unique_dim(op, x, dim, return_inverse, return_counts, consecutive):
    dim = _C.check_int(dim, op, "dim")
    nd = x.dim()
    if nd == 0:  # (numpy's AxisError would name no op)
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions")
    if not -max(nd, 1) <= dim < max(nd, 1):
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{-max(nd, 1)}, "
                         f"{max(nd, 1) - 1}], but got {dim})")
    d = dim % max(nd, 1)
    if x.numel() == 0 and x.shape[d] != 0:
        raise RuntimeError(f"{op}(): There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                           f"applied")
    arr = np.moveaxis(x.detach().cpu().numpy(), d, 0)
    rows = arr.reshape(arr.shape[0], int(np.prod(arr.shape[1:], dtype=np.int64)))  # (-1 fails for an empty arr)
    if consecutive:
        keep = np.ones(rows.shape[0], dtype=bool)
        keep[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        starts = np.flatnonzero(keep)
        uniq = rows[starts]
        inverse = np.cumsum(keep) - 1
        counts = np.diff(np.append(starts, rows.shape[0]))
    else:
        uniq, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    values = np.moveaxis(uniq.reshape((uniq.shape[0],) + arr.shape[1:]), 0, d)
    out = [_c.host_tensor(values, x.dtype, x.device)]
    if return_inverse:
        out.append(_c.host_tensor(inverse.reshape(-1).astype(np.int64), _INT64, x.device))
    if return_counts:
        out.append(_c.host_tensor(counts.astype(np.int64), _INT64, x.device))
    return out[0] if len(out) == 1 else tuple(out)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements (sorted; the result is sorted also for
    sorted=False, which torch allows), optionally with the index of each
    input element's value in them and each value's count; with dim, the
    distinct slices along dim."""
    x = _check("unique", input)
    _c.flag("unique", "sorted", sorted)
    return_inverse, return_counts = _flags("unique", return_inverse, return_counts)
    if dim is not None:
        return _unique_dim("unique", x, dim, return_inverse, return_counts, False)
    flat = x.detach().reshape(-1)
    if flat.dtype.name == "bool":
        vals, order = flat.to(_dtypes.ALIASES["uint8"]).sort(stable=True)
        vals = vals.to(flat.dtype)
    else:
        vals, order = flat.sort(stable=True)
    return _grouped(vals, order, tuple(x.shape), return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (or slices along dim) to one."""
    x = _check("unique_consecutive", input)
    return_inverse, return_counts = _flags("unique_consecutive", return_inverse, return_counts)
    if dim is not None:
        return _unique_dim("unique_consecutive", x, dim, return_inverse, return_counts, True)
    return _grouped(x.detach().reshape(-1), None, tuple(x.shape), return_inverse, return_counts)


def bincount(input, weights=None, minlength=0):
    """How often each value 0..max(input) occurs in the 1-D non-negative integer
    input (at least minlength bins); with weights, their sums per value."""
    x = _check("bincount", input)
    if x.dim() != 1 or x.dtype.is_floating_point or x.dtype.name == "bool":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    minlength = _C.check_int(minlength, "bincount", "minlength")
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0, got {minlength}")
    n = x.shape[0]
    if n and int(x.min().item()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    size = max(int(x.max().item()) + 1 if n else 0, minlength)
    idx = x.to(_INT64)
    if weights is None:
        ones = _C._full((n,), 1, _INT64, x.device)
        return _C._full((size,), 0, _INT64, x.device).scatter_add(0, idx, ones)
    w = _check("bincount", weights, "weights")
    if tuple(w.shape) != (n,):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    # torch gives float32 sums for float32 weights, float64 for all others
    # (and int64 zeros for an empty input)
    if n == 0:
        return _C._full((size,), 0, _INT64, x.device)
    dt = w.dtype if w.dtype.name == "float32" else _dtypes.ALIASES["float64"]
    return _C._full((size,), 0, dt, x.device).scatter_add(0, idx, w.to(dt))


def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """A histogram of `bins` equal bins over [min, max] (the data's range when
    both are 0); elements outside are ignored, max falls in the last bin."""
    x = _check("histc", input)
    bins = _C.check_int(bins, "histc", "bins", 2)
    lo, hi = _c.number("histc", "min", 3, min), _c.number("histc", "max", 4, max)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"histc(): \"histogram_cpu\" not implemented for '{x.dtype.name.capitalize()}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for bins")
    flat = x.detach().reshape(-1)
    if lo == hi and flat.numel():
        lo, hi = float(flat.min().item()), float(flat.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo}, {hi}] is not finite")
    inside = (flat >= lo) & (flat <= hi)
    vals = flat.masked_select(inside)
    # torch's arithmetic: (x - min) * bins / (max - min) in the input's floating dtype, so that a value
    # on a bin edge lands in the same bin (in float64, 3/7 + 0.1 of arange(1, 10) / 7 + 0.1 fell one bin lower)
    dt = vals.dtype if vals.dtype.is_floating_point else _dtypes.float64
    vals = vals.to(dt)
    lo_t, hi_t = _C._full((), lo, dt, x.device), _C._full((), hi, dt, x.device)
    b = ((vals - lo_t) * bins / (hi_t - lo_t)).floor().to(_INT64).clamp(0, bins - 1)
    ones = _C._full((b.shape[0],), 1, x.dtype, x.device)
    return _C._full((bins,), 0, x.dtype, x.device).scatter_add(0, b, ones)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """For each value, the index where it would be inserted into the sorted
    last dim of sorted_sequence (before equal elements, or after them with
    right=True / side='right')."""
    seq = _check("searchsorted", sorted_sequence, "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    if sorter is not None:
        seq = seq.gather(-1, sorter)
    scalar = not isinstance(input, _C.TensorBase)
    vals = _C._full((), input, seq.dtype, seq.device) if scalar else input
    if seq.dim() > 1 and (vals.dim() != seq.dim() or tuple(vals.shape[:-1]) != tuple(seq.shape[:-1])):
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           f"dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(seq.shape)} and input value tensor {list(vals.shape)}")
    out = _binary_search(seq, vals, right)
    return out.to(_dtypes.ALIASES["int32"]) if out_int32 else out


def _binary_search(seq, vals, right):
    # torch's (and OneFlow's) binary search, step for step, vectorised over the values: the same
    # answer for a sequence that is not sorted (their tests search unsorted ones) and for NaNs
    # (a NaN boundary or value compares false: the search moves right). A fixed number of steps
    # (no host read, so it traces in a graph); a finished lane keeps its start.
    n = seq.shape[-1]
    if seq.dim() == 1:
        shape = vals.shape
        s, v = seq.unsqueeze(0), vals.reshape(1, -1)
    else:
        shape, s, v = None, seq, vals
    start = _C._full(tuple(v.shape), 0, _INT64, v.device)
    end = _C._full(tuple(v.shape), n, _INT64, v.device)
    if n > 0 and v.numel() > 0:
        for _ in range(n.bit_length()):
            active = start < end
            mid = start + (end - start) // 2
            mid_val = s.gather(-1, mid.clamp(max=n - 1))
            go_right = ~(mid_val > v) if right else ~(mid_val >= v)
            start = start.masked_fill(active & go_right, 0) + (mid + 1) * (active & go_right)
            end = end.masked_fill(active & ~go_right, 0) + mid * (active & ~go_right)
    return start.reshape(shape) if shape is not None else start


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value given the sorted 1-D boundaries (searchsorted with the arguments swapped)."""
    b = _check("bucketize", boundaries, "boundaries")
    if b.dim() != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({b.dim()})")
    return searchsorted(b, input, out_int32=out_int32, right=right)


class TensorMethods:
    """Mixed into monoflow.Tensor."""


for _fn in (unique, unique_consecutive, bincount, histc):
    setattr(TensorMethods, _fn.__name__, _c.method(_fn))
del _fn
