"""repr() of tensors matches torch's (with "torch." -> "monoflow."): fixed
examples that need no torch, and random tensors against torch where it is
installed; on other devices the device suffix is added as torch adds it."""
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from helpers import DTYPES, FLOW, TORCH, device_settings, tdt

nan, inf = float("nan"), float("inf")

# (data, dtype or None, torch's repr) -- the reprs were produced by torch 2.x
EXAMPLES = [
    ([1, 2, 3], None, "tensor([1, 2, 3])"),
    ([[-1, 20], [300, -4000]], None, "tensor([[   -1,    20],\n        [  300, -4000]])"),
    ([1.0, 2.0, -3.0], None, "tensor([ 1.,  2., -3.])"),
    ([1.5, 2.25, -3.125], None, "tensor([ 1.5000,  2.2500, -3.1250])"),
    ([1e-5, 1.0, 1e5], None, "tensor([1.0000e-05, 1.0000e+00, 1.0000e+05])"),
    ([1e9, 2e9], None, "tensor([1.0000e+09, 2.0000e+09])"),
    ([0.0001, 0.5], None, "tensor([1.0000e-04, 5.0000e-01])"),
    ([True, False], None, "tensor([ True, False])"),
    (5, None, "tensor(5)"),
    (2.5, None, "tensor(2.5000)"),
    (3.0, None, "tensor(3.)"),
    (True, None, "tensor(True)"),
    (-1e-7, None, "tensor(-1.0000e-07)"),
    ([1.5, 2.0], "float64", "tensor([1.5000, 2.0000], dtype=monoflow.float64)"),
    ([1, 255], "uint8", "tensor([  1, 255], dtype=monoflow.uint8)"),
    ([1.5, 2.0], "float16", "tensor([1.5000, 2.0000], dtype=monoflow.float16)"),
    ([1.5, 2.0, 3.1], "bfloat16", "tensor([1.5000, 2.0000, 3.0938], dtype=monoflow.bfloat16)"),
    ([nan, inf, -inf, 1.5], None, "tensor([   nan,    inf,   -inf, 1.5000])"),
    ([nan, 1.0, 2.0], None, "tensor([nan, 1., 2.])"),
    ([-0.0, 1.0], None, "tensor([-0., 1.])"),
    ([0.0, nan], None, "tensor([0., nan])"),
    (np.arange(24).reshape(2, 3, 4), None,
     "tensor([[[ 0,  1,  2,  3],\n         [ 4,  5,  6,  7],\n         [ 8,  9, 10, 11]],\n\n"
     "        [[12, 13, 14, 15],\n         [16, 17, 18, 19],\n         [20, 21, 22, 23]]])"),
    (np.arange(16).reshape(2, 2, 2, 2), None,
     "tensor([[[[ 0,  1],\n          [ 2,  3]],\n\n         [[ 4,  5],\n          [ 6,  7]]],\n\n\n"
     "        [[[ 8,  9],\n          [10, 11]],\n\n         [[12, 13],\n          [14, 15]]]])"),
    (np.arange(40), "int16",
     "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
     "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
     "        36, 37, 38, 39], dtype=monoflow.int16)"),
    (np.arange(2000, dtype=np.float32), None,
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])"),
    (np.arange(3000).reshape(30, 100), None,
     "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
     "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
     "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
     "        ...,\n"
     "        [2700, 2701, 2702,  ..., 2797, 2798, 2799],\n"
     "        [2800, 2801, 2802,  ..., 2897, 2898, 2899],\n"
     "        [2900, 2901, 2902,  ..., 2997, 2998, 2999]])"),
    (np.arange(30, dtype=np.float32).reshape(1, 30) / np.float32(7), None,
     "tensor([[0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
     "         1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
     "         2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
     "         3.8571, 4.0000, 4.1429]])"),
]

EMPTY = [
    ((0,), "float32", "tensor([])"),
    ((2, 0), "float32", "tensor([], size=(2, 0))"),
    ((0,), "int64", "tensor([], dtype=monoflow.int64)"),
    ((0, 3), "int32", "tensor([], size=(0, 3), dtype=monoflow.int32)"),
    ((0,), "bool", "tensor([], dtype=monoflow.bool)"),
]


_SUFFIX = re.compile(r",(?: |\n {7})(size=\([0-9, ]*\)|dtype=monoflow\.\w+)$")


def _with_device(text, device):
    """torch's repr (with "torch." made "monoflow.") laid out as torch lays
    out its suffixes: a device suffix first when not on the CPU, and a suffix
    that would cross 80 columns on a new line (the longer "monoflow." name can
    move a suffix that torch keeps on the last line)."""
    body, suffixes = text[:-1], []
    while (m := _SUFFIX.search(body)):
        suffixes.insert(0, m.group(1))
        body = body[:m.start()]
    if not device.startswith("cpu"):
        suffixes.insert(0, f"device='{device}'")
    out = [body]
    last = len(body) - body.rfind("\n") + 1
    for p in suffixes:
        if last + len(p) + 2 > 80:
            out.append(",\n" + " " * 7 + p)
            last = 7 + len(p)
        else:
            out.append(", " + p)
            last += len(p) + 2
    return "".join(out) + ")"


@pytest.mark.parametrize("data,dtype,expected", EXAMPLES, ids=range(len(EXAMPLES)))
def test_repr_examples(device, data, dtype, expected):
    t = flow.tensor(data, dtype=FLOW[dtype] if dtype else None, device=device)
    assert repr(t) == _with_device(expected, device)
    if TORCH is not None:
        tt = TORCH.tensor(np.asarray(data), dtype=tdt(dtype) if dtype else None)
        if isinstance(data, (list, int, float, bool)):
            tt = TORCH.tensor(data, dtype=tdt(dtype) if dtype else None)
        assert repr(tt).replace("torch.", "monoflow.") == expected


@pytest.mark.parametrize("shape,dtype,expected", EMPTY)
def test_repr_empty(device, shape, dtype, expected):
    t = flow.zeros(shape, dtype=FLOW[dtype], device=device)
    assert repr(t) == _with_device(expected, device)
    if TORCH is not None:
        assert repr(TORCH.zeros(shape, dtype=tdt(dtype))).replace("torch.", "monoflow.") == expected


def test_repr_device_suffix():
    assert repr(flow.ones(2, device="testdev:1")) == "tensor([1., 1.], device='testdev:1')"
    assert repr(flow.ones(2, dtype=flow.int32, device="testdev")) == \
        "tensor([1, 1], device='testdev:0', dtype=monoflow.int32)"
    assert repr(flow.zeros(0, 2, device="testdev")) == "tensor([], device='testdev:0', size=(0, 2))"
    assert repr(flow.tensor(2, device="testdev")) == "tensor(2, device='testdev:0')"


def test_repr_follows_default_dtype():
    flow.set_default_dtype(flow.float64)
    try:
        assert repr(flow.tensor([1.5])) == "tensor([1.5000])"
        assert repr(flow.tensor([1.5], dtype=flow.float32)) == "tensor([1.5000], dtype=monoflow.float32)"
        assert repr(flow.zeros(0, dtype=flow.float32)) == "tensor([], dtype=monoflow.float32)"
    finally:
        flow.set_default_dtype(flow.float32)


def test_str_and_views(device):
    x = flow.arange(6, device=device).reshape(2, 3)
    assert str(x) == repr(x)
    assert repr(x.t()) == _with_device("tensor([[0, 3],\n        [1, 4],\n        [2, 5]])", device)
    assert repr(x[:, ::2]) == _with_device("tensor([[0, 2],\n        [3, 5]])", device)


# ---------------------------------------------------------------- against torch

float_values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, width=32),
    st.floats(-1e3, 1e3, width=32),
    st.integers(-1000, 1000).map(float),
    st.sampled_from([0.0, -0.0, 1e-5, 1e8, 1e9, 0.5, 123456.789]),
)


@st.composite
def printable(draw):
    name = draw(st.sampled_from(DTYPES))
    big = draw(st.integers(0, 4)) == 0
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)) if not big else \
        draw(st.sampled_from([(1001,), (40, 30), (2, 3, 200), (12, 100)]))
    n = int(np.prod(shape))
    if name == "bool":
        vals = np.array(draw(st.lists(st.booleans(), min_size=min(n, 50), max_size=min(n, 50))) or [False])
    elif name in ("float16", "bfloat16", "float32", "float64"):
        vals = np.array(draw(st.lists(float_values, min_size=min(n, 50), max_size=min(n, 50))) or [0.0])
        scale = draw(st.sampled_from([1.0, 1.0, 1e-6, 1e6, 1e12]))
        vals = vals * scale
    else:
        info = np.iinfo(name)
        vals = np.array(draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=min(n, 50),
                                      max_size=min(n, 50))) or [0])
    data = np.resize(vals, shape) if n else np.zeros(shape, dtype=vals.dtype)
    return name, data


@pytest.mark.skipif(TORCH is None, reason="torch is not installed")
@device_settings
@given(case=printable())
def test_repr_matches_torch(device, case):
    name, data = case
    with np.errstate(all="ignore"):
        arr = np.array(data, dtype=np.float32 if name == "bfloat16" else np.dtype(name))
    tt = TORCH.from_numpy(arr.copy())
    t = flow.tensor(arr, device=device)
    if name == "bfloat16":
        tt, t = tt.to(TORCH.bfloat16), t.to(flow.bfloat16)
    assert repr(t) == _with_device(repr(tt).replace("torch.", "monoflow."), device)
