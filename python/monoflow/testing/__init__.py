"""torch.testing for monoflow: ``assert_close`` (torch's per-dtype tolerances
and mismatch report) and ``make_tensor`` (random test inputs)."""
import math
import numbers

import numpy as np

from monoflow import _C, _complex, _creation, _dtypes, ops_math, ops_random, ops_shape

__all__ = ["assert_close", "make_tensor"]

# (rtol, atol) by dtype name, torch's defaults; dtypes not listed (ints, bool) compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _dtype_name(dtype):
    return repr(dtype).rsplit(".", 1)[-1]


def _as_tensor(x):
    if isinstance(x, _C.TensorBase):
        return x
    if isinstance(x, np.ndarray):
        return _creation.from_numpy(np.asarray(x, order="C"))
    return _creation.tensor(x)


def _fail(msg, default):
    if msg is None:
        raise AssertionError(default)
    raise AssertionError(msg(default) if callable(msg) else msg)


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, msg, where):
    a, b = _as_tensor(actual), _as_tensor(expected)
    for attr, va, vb in (("shape", tuple(a.shape), tuple(b.shape)),
                         ("device", a.device if check_device else None, b.device if check_device else None),
                         ("dtype", a.dtype if check_dtype else None, b.dtype if check_dtype else None)):
        if va != vb:
            _fail(msg, f"The values for attribute '{attr}' do not match{where}: {va} != {vb}.")
    if rtol is None:
        tols = [_TOLERANCES.get(_dtype_name(d), (0.0, 0.0)) for d in (a.dtype, b.dtype)]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
    x = a.detach().cpu().to(_dtypes.float64 if not a.is_complex() else a.dtype).numpy()
    y = b.detach().cpu().to(_dtypes.float64 if not b.is_complex() else b.dtype).numpy()
    x, y = x.astype(np.result_type(x, y)), y.astype(np.result_type(x, y))
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(x - y) <= atol + rtol * np.abs(y)
        close |= x == y  # equal infinities
        if equal_nan:
            close |= np.isnan(x) & np.isnan(y)
    if close.all():
        return
    total, bad = close.size, int((~close).sum())
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(x - y).astype(np.float64)
        rel_diff = abs_diff / np.abs(y)
    abs_diff = np.where(close, 0.0, np.nan_to_num(abs_diff, nan=np.inf))
    rel_diff = np.where(close, 0.0, np.nan_to_num(rel_diff, nan=np.inf))
    ia, ir = np.unravel_index(np.argmax(abs_diff), x.shape), np.unravel_index(np.argmax(rel_diff), x.shape)
    kind = "Scalars" if x.ndim == 0 and not isinstance(actual, _C.TensorBase) else "Tensor-likes"
    lines = [f"{kind} are not {'equal' if rtol == 0 and atol == 0 else 'close'}{where}!", "",
             f"Mismatched elements: {bad} / {total} ({100.0 * bad / total:.1f}%)",
             f"Greatest absolute difference: {abs_diff[ia]} at index {tuple(int(i) for i in ia)} "
             f"(up to {atol} allowed)",
             f"Greatest relative difference: {rel_diff[ir]} at index {tuple(int(i) for i in ir)} "
             f"(up to {rtol} allowed)"]
    _fail(msg, "\n".join(lines))


def _walk(actual, expected, where, compare):
    if isinstance(actual, (_C.TensorBase, np.ndarray, numbers.Number)) or \
            isinstance(expected, (_C.TensorBase, np.ndarray, numbers.Number)):
        return compare(actual, expected, where)
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError(f"The keys of the mappings do not match{where}: "
                                 f"{sorted(map(str, actual))} != {sorted(map(str, expected))}")
        for k in actual:
            _walk(actual[k], expected[k], f"{where} at key {k!r}" if not where else f"{where}[{k!r}]", compare)
        return None
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"The length of the sequences mismatch{where}: {len(actual)} != {len(expected)}")
        for i, (p, q) in enumerate(zip(actual, expected)):
            _walk(p, q, f" at index {i}" if not where else f"{where}[{i}]", compare)
        return None
    raise TypeError(f"assert_close(): no comparison for {type(actual).__name__} and {type(expected).__name__}")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Asserts that `actual` and `expected` are close (torch.testing.assert_close).

    Elementwise ``|actual - expected| <= atol + rtol * |expected|``; without
    `rtol`/`atol` the tolerances are torch's defaults for the dtypes (float32:
    1.3e-6/1e-5, float64: 1e-7/1e-7, float16: 1e-3/1e-5, bfloat16: 1.6e-2/1e-5,
    integers and bool: exact). Sequences and mappings compare item by item.

    Args:
        actual (Tensor, array, number, sequence or mapping): the values under test.
        expected (Tensor, array, number, sequence or mapping): the reference.
        allow_subclasses (bool): accepted for torch's signature (subclasses always compare).
        rtol (float, optional): relative tolerance; give `atol` with it.
        atol (float, optional): absolute tolerance; give `rtol` with it.
        equal_nan (bool): whether two NaNs count as equal.
        check_device (bool): whether the devices must match.
        check_dtype (bool): whether the dtypes must match.
        check_layout (bool): accepted for torch's signature (monoflow has one layout).
        check_stride (bool): accepted for torch's signature (strides are not compared).
        msg (str or callable, optional): replaces the report (a callable gets the report).

    Raises:
        AssertionError: on a mismatch, with a summary of the mismatched elements.

    Example::

        >>> import monoflow as flow
        >>> flow.testing.assert_close(flow.tensor([1.0, 2.0]), flow.tensor([1.0, 2.0 + 1e-7]))
        >>> flow.testing.assert_close(flow.tensor([1.0]), flow.tensor([1.5]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        ...
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {'rtol' if rtol is None else 'atol'}.")

    def compare(a, b, where):
        _compare(a, b, rtol, atol, equal_nan, check_device, check_dtype, msg, where)

    _walk(actual, expected, "", compare)


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of random values for tests (torch.testing.make_tensor).

    Floats are uniform in ``[low, high)`` (default ``[-9, 9)``), integers in
    ``[low, high)`` (default ``[-9, 10)``, unsigned from 0), bools fair coin flips.

    Args:
        shape (int or sequence of int): the shape.
        dtype (monoflow.dtype): the dtype.
        device (device or str, optional): where it lives.
        low (Number, optional): the lower bound.
        high (Number, optional): the upper bound.
        requires_grad (bool): whether it records operations for autograd (floats only).
        noncontiguous (bool): make it a non-contiguous view.
        exclude_zero (bool): replace zeros by the dtype's smallest positive step.
        memory_format (optional): accepted for torch's signature (monoflow is row-major).

    Example::

        >>> import monoflow as flow
        >>> t = flow.testing.make_tensor(2, 3, dtype=flow.float32, low=0, high=1)
        >>> t.shape, bool(((t >= 0) & (t < 1)).all())
        (monoflow.Size([2, 3]), True)
    """
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"make_tensor(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    if low is not None and high is not None and low > high:
        raise ValueError(f"make_tensor(): low ({low}) must not be greater than high ({high})")
    if dtype == _dtypes.bool_:
        out = ops_random.randint(0, 2, shape).to(_dtypes.bool_)
    elif dtype.is_floating_point or dtype.is_complex:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        real = _dtypes.float64 if dtype.is_complex else dtype
        out = ops_random.rand(*shape, dtype=_dtypes.float64) * (hi - lo) + lo
        if dtype.is_complex:
            out = _complex.complex(out, ops_random.rand(*shape, dtype=_dtypes.float64) * (hi - lo) + lo)
        out = out.to(dtype if dtype.is_complex else real)
    else:
        lo = (0 if not dtype.is_signed else -9) if low is None else math.ceil(low)
        hi = 10 if high is None else math.ceil(high)
        out = ops_random.randint(lo, max(hi, lo + 1), shape, dtype=_dtypes.int64).to(dtype)
    if exclude_zero:
        step = 1 if not (dtype.is_floating_point or dtype.is_complex) else float(np.finfo(np.float16).tiny) \
            if dtype == _dtypes.float16 else 1e-30
        out = ops_math.where(out == 0, _creation.full_like(out, step), out)
    if device is not None:
        out = out.to(device)
    if noncontiguous and out.numel() > 1:
        out = ops_shape.stack([out, _creation.zeros_like(out)], dim=-1)[..., 0]
    if requires_grad:
        out.requires_grad_(True)
    return out
