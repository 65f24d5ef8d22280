"""monoflow.special against torch.special: values over each function's
domain (including its special points) and gradients."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import monoflow as flow
from api_oracle import compare, torch

DOMAINS = {  # name: (low, high, rtol for float64)
    "erfinv": (-0.999, 0.999, 1e-10), "gammaln": (-20.5, 40, 1e-10), "digamma": (-20.5, 40, 1e-9),
    "i0": (-40, 40, 1e-10), "i0e": (-60, 60, 1e-10), "i1": (-40, 40, 1e-10), "i1e": (-60, 60, 1e-10),
    "ndtr": (-8, 8, 1e-10), "ndtri": (0.001, 0.999, 1e-9), "log_ndtr": (-5, 8, 1e-9), "entr": (0.001, 5, 1e-12),
    "expit": (-20, 20, 1e-12), "logit": (0.01, 0.99, 1e-12), "erfcx": (-3, 5, 1e-9),
    "erf": (-3, 3, 1e-12), "erfc": (-3, 3, 1e-12), "expm1": (-3, 3, 1e-12), "log1p": (-0.9, 3, 1e-12),
    "exp2": (-3, 3, 1e-12),
}


@pytest.mark.parametrize("name", sorted(DOMAINS))
@given(data=st.data())
def test_unary(name, data):
    lo, hi, rtol = DOMAINS[name]
    a = data.draw(hnp.arrays(np.float64, hnp.array_shapes(max_dims=2, max_side=6), elements=st.floats(lo, hi)))
    if name in ("gammaln", "digamma"):
        a = np.where(np.abs(a - np.round(a)) < 1e-3, a + 0.25, a)  # away from the poles, where values explode
    if name == "entr":
        a = np.where(a == 0, 0.5, a)  # the derivative at 0 is infinite
    compare(getattr(flow.special, name), getattr(torch.special, name), a, rtol=rtol, atol=1e-12, grad_rtol=1e-7,
            grad_atol=1e-9)
    compare(getattr(flow.special, name), getattr(torch.special, name), a.astype(np.float32), rtol=1e-4, atol=1e-6,
            grad_rtol=1e-3, grad_atol=1e-5)


@pytest.mark.parametrize("name", ["erfinv", "gammaln", "digamma", "i0", "i1", "entr", "ndtri"])
def test_special_points(name):
    pts = {"erfinv": [-1.0, 1.0, 0.0, 1.5, np.nan], "gammaln": [1.0, 2.0, 0.5, np.inf],
           "digamma": [1.0, 0.5, -0.5], "i0": [0.0, 1e-8, 700.0], "i1": [0.0, -1e-8, -700.0],
           "entr": [0.0, -1.0, np.nan, np.inf], "ndtri": [0.0, 1.0, 0.5]}[name]
    compare(getattr(flow.special, name), getattr(torch.special, name), np.array(pts), grad=False, rtol=1e-9,
            atol=1e-12)


def test_poles_and_zeta_family():
    compare(flow.special.gammaln, torch.special.gammaln, np.array([0.0, -1.0, -2.0]), grad=False)
    x = np.array([0.3, 1.0, 2.5, 7.0, 30.0])
    for n in (0, 1, 2, 3):
        compare(lambda t: flow.special.polygamma(n, t), lambda t: torch.special.polygamma(n, t), x, rtol=1e-9,
                atol=1e-12, grad=n < 3, grad_rtol=1e-7)
    compare(flow.special.zeta, torch.special.zeta, np.array([2.0, 3.5, 1.5, 10.0]), np.array([1.0, 0.5, 4.0, 2.0]),
            rtol=1e-9, grad=False)
    compare(lambda t: flow.special.multigammaln(t, 3), lambda t: torch.special.multigammaln(t, 3), x + 1.5,
            rtol=1e-10)
    assert flow.special.psi is flow.special.digamma


def test_binary_and_softmax_forms():
    rng = np.random.default_rng(0)
    a, b = rng.random((3, 4)), rng.random((3, 4)) * 2
    a[0, 0] = 0.0
    compare(flow.special.xlogy, torch.special.xlogy, a, b)
    compare(flow.special.xlog1py, torch.special.xlog1py, a, b)
    x = rng.standard_normal((3, 4))
    compare(lambda t: flow.special.softmax(t, 1), lambda t: torch.special.softmax(t, 1), x)
    compare(lambda t: flow.special.log_softmax(t, 0), lambda t: torch.special.log_softmax(t, 0), x)
    compare(lambda t: flow.special.logsumexp(t, 1), lambda t: torch.special.logsumexp(t, 1), x)
    compare(lambda t: flow.special.round(t), lambda t: torch.special.round(t), x * 5, grad=False)


def test_integer_inputs_compute_in_the_default_float_dtype():
    for name in ("erfinv", "gammaln", "digamma", "i0", "ndtr"):
        out = getattr(flow.special, name)(flow.tensor([0, 1]))
        assert getattr(torch.special, name)(torch.tensor([0, 1])).dtype == torch.float32
        assert out.dtype == flow.float32, name


def test_polygamma_of_a_huge_order_returns_at_once_as_torch_does():
    # n! of n = 2**62 was computed exactly (the fuzzer's hang); past n = 170 it overflows a double anyway
    torch = pytest.importorskip("torch")
    x = [1.5, 3.0]
    for n in (1, 2, 170, 171, 300):
        ours = flow.polygamma(n, flow.tensor(x, dtype=flow.float64)).numpy()
        theirs = torch.polygamma(n, torch.tensor(x, dtype=torch.float64)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)
    assert flow.polygamma(2**62, flow.tensor([1.5])).shape == (1,)


def test_mvlgamma_sums_its_terms_in_blocks_and_bounds_p():
    """p beyond one block of terms equals torch; a huge p is refused at once (it hung)."""
    torch = pytest.importorskip("torch")
    x = np.linspace(3000.0, 3010.0, 5)
    for p in (1, 3, 5000):
        got = flow.mvlgamma(flow.tensor(x, requires_grad=True), p)
        xt = torch.tensor(x, requires_grad=True)
        want = torch.mvlgamma(xt, p)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match=r"mvlgamma\(\): p=9223372036854775807 is too large"):
        flow.Tensor.mvlgamma(flow.ones(2, 3, dtype=flow.bfloat16), 2**63 - 1)
