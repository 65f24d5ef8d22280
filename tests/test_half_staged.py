"""float16/bfloat16 elementwise kernels stage contiguous runs through float
blocks (Note [Staging 16-bit floats through float blocks], devices/cpu/
convert16.h). The staged path must give the bits of the element-by-element
one: binary ops and casts are compared with torch bit for bit, unary ops
with monoflow's own strided (unstaged) path, over lengths around the block
size and every contiguous layout (both operands, a broadcast one on either
side)."""
import numpy as np
import pytest

import monoflow as flow
from helpers import TORCH

torch = TORCH
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

DTYPES = [("float16", np.float16), ("bfloat16", None)]
LENGTHS = [1, 7, 511, 512, 513, 1500]


def _sample(rng, n, name):
    x = (rng.standard_normal(n) * 4).astype(np.float32)
    if n > 6:
        x[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 70000.0]  # 70000 overflows float16
    return flow.tensor(x).to(getattr(flow, name))


def _same(a, b):
    """Same values, signs of zero and NaNs (a NaN's sign and payload aside): widening a 16-bit
    float to float32 is exact, so this is bit equality up to NaN payloads."""
    assert a.dtype == b.dtype and a.shape == b.shape
    fa, fb = a.float().numpy(), b.float().numpy()
    assert np.array_equal(np.isnan(fa), np.isnan(fb))
    assert np.array_equal(np.nan_to_num(fa), np.nan_to_num(fb))
    ok = ~np.isnan(fa)
    assert np.array_equal(np.signbit(fa[ok]), np.signbit(fb[ok]))


@needs_torch
@pytest.mark.parametrize("name", [d[0] for d in DTYPES])
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "lt", "eq"])
def test_binary_matches_torch(name, n, op):
    rng = np.random.default_rng(n)
    a, b = _sample(rng, n, name), _sample(rng, n, name).flip(0)
    ta, tb = torch.from_dlpack(a.contiguous()), torch.from_dlpack(b.contiguous())
    for x, y, tx, ty in [(a, b, ta, tb), (a, b[:1], ta, tb[:1]), (a[:1], b, ta[:1], tb)]:
        got = getattr(flow, op)(x, y)
        want = getattr(torch, op)(tx, ty)
        _same(got, flow.from_dlpack(want.contiguous()))


@needs_torch
@pytest.mark.parametrize("name", [d[0] for d in DTYPES])
@pytest.mark.parametrize("n", LENGTHS)
def test_casts_match_torch(name, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal(n) * 1e4).astype(np.float32)
    x[: min(n, 3)] = [np.nan, 65519.0, 1e-8][: min(n, 3)]
    half = flow.tensor(x).to(getattr(flow, name))
    want = torch.tensor(x).to(getattr(torch, name))
    _same(half, flow.from_dlpack(want))
    _same(half.float(), flow.from_dlpack(want.float()))


@pytest.mark.parametrize("name", [d[0] for d in DTYPES])
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "sqrt", "relu", "neg", "isnan"])
def test_unary_staged_equals_strided(name, op):
    rng = np.random.default_rng(0)
    x = _sample(rng, 2 * 1500, name)
    staged = getattr(flow, op)(x[::2].contiguous())
    strided = getattr(flow, op)(x[::2])  # a step-2 input takes the element-wise loop
    _same(staged, strided)
