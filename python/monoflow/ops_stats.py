"""Statistics and comparisons composed of the core's reductions and sort:
nansum/nanmean, median/nanmedian, quantile/nanquantile, mode, kthvalue,
aminmax, msort, cummax/cummin, logcumsumexp, diff, trapezoid (trapz),
cumulative_trapezoid, equal, isclose/allclose, count_nonzero, cov, corrcoef.
The values that select elements (median, mode, kthvalue, cummax, ...) are
gathered from the input by index, so their gradient goes to the chosen
elements, as in torch."""
import math

from monoflow import _C, _dtypes
from monoflow import _composite as _c
from monoflow import ops_math as _m
from monoflow import ops_reduce as _r

__all__ = ["nansum", "nanmean", "median", "nanmedian", "quantile", "nanquantile", "mode", "kthvalue", "aminmax",
           "msort", "cummax", "cummin", "logcumsumexp", "diff", "trapezoid", "trapz", "cumulative_trapezoid",
           "equal", "isclose", "allclose", "count_nonzero", "cov", "corrcoef"]


_result_type = _r._structseq


_median_t, _nanmedian_t, _mode_t, _kthvalue_t = (_result_type(n) for n in ("median", "nanmedian", "mode",
                                                                             "kthvalue"))
_cummax_t, _cummin_t = _result_type("cummax"), _result_type("cummin")
_aminmax_t = _result_type("aminmax", ("min", "max"))


def _check(op, x):
    if not isinstance(x, _C.TensorBase):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x


# ---------------------------------------------------------------- NaN-ignoring reductions

def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """sum, with NaNs counted as zero."""
    x = _check("nansum", input)
    if x.dtype.is_floating_point:
        x = _m.where(_m.isnan(x), 0, x)
    return x.sum(dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """mean of the non-NaN elements (NaN where there are none)."""
    x = _check("nanmean", input)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {x.dtype}")
    valid = ~_m.isnan(x)
    return nansum(x, dim, keepdim, dtype=dtype) / valid.sum(dim, keepdim).to(dtype or x.dtype)


# ---------------------------------------------------------------- order statistics

def _sorted_last(x, d):
    """x with dim d moved last, sorted (NaN last, as the core's sort orders them), and the argsort."""
    xt = x.movedim(d, -1) if x.dim() else x.reshape(1)
    idx = xt.argsort(-1, stable=True)
    return xt, idx


def _pick(xt, idx, k, d, keepdim, nd):
    """The values and original indices at sorted position k (a tensor of the
    batch's shape + (1,)) of the last dim of xt, put back at dim d."""
    chosen = idx.gather(-1, k)
    values = xt.gather(-1, chosen)
    if nd == 0:
        return values.reshape(()), chosen.reshape(())
    values, chosen = values.movedim(-1, d), chosen.movedim(-1, d)
    if not keepdim:
        values, chosen = values.squeeze(d), chosen.squeeze(d)
    return values, chosen


def _median(op, input, dim, keepdim, ignore_nan):
    x = _check(op, input)
    if dim is None:
        flat = x.reshape(-1)
        if flat.numel() == 0:
            return _C._full((), math.nan, x.dtype, x.device) if x.dtype.is_floating_point else flat.sum()
        return _median(op, flat, 0, False, ignore_nan)[0]
    d = _c.wrap_dim(op, dim, x.dim())
    xt, idx = _sorted_last(x, d)
    n = xt.shape[-1]
    if n == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    if x.dtype.is_floating_point:
        nans = _m.isnan(xt).sum(-1, keepdim=True)
        if ignore_nan:  # the lower median of the non-NaN values (NaN when all are NaN)
            valid = nans.neg() + n
            k = _m.where(valid > 0, (valid - 1) // 2, 0)
        else:  # a NaN anywhere makes the median NaN: pick the first NaN
            k = _m.where(nans > 0, nans.neg() + n, (n - 1) // 2)
    else:
        k = _C._full(tuple(xt.shape[:-1]) + (1,), (n - 1) // 2, _dtypes.ALIASES["int64"], x.device)
    return _pick(xt, idx, k, d, keepdim, x.dim())


def median(input, dim=None, keepdim=False):
    """The lower median: of all elements (a 0-D tensor), or along dim as (values, indices)."""
    if dim is None:
        return _median("median", input, None, False, False)
    return _median_t(*_median("median", input, dim, keepdim, False))


def nanmedian(input, dim=None, keepdim=False):
    """median ignoring NaNs."""
    if dim is None:
        return _median("nanmedian", input, None, False, True)
    return _nanmedian_t(*_median("nanmedian", input, dim, keepdim, True))


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along dim (k from 1), as (values, indices)."""
    x = _check("kthvalue", input)
    k = _C.check_int(k, "kthvalue", "k", 2)
    d = _c.wrap_dim("kthvalue", dim, x.dim())
    xt, idx = _sorted_last(x, d)
    n = xt.shape[-1]
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    kk = _C._full(tuple(xt.shape[:-1]) + (1,), k - 1, _dtypes.ALIASES["int64"], x.device)
    return _kthvalue_t(*_pick(xt, idx, kk, d, keepdim, x.dim()))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    x = _check(op, input)
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
                         f"{interpolation}")
    scalar_q = not isinstance(q, _C.TensorBase)
    qs = [_C.check_float(q, op, "q", 2)] if scalar_q else [float(v) for v in q.reshape(-1).tolist()]
    if not scalar_q and q.dim() > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    if any(not 0 <= v <= 1 for v in qs):
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if dim is None:
        src, d, kd = x.reshape(-1), 0, False
    else:
        src, d, kd = x, _c.wrap_dim(op, dim, x.dim()), keepdim
    xt, idx = _sorted_last(src, d)
    vals = xt.gather(-1, idx)
    n = xt.shape[-1]
    if n == 0:
        raise IndexError(f"{op}() input tensor must be non-empty")
    nans = _m.isnan(vals).sum(-1, keepdim=True)
    count = (nans.neg() + n) if ignore_nan else _C._full(tuple(nans.shape), n, nans.dtype, x.device)
    outs = []
    for qv in qs:
        pos = (count - 1).clamp(min=0).to(x.dtype) * qv
        lo, hi = _m.floor(pos), _m.ceil(pos)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = _m.round(pos)
        lo_v, hi_v = vals.gather(-1, lo.to(_dtypes.ALIASES["int64"])), vals.gather(-1, hi.to(_dtypes.ALIASES["int64"]))
        w = 0.5 if interpolation == "midpoint" else (pos - lo)
        out = lo_v + (hi_v - lo_v) * w if interpolation in ("linear", "midpoint") else lo_v
        bad = (count == 0) if ignore_nan else (nans > 0)
        out = _m.where(bad, math.nan, out)
        if dim is None:
            out = out.reshape((1,) * x.dim() if keepdim else ())
        else:
            out = out.movedim(-1, d) if x.dim() else out.reshape(())
            if not kd and x.dim():
                out = out.squeeze(d)
        outs.append(out)
    return outs[0] if scalar_q or q.dim() == 0 else _C.stack(outs, 0)  # (a 0-d q adds no dim, as a number)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q a number or a 1-D tensor in [0, 1]); NaN if the data holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile ignoring NaNs."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along dim (the smallest one on ties) and an index where it occurs."""
    x = _check("mode", input)
    d = _c.wrap_dim("mode", dim, x.dim())
    if x.dim() and x.shape[d] == 0:  # (named here: the argmax below reduces a moved dim)
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    xt, idx = _sorted_last(x, d)
    vals = xt.gather(-1, idx)
    # how often each sorted value occurs in its row: O(n^2) comparisons per row
    counts = (vals.unsqueeze(-1) == vals.unsqueeze(-2)).sum(-1)
    k = counts.argmax(-1, keepdim=True)  # first maximum: the smallest of the tied values
    # torch reports the last position where the value occurs
    last = (vals == vals.gather(-1, k)).to(_dtypes.ALIASES["int64"]).cumsum(-1).argmax(-1, keepdim=True)
    return _mode_t(*_pick(xt, idx, last, d, keepdim, x.dim()))


def aminmax(input, *, dim=None, keepdim=False):
    """(amin, amax) in one call."""
    x = _check("aminmax", input)
    if dim is None:
        if keepdim:
            return _aminmax_t(x.amin(tuple(range(x.dim())), True), x.amax(tuple(range(x.dim())), True))
        return _aminmax_t(x.amin(), x.amax())
    return _aminmax_t(x.amin(dim, keepdim), x.amax(dim, keepdim))


def msort(input):
    return _check("msort", input).sort(0).values


# ---------------------------------------------------------------- scans

def _cumext(op, input, dim, greater):
    """cummax/cummin by a log-depth scan (Hillis-Steele): values gathered by index."""
    x = _check(op, input)
    d = _c.wrap_dim(op, dim, x.dim())
    xt = x.movedim(d, -1) if x.dim() else x.reshape(1)
    n = xt.shape[-1]
    v = xt.detach()
    i = _C._arange(0, n, 1, _dtypes.ALIASES["int64"], x.device).expand(tuple(xt.shape)).contiguous()
    floating = x.dtype.is_floating_point
    shift = 1
    while shift < n:
        # combine each position with the one `shift` earlier: the earlier wins only
        # when strictly better (so ties keep the later index, as torch does), and
        # a NaN wins over a number
        ev, ei = v.narrow(-1, 0, n - shift), i.narrow(-1, 0, n - shift)
        lv, li = v.narrow(-1, shift, n - shift), i.narrow(-1, shift, n - shift)
        better = (ev > lv) if greater else (ev < lv)
        if floating:
            better = (better | _m.isnan(ev)) & ~_m.isnan(lv)
        head_v, head_i = v.narrow(-1, 0, shift), i.narrow(-1, 0, shift)
        v = _C.cat([head_v, _m.where(better, ev, lv)], -1)
        i = _C.cat([head_i, _m.where(better, ei, li)], -1)
        shift *= 2
    values = xt.gather(-1, i)
    if x.dim() == 0:
        return values.reshape(()), i.reshape(())
    return values.movedim(-1, d), i.movedim(-1, d)


def cummax(input, dim):
    """Running maximum along dim, as (values, indices)."""
    return _cummax_t(*_cumext("cummax", input, dim, True))


def cummin(input, dim):
    """Running minimum along dim, as (values, indices)."""
    return _cummin_t(*_cumext("cummin", input, dim, False))


def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim, by a log-depth scan of logaddexp
    (stable for any range of values)."""
    from monoflow.ops_pointwise import logaddexp

    x = _check("logcumsumexp", input)
    if x.dtype.is_complex:  # (torch computes it; the cast below dropped the imaginary part)
        raise NotImplementedError(f"logcumsumexp(): not implemented for complex tensors (got {x.dtype})")
    if not x.dtype.is_floating_point:
        x = x.to(_C.get_default_dtype())
    if x.dtype != _dtypes.float64:
        # Each scan step's gradient is exp(x - out); at |x| ~ 1000 float32
        # rounds that difference to 1e-4 and log2(n) steps compound it. The
        # scan runs in float64 and rounds once, so float32 gets its own
        # rounding (torch's float32 gradient is off by up to 1e-3 there).
        return logcumsumexp(x.double(), dim).to(x.dtype)
    d = _c.wrap_dim("logcumsumexp", dim, x.dim())
    v = x.movedim(d, -1) if x.dim() else x.reshape(1)
    n, shift = v.shape[-1], 1
    while shift < n:
        v = _C.cat([v.narrow(-1, 0, shift), logaddexp(v.narrow(-1, shift, n - shift), v.narrow(-1, 0, n - shift))],
                   -1)
        shift *= 2
    return v.movedim(-1, d) if x.dim() else v.reshape(())


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (after prepending/appending)."""
    x = _check("diff", input)
    n = _C.check_int(n, "diff", "n", 2)
    if x.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = _c.wrap_dim("diff", dim, x.dim())
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        parts = [p if isinstance(p, _C.TensorBase) else _C._full(tuple(x.shape[:d]) + (1,) + tuple(x.shape[d + 1:]),
                                                                p, x.dtype, x.device) for p in parts]
        x = _C.cat(parts, d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = (hi != lo) if x.dtype.name == "bool" else hi - lo
    return x


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along dim, with spacing dx (default 1) or sample points x."""
    return _trapezoid("trapezoid", y, x, dx, dim)


def _trapezoid(op, y, x, dx, dim):
    yy = _check(op, y)
    if yy.dim() == 0 or (isinstance(x, _C.TensorBase) and x.dim() == 0):
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions")
    d = _c.wrap_dim(op, dim, yy.dim())
    n = yy.shape[d]
    if n == 0:
        return yy.sum(d) * 0
    pair = yy.narrow(d, 1, n - 1) + yy.narrow(d, 0, n - 1)
    if x is None or not isinstance(x, _C.TensorBase):
        spacing = 1.0 if x is None and dx is None else _C.check_float(dx if dx is not None else x, op,
                                                                       "dx" if dx is not None else "x")
        return pair.sum(d) * (spacing / 2.0)
    dxs = diff(x, dim=d if x.dim() == yy.dim() else -1)
    if x.dim() == 1 and yy.dim() > 1:
        view = [1] * yy.dim()
        view[d] = n - 1
        dxs = dxs.reshape(view)
    return (pair * dxs).sum(d) / 2.0


def trapz(y, x=None, *, dx=None, dim=-1):
    return _trapezoid("trapz", y, x, dx, dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoid-rule integral along dim (one element fewer)."""
    op = "cumulative_trapezoid"
    yy = _check(op, y)
    if yy.dim() == 0 or (isinstance(x, _C.TensorBase) and x.dim() == 0):
        raise IndexError(f"{op}(): Dimension specified as {dim} but tensor has no dimensions")
    if x is not None and dx is not None:
        raise TypeError(f"{op}(): expected the sample points 'x' or the spacing 'dx', not both")
    d = _c.wrap_dim(op, dim, yy.dim())
    n = yy.shape[d]
    pair = yy.narrow(d, 1, max(n - 1, 0)) + yy.narrow(d, 0, max(n - 1, 0))
    if x is None or not isinstance(x, _C.TensorBase):
        spacing = _c.number(op, "dx", 3, dx) if dx is not None else 1.0 if x is None else _c.number(op, "x", 2, x)
        return (pair * (spacing / 2.0)).cumsum(d)
    dxs = diff(x, dim=d if x.dim() == yy.dim() else -1)
    if x.dim() == 1 and yy.dim() > 1:
        view = [1] * yy.dim()
        view[d] = n - 1
        dxs = dxs.reshape(view)
    return (pair * dxs / 2.0).cumsum(d)


# ---------------------------------------------------------------- comparisons

def equal(input, other):
    """True if the two tensors have the same shape and elements (a Python bool)."""
    _check("equal", input)
    _check("equal", other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return bool((input == other).all().item())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close)."""
    return _isclose("isclose", input, other, rtol, atol, equal_nan)


def _isclose(op, input, other, rtol, atol, equal_nan):
    a, b = _check(op, input), other
    rtol, atol = _C.check_float(rtol, op, "rtol", 3), _C.check_float(atol, op, "atol", 4)
    _c.boolean(op, "equal_nan", 5, equal_nan)
    if not isinstance(b, _C.TensorBase):
        if a.dtype.is_complex:
            from monoflow import _complex

            b = _complex.full((), b, a.dtype, a.device)
        else:
            b = _C._full((), b, a.dtype, a.device)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{op}(): {_dtypes.torch_name(a.dtype)} did not match {_dtypes.torch_name(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"{op}(): rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"{op}(): atol must be greater than or equal to zero, but got {atol}")
    if a.dtype.is_complex:
        from monoflow import _complex_math

        return _complex_math.isclose(a, b, rtol, atol, equal_nan)
    same = a == b
    if a.dtype.name == "bool":
        return same
    if not a.dtype.is_floating_point:
        a, b = a.double(), b.double()
    close = same | (_m.isfinite(a) & _m.isfinite(b) & (_m.abs(a - b) <= atol + rtol * _m.abs(b)))
    if equal_nan:
        close = close | (_m.isnan(a) & _m.isnan(b))
    return close


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """isclose everywhere (a Python bool)."""
    return bool(_isclose("allclose", input, other, rtol, atol, equal_nan).all().item())


def count_nonzero(input, dim=None):
    """The number of non-zero elements (over dim, an int or a tuple)."""
    x = _check("count_nonzero", input)
    nz = x != 0
    if dim is None:
        return nz.sum(dtype=_dtypes.ALIASES["int64"])
    return nz.sum(dim, dtype=_dtypes.ALIASES["int64"])


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of input (variables) over its columns (observations)."""
    _C.check_tensor(input, "cov", "input", 1)
    _C.check_optional_tensor(fweights, "cov", "fweights", 0)
    _C.check_optional_tensor(aweights, "cov", "aweights", 0)
    correction = _C.check_int(correction, "cov", "correction")
    x = _check("cov", input)
    if x.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{x.dim()} dimensions")
    x = x.reshape(1, -1) if x.dim() < 2 else x
    if x.dtype == _dtypes.bool_:  # (as torch; it was counted as 0/1)
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if not (x.dtype.is_floating_point or x.dtype.is_complex):  # (complex stays: a cast dropped the imaginary part)
        x = x.to(_C.get_default_dtype())
    real = x.dtype.to_real() if x.dtype.is_complex else x.dtype  # the weights' and the norm's dtype
    w = None
    if fweights is not None:
        w = fweights.to(real)
    if aweights is not None:
        w = aweights.to(real) if w is None else w * aweights.to(real)
    if w is None:
        n = x.shape[1]
        mean = x.mean(1, keepdim=True)
        xc = x - mean
        xh = xc.conj().transpose(0, 1)  # (the conjugate transpose: a no-op conj for real x)
        return (xc.matmul(xh) / max(n - correction, 0)).squeeze() if x.shape[0] == 1 else \
            xc.matmul(xh) / max(n - correction, 0)
    wsum = w.sum()
    mean = (x * w).sum(1, keepdim=True) / wsum
    xc = x - mean
    if correction == 0:
        norm = wsum
    elif aweights is None:
        norm = wsum - correction
    else:
        norm = wsum - correction * (w * aweights.to(real)).sum() / wsum
    out = (xc * w).matmul(xc.conj().transpose(0, 1)) / norm.clamp(min=0)
    return out.squeeze() if x.shape[0] == 1 else out


def corrcoef(input):
    """Pearson correlation coefficients of the rows of input."""
    _C.check_tensor(input, "corrcoef", "input", 1)
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    try:
        c = cov(input)
    except (TypeError, ValueError, RuntimeError) as e:  # cov's words would name cov
        if not str(e).startswith("cov(): ") or e.args != (str(e),):
            raise
        raise type(e)("corrcoef(): " + str(e)[len("cov(): "):]) from None
    if c.dim() == 0:
        return c / c
    d = _m.sqrt(_shape_diag(c))
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


def _shape_diag(m):
    from monoflow import ops_shape

    return ops_shape.diagonal(m)


# ---------------------------------------------------------------- Tensor methods

class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def logcumsumexp_(self, dim):
        return self.copy_(logcumsumexp(self, dim))


for _fn in (nansum, nanmean, median, nanmedian, quantile, nanquantile, mode, kthvalue, aminmax, msort, cummax,
            cummin, logcumsumexp, diff, equal, isclose, allclose, count_nonzero, cov, corrcoef):
    setattr(TensorMethods, _fn.__name__, _c.method(_fn))
del _fn
