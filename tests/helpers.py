"""Shared strategies and reference implementations for the tensor/op tests.

The references (oracles) are written independently of monoflow's C++ code:
type promotion is derived from the value ranges of the dtypes, values are
computed with numpy, and torch is an extra oracle when it is installed (it is
never required: use ``TORCH`` and skip torch-only checks when it is None).
"""
import contextlib
import math
import operator
import os

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow

try:  # torch is an optional, extra oracle
    import torch as TORCH
except ImportError:  # pragma: no cover - depends on the environment
    TORCH = None

# Hypothesis tests that take the (function-scoped) `device` fixture: the fixture
# is a plain string, so re-using it across examples is fine.
device_settings = settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# ---------------------------------------------------------------- dtypes

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
NUMERIC = INTEGRAL + FLOATING
FLOW = {n: getattr(flow, n) for n in DTYPES}
NAME = {v: k for k, v in FLOW.items()}
# numpy dtype that holds the values of each dtype (bfloat16 values live in float32)
NP = {n: np.dtype("float32" if n == "bfloat16" else n) for n in DTYPES}
# unit roundoff
EPS = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24, "float64": 2.0 ** -53}


def tdt(name):
    """torch dtype of a dtype name."""
    return getattr(TORCH, name)


def category(name):
    return 0 if name == "bool" else 2 if name in FLOATING else 1


# Value ranges (integers) and (mantissa bits, exponent bits) (floats): the
# promotion of two dtypes is the smallest dtype that holds both, which is how
# PyTorch defines its table.
_INT_RANGE = {n: (int(np.iinfo(n).min), int(np.iinfo(n).max)) for n in INTEGRAL}
_FLOAT_FORMAT = {"float16": (10, 5), "bfloat16": (7, 8), "float32": (23, 8), "float64": (52, 11)}
_SIZE = {n: NP[n].itemsize if n != "bfloat16" else 2 for n in DTYPES}


def ref_promote(a, b):
    """torch.promote_types(a, b), derived from the dtypes' value sets."""
    if a == b:
        return a
    if category(a) != category(b):
        return a if category(a) > category(b) else b
    if category(a) == 1:
        lo = min(_INT_RANGE[a][0], _INT_RANGE[b][0])
        hi = max(_INT_RANGE[a][1], _INT_RANGE[b][1])
        fits = [n for n in INTEGRAL if _INT_RANGE[n][0] <= lo and _INT_RANGE[n][1] >= hi]
        return min(fits, key=lambda n: _SIZE[n])
    fits = [n for n in FLOATING
            if all(_FLOAT_FORMAT[n][i] >= max(_FLOAT_FORMAT[a][i], _FLOAT_FORMAT[b][i]) for i in range(2))]
    return min(fits, key=lambda n: _SIZE[n])


def default_float():
    return NAME[flow.get_default_dtype()]


def ref_result_type(operands):
    """torch.result_type for operands given as (kind, dtype) with kind one of
    "dim" (a tensor with dims), "zero" (a 0-dim tensor) or "scalar" (a Python
    number: dtype "bool", "int64" or "float")."""
    state = {"dim": None, "zero": None, "scalar": None}
    for kind, d in operands:
        if kind == "scalar" and d == "float":
            d = default_float()
        state[kind] = d if state[kind] is None else ref_promote(state[kind], d)

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None or category(lower) <= category(higher):
            return higher
        return ref_promote(higher, lower)

    return combine(state["dim"], combine(state["zero"], state["scalar"]))


def scalar_kind(v):
    return "bool" if isinstance(v, bool) else "int64" if isinstance(v, int) else "float"


def can_cast(src, dst):
    """torch.can_cast: float -> integral and non-bool -> bool are refused."""
    if category(src) == 2 and category(dst) < 2:
        return False
    return not (src != "bool" and dst == "bool")


def value_fits(name, v):
    """Whether filling a tensor of dtype `name` with the Python number v is
    allowed (torch's c10::overflows): integers in range (uint8 also down to
    -255, wrapping), floats into integers only within the range, float32
    refuses finite values beyond its range."""
    if name in ("bool", "float16", "bfloat16", "float64"):
        return True
    if name == "float32":
        return not isinstance(v, float) or not math.isfinite(v) or abs(v) <= float(np.finfo(np.float32).max)
    lo, hi = (int(x) for x in (np.iinfo(name).min, np.iinfo(name).max))
    if isinstance(v, float):
        return lo <= v <= hi if name != "int64" else -(2.0 ** 63) <= v < 2.0 ** 63
    if name == "uint8":
        return -255 <= v <= 255
    return lo <= v <= hi


# ---------------------------------------------------------------- numpy references

def bf16_round(a):
    """Rounds float values (any float dtype) to the nearest bfloat16 (ties to
    even), returned as float32. float64 input is rounded once (no double
    rounding through float32: round-to-odd to float32 first)."""
    a = np.asarray(a)
    if a.dtype == np.float64:
        with np.errstate(all="ignore"):
            f = a.astype(np.float32)
            inexact = np.isfinite(a) & (f.astype(np.float64) != a)
            # truncate toward zero, then set the sticky bit (round to odd)
            too_big = inexact & (np.abs(f.astype(np.float64)) > np.abs(a))
            f = np.where(too_big, np.nextafter(f, np.float32(0)), f).astype(np.float32)
            u = f.view(np.uint32).copy()
            u[inexact] |= np.uint32(1)
            f = u.view(np.float32)
        a = f
    f = a.astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isnan(f), f, out).astype(np.float32)


def np_cast(a, name):
    """Casts numpy values `a` to dtype `name` with monoflow/torch semantics
    (float -> int truncates toward zero, -> bool is != 0, bfloat16 rounds to
    nearest even). Returns an array of NP[name]."""
    a = np.asarray(a)
    if name == "bool":
        return a != 0
    if name == "bfloat16":
        return bf16_round(a.astype(np.float64) if a.dtype.kind in "iub" else a)
    if category(name) == 1 and a.dtype.kind == "f":
        return np.trunc(a).astype(np.float64).astype(NP[name])
    with np.errstate(all="ignore"):
        return a.astype(NP[name])


def to_np(t):
    """A monoflow tensor's values as a numpy array (bfloat16 -> float32)."""
    if t.dtype == flow.bfloat16:
        t = t.float()
    return np.array(t.numpy(), copy=True)


def assert_values(actual, expected, name, *, atol=None):
    """Checks a monoflow tensor's dtype, shape and values against numpy
    `expected` (exactly, or to within `atol` where given; NaNs must match)."""
    assert actual.dtype == FLOW[name], (actual.dtype, name)
    exp = np.asarray(expected)
    assert tuple(actual.shape) == exp.shape, (tuple(actual.shape), exp.shape)
    got = to_np(actual)
    if atol is None:
        np.testing.assert_array_equal(got, exp.astype(got.dtype) if exp.dtype != got.dtype else exp)
    else:
        got64, exp64 = got.astype(np.float64), exp.astype(np.float64)
        np.testing.assert_array_equal(np.isnan(got64), np.isnan(exp64))
        ok = np.isnan(exp64) | (got64 == exp64) | (np.abs(got64 - exp64) <= atol)
        tol = np.broadcast_to(atol, exp64.shape)
        assert ok.all(), f"mismatch beyond tolerance:\n got {got64[~ok]}\n exp {exp64[~ok]}\n tol {tol[~ok]}"


def torch_of(t):
    """A torch tensor with a monoflow tensor's values and dtype (contiguous)."""
    if t.dtype == flow.bfloat16:
        return TORCH.from_numpy(to_np(t)).to(TORCH.bfloat16)
    return TORCH.from_numpy(to_np(t))


def torch_np(tt):
    """A torch tensor's values as numpy (bfloat16 -> float32)."""
    if tt.dtype == TORCH.bfloat16:
        tt = tt.float()
    return tt.numpy()


# ---------------------------------------------------------------- strategies

def elements(name, *, lo=None, hi=None, nan=False):
    """Element values of dtype `name`, as Python numbers. Floats are drawn
    exactly representable in the dtype; integers over the dtype's range (or
    [lo, hi])."""
    if name == "bool":
        return st.booleans()
    if category(name) == 1:
        rlo, rhi = _INT_RANGE[name]
        if name in ("int32", "int64"):  # keep casts to float16/32 exact enough
            rlo, rhi = -(2 ** 20), 2 ** 20
        return st.integers(max(rlo, lo) if lo is not None else rlo, min(rhi, hi) if hi is not None else rhi)
    lo = -1e4 if lo is None else lo
    hi = 1e4 if hi is None else hi
    width = {"float16": 16, "bfloat16": 32, "float32": 32, "float64": 64}[name]
    base = st.floats(lo, hi, width=width, allow_subnormal=False)
    # small dyadic values too, where arithmetic and casts are interesting
    base = st.one_of(base, st.integers(int(math.ceil(lo * 4)), int(math.floor(hi * 4))).map(lambda k: k / 4))
    if nan:
        base = st.one_of(base, st.sampled_from([float("nan"), float("inf"), -float("inf")]))
    if name == "bfloat16":
        base = base.map(lambda v: float(bf16_round(np.float32(v))))
    elif name == "float16":
        base = base.map(lambda v: float(np.float16(v)))
    return base


def values(name, shape, **kw):
    """numpy arrays (NP[name]) of `shape` with elements(name)."""
    return hnp.arrays(NP[name], shape, elements=elements(name, **kw).map(lambda v: NP[name].type(v)))


def shapes(min_dims=0, max_dims=4, min_side=0, max_side=5):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def _contig(a):
    """A C-contiguous copy (np.ascontiguousarray would turn 0-dim into 1-dim)."""
    return np.array(a, order="C", copy=True)


class TensorSpec:
    """A tensor to build on a device: its values (contiguous numpy) and how it
    is laid out in memory ("contiguous", "permuted", "strided" (sliced with
    offsets and steps out of a larger tensor), "expanded" (stride-0 dims))."""

    def __init__(self, vals, name, layout, params=None):
        self.values = vals  # the expected values, NP[name], full shape
        self.name = name
        self.layout = layout
        self.params = params

    def __repr__(self):
        return (f"TensorSpec({self.name}, shape={self.values.shape}, layout={self.layout}, "
                f"params={self.params}, values={self.values.tolist()!r})")

    @property
    def shape(self):
        return self.values.shape

    def make(self, device):
        """Returns a new monoflow tensor on `device` with the spec's values and layout."""
        v, dt = self.values, FLOW[self.name]
        if self.layout == "contiguous":
            return flow.tensor(v, dtype=dt, device=device)
        if self.layout == "permuted":
            perm = self.params
            inv = tuple(int(i) for i in np.argsort(perm))
            base = flow.tensor(_contig(v.transpose(perm)), dtype=dt, device=device)
            return base.permute(*inv)
        if self.layout == "strided":
            offsets, steps, extra = self.params
            base_shape = tuple(o + max(n - 1, 0) * s + 1 + e for n, o, s, e in zip(v.shape, offsets, steps, extra))
            filler = (np.arange(int(np.prod(base_shape)), dtype=np.int64) % 7 + 3).reshape(base_shape)
            base = np_cast(filler, self.name)
            idx = tuple(slice(o, o + n * s, s) for n, o, s in zip(v.shape, offsets, steps))
            base[idx] = v
            t = flow.tensor(base, dtype=dt, device=device)
            for d, (n, o, s) in enumerate(zip(v.shape, offsets, steps)):
                t = t.narrow(d, o, (n - 1) * s + 1 if n else 0)[(slice(None),) * d + (slice(None, None, s),)]
            return t
        if self.layout == "expanded":
            small_shape = self.params
            small = v[tuple(slice(0, 1) if n == 1 else slice(None) for n in small_shape)]
            small = small.reshape(small_shape)
            return flow.tensor(_contig(small), dtype=dt, device=device).expand(*v.shape)
        raise AssertionError(self.layout)


@st.composite
def tensor_specs(draw, shape=None, dtype=None, layouts=("contiguous", "permuted", "strided", "expanded"), **kw):
    """A TensorSpec; `shape`/`dtype` fixed or drawn; element options as for elements()."""
    if shape is None:
        shape = draw(shapes())
    shape = tuple(shape)
    name = dtype or draw(st.sampled_from(DTYPES))
    layout = draw(st.sampled_from(layouts))
    if layout == "expanded":
        # dims of size > 0 may come from a size-1 dim (stride 0)
        mask = [draw(st.booleans()) and n != 0 for n in shape]
        small_shape = tuple(1 if m else n for n, m in zip(shape, mask))
        small = draw(values(name, small_shape, **kw))
        return TensorSpec(_contig(np.broadcast_to(small, shape)), name, "expanded", small_shape)
    vals = draw(values(name, shape, **kw))
    if layout == "permuted" and len(shape) >= 2:
        perm = tuple(draw(st.permutations(range(len(shape)))))
        return TensorSpec(vals, name, "permuted", perm)
    if layout == "strided" and len(shape) >= 1:
        n = len(shape)
        offsets = tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
        steps = tuple(draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
        extra = tuple(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
        return TensorSpec(vals, name, "strided", (offsets, steps, extra))
    return TensorSpec(vals, name, "contiguous")


@st.composite
def broadcast_to_shape(draw, shape):
    """A shape that broadcasts to `shape` (dims dropped from the left or set to 1)."""
    drop = draw(st.integers(0, len(shape)))
    return tuple(1 if draw(st.booleans()) else n for n in shape[drop:])


def python_scalars(kind=None):
    """Python numbers: bools, small ints and floats (dyadic or arbitrary)."""
    choices = {
        "bool": st.booleans(),
        "int": st.integers(-300, 300),
        "float": st.one_of(st.integers(-40, 40).map(lambda k: k / 4),
                           st.floats(-1e3, 1e3, allow_subnormal=False)),
    }
    if kind is not None:
        return choices[kind]
    return st.one_of(*choices.values())


# ---------------------------------------------------------------- op references

# name -> (monoflow/python operator, numpy function)
BINARY_OPS = {
    "add": (operator.add, np.add),
    "sub": (operator.sub, np.subtract),
    "mul": (operator.mul, np.multiply),
    "div": (operator.truediv, np.true_divide),
    "floor_divide": (operator.floordiv, np.floor_divide),
    "maximum": (lambda a, b: flow.maximum(a, b), np.maximum),
    "minimum": (lambda a, b: flow.minimum(a, b), np.minimum),
    "eq": (operator.eq, np.equal),
    "ne": (operator.ne, np.not_equal),
    "lt": (operator.lt, np.less),
    "le": (operator.le, np.less_equal),
    "gt": (operator.gt, np.greater),
    "ge": (operator.ge, np.greater_equal),
}
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
SCALAR_OPS = ("add", "sub", "mul", "div", "floor_divide") + COMPARISONS


def op_dtypes(op, promoted):
    """(compute dtype, result dtype) of a binary op given the promoted dtype."""
    compute = promoted
    if op == "div" and category(promoted) < 2:
        compute = default_float()
    result = "bool" if op in COMPARISONS else compute
    return compute, result


def op_error(op, compute, *operands):
    """The exception type monoflow raises for `op` computing in `compute` on
    operands of the given dtypes (a Python bool counts as "bool"), or None.
    As in torch, a subtraction with any bool operand is refused (RuntimeError), and a bool
    floor division is not implemented (NotImplementedError)."""
    if op == "sub" and "bool" in operands:
        return RuntimeError
    if compute == "bool" and op in ("sub", "neg"):
        return RuntimeError
    if compute == "bool" and op == "floor_divide":
        return NotImplementedError
    return None


def np_binary(op, a, b, compute):
    """numpy reference of `op` on values already of the compute dtype
    (floats: half types computed in float32 and rounded once)."""
    fn = BINARY_OPS[op][1]
    work = {"float16": np.float32, "bfloat16": np.float32}.get(compute)
    with np.errstate(all="ignore"):
        if work is not None:
            r = fn(np.asarray(a, dtype=work), np.asarray(b, dtype=work))
            return r if op in COMPARISONS else np_cast(r, compute)
        if compute == "bool" and op in ("add", "mul", "maximum", "minimum"):
            r = fn(np.asarray(a, dtype=np.int32), np.asarray(b, dtype=np.int32))
            return r != 0
        r = fn(np.asarray(a, dtype=NP[compute]), np.asarray(b, dtype=NP[compute]))
        if op == "div" or op in COMPARISONS:
            return r
        return r.astype(NP[compute])


def check_named_refusal(call, exc, op, torch_call=None):
    """`call()` raises `exc` with a message naming `op` as a whole word (the
    error-message tables, issue 14); `torch_call()`, the same call in torch,
    when given, is refused too, with a type monoflow's error is an instance of
    (or one that is an `exc`)."""
    import re

    import pytest

    with pytest.raises(exc) as info:
        call()
    assert re.search(r"(?<![\w.])" + re.escape(op) + r"(?!\w)", str(info.value)), str(info.value)
    if torch_call is not None and TORCH is not None:
        with pytest.raises(Exception) as torch_info:
            torch_call()
        assert isinstance(info.value, type(torch_info.value)) or isinstance(torch_info.value, exc), (
            f"torch raises {type(torch_info.value).__name__}: {torch_info.value}")


@contextlib.contextmanager
def network_namespaces(tag, subnet):
    """Two network namespaces joined by a veth pair, `subnet`.1 and `subnet`.2 (e.g. "10.77.0"): two "machines"
    on one host. Yields their names; skips the test where root or the `ip` tool is missing."""
    import shutil
    import subprocess

    import pytest

    if shutil.which("ip") is None or os.geteuid() != 0:
        pytest.skip("cannot make network namespaces: they need root and the `ip` tool")
    a, b = f"{tag}a", f"{tag}b"

    def ip(*args):
        return subprocess.run(["ip", *args], capture_output=True, text=True)

    made = []
    try:
        for cmd in ([["netns", "add", a], ["netns", "add", b],
                     ["link", "add", f"{tag}x", "type", "veth", "peer", "name", f"{tag}y"],
                     ["link", "set", f"{tag}x", "netns", a], ["link", "set", f"{tag}y", "netns", b],
                     ["-n", a, "addr", "add", f"{subnet}.1/24", "dev", f"{tag}x"],
                     ["-n", b, "addr", "add", f"{subnet}.2/24", "dev", f"{tag}y"],
                     ["-n", a, "link", "set", f"{tag}x", "up"], ["-n", b, "link", "set", f"{tag}y", "up"],
                     ["-n", a, "link", "set", "lo", "up"], ["-n", b, "link", "set", "lo", "up"]]):
            r = ip(*cmd)
            if r.returncode != 0:
                pytest.skip(f"cannot make network namespaces: `ip {' '.join(cmd)}` failed: {r.stderr.strip()}")
            if cmd[0] == "netns":
                made.append(cmd[2])
        yield a, b
    finally:
        for ns in made:
            ip("netns", "del", ns)
