"""Comparison helpers shared by the math-op tests (tests/test_ops_math_*.py;
this module has no tests of its own): torch is the oracle, and monoflow's
results must match its dtype exactly and its values exactly or to within a
few units in the last place."""
import numpy as np

import monoflow as flow
from helpers import EPS, FLOATING, FLOW, TORCH, to_np, torch_np

# Relative tolerance per dtype. float16/bfloat16 compute in float32 and round
# once (docs/kernels.md), so they may differ by one rounding step where torch's
# float32 result lies on the other side of a rounding boundary; float32/64
# differ by the few ulps between libm and torch's vectorised (Sleef) functions.
RTOL = {"float16": 4 * EPS["float16"], "bfloat16": 4 * EPS["bfloat16"],
        "float32": 32 * EPS["float32"], "float64": 32 * EPS["float64"]}
# Near 0: two subnormal steps of float16 (computed in float32, where they are
# normal numbers); two minimum normals of the others, whose subnormal results
# torch may flush to zero.
ATOL = {"float16": 2.0 ** -23, "bfloat16": 2.0 ** -125, "float32": 2.0 ** -125, "float64": 2.0 ** -1021}


def torch_name(tdtype):
    return str(tdtype).replace("torch.", "")


def tensor_of(t, dtype=None):
    """torch tensor with a monoflow tensor's values (and dtype, or `dtype`)."""
    tt = TORCH.from_numpy(to_np(t))
    if t.dtype == flow.bfloat16:
        tt = tt.to(TORCH.bfloat16)
    return tt if dtype is None else tt.to(getattr(TORCH, dtype))


def in_float64(fn, *args):
    """torch's fn computed in float64 and rounded to the dtype fn gives: the
    oracle for floating results. torch's own float32 kernels take shortcuts at
    the extremes (its vectorised sinh(89) overflows to inf, a vectorised
    remainder whose quotient overflows gives NaN), which monoflow, through
    libm, does not."""
    dtype = fn(*args).dtype
    wide = [a.double() if isinstance(a, TORCH.Tensor) else a for a in args]
    return fn(*wide).to(dtype)


def assert_matches(out, expected, *, exact=False, rtol=None, scale=None):
    """out (monoflow) has expected's (torch) dtype, shape and values.

    Floating values agree to within rtol * (|expected| + |scale|) plus a
    subnormal step, where `scale` (numpy, broadcastable) is the size of the
    intermediate values of a formula that cancels (gelu's 1 + erf(x), lerp's
    end - start); NaNs and infinities must match exactly."""
    name = torch_name(expected.dtype)
    assert out.dtype == FLOW[name], (out.dtype, name)
    assert tuple(out.shape) == tuple(expected.shape), (tuple(out.shape), tuple(expected.shape))
    got = to_np(out)
    exp = torch_np(expected)
    if exact or name not in FLOATING:
        np.testing.assert_array_equal(got, exp.astype(got.dtype))
        return
    got64, exp64 = got.astype(np.float64), exp.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got64), np.isnan(exp64))
    inf = np.isinf(exp64)
    np.testing.assert_array_equal(got64[inf], exp64[inf])
    rtol = RTOL[name] if rtol is None else rtol
    ref = np.abs(exp64)
    if scale is not None:
        ref = ref + np.abs(np.asarray(scale, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        bad = ~np.isnan(exp64) & ~inf & ~(np.abs(got64 - exp64) <= rtol * ref + ATOL[name])
    assert not bad.any(), f"mismatch:\n got {got64[bad]}\n exp {exp64[bad]}"
