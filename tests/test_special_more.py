"""torch.special's Bessel functions, orthogonal polynomials and gammainc/gammaincc against torch (float32 and
float64, several shapes, special points), and against exact references where torch's own approximations are
less accurate (bessel_j0 near x = 5, gammainc for large a)."""
import math
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
         "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0"]
# torch's (cephes') J/Y in float64 are good to about 1e-7 absolute between 2 and 25 (ours: 1e-15)
ATOL64 = {"bessel_j0": 1e-6, "bessel_j1": 1e-6, "bessel_y0": 1e-6, "bessel_y1": 2e-6}
SPECIAL_POINTS = [0.0, -0.0, 1e-8, 0.5, 1.99, 2.0, 2.01, 24.9, 25.1, 29.9, 30.1, 700.0, 1000.0, -1.0, -30.0,
                  float("inf"), float("-inf"), float("nan")]


def _compare(f, t, rtol, atol):
    f, t = np.asarray(f, dtype=np.float64), np.asarray(t, dtype=np.float64)
    np.testing.assert_array_equal(np.isnan(f), np.isnan(t))
    ok = ~np.isnan(t)
    inf = np.isinf(t) & ok
    np.testing.assert_array_equal(f[inf], t[inf])
    fin = ok & ~inf
    np.testing.assert_allclose(f[fin], t[fin], rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", [(200,), (4, 5, 6)], ids=str)
def test_unary_matches_torch(name, shape, dtype):
    rng = np.random.default_rng(abs(hash(name)) % 1000)
    x = rng.uniform(-40, 40, shape)
    x.reshape(-1)[: len(SPECIAL_POINTS)] = SPECIAL_POINTS[: x.size]
    if name.startswith("modified_bessel_i"):
        x = np.clip(x, -600, 600) if dtype == "float64" else np.clip(x, -80, 80)
    tdt, fdt = getattr(torch, dtype), getattr(flow, dtype)
    t = getattr(torch.special, name)(torch.tensor(x, dtype=tdt))
    f = getattr(flow.special, name)(flow.tensor(x, dtype=fdt))
    assert f.dtype == fdt and tuple(f.shape) == tuple(t.shape) and not f.requires_grad
    if dtype == "float64":
        _compare(f.numpy(), t.numpy(), rtol=1e-10, atol=ATOL64.get(name, 1e-13))
    else:
        _compare(f.numpy(), t.numpy(), rtol=2e-5, atol=ATOL64.get(name, 1e-6) * 5)


def test_no_gradient_and_integer_inputs_as_torch():
    x = flow.tensor([0.5, 2.0], requires_grad=True)
    for name in UNARY:
        assert not getattr(flow.special, name)(x).requires_grad
        a = getattr(flow.special, name)(flow.tensor([1, 2]))
        b = getattr(torch.special, name)(torch.tensor([1, 2]))
        assert a.dtype == flow.float32 and b.dtype == torch.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def _j0_exact(x):
    x = Fraction(x)
    s, t = Fraction(0), Fraction(1)
    for k in range(1, 200):
        s += t
        t = -t * x * x / (4 * k * k)
    return float(s)


def test_bessel_j0_exact_reference():
    xs = [0.3, 1.0, 2.4048, 5.0, 5.012932460244656, 10.0, 17.3, 24.0]
    got = flow.special.bessel_j0(flow.tensor(xs, dtype=flow.float64)).numpy()
    np.testing.assert_allclose(got, [_j0_exact(v) for v in xs], rtol=1e-13, atol=1e-15)


POLYS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
         "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", POLYS)
def test_polynomials_match_torch(name, dtype):
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-1.5, 1.5, (6, 40))
    if name.startswith("shifted"):
        x = (x + 1) / 2
        x[0, :3] = [1.0, 0.0, 0.5]
    else:
        x[0, :4] = [1.0, -1.0, 0.0, 0.5]
    x[1, :2] = [3.0, -2.5]  # outside [-1, 1]: the recurrences
    n = rng.integers(-2, 15, (1, 40)).astype(np.float64)
    n[0, :5] = [0, 1, 2.7, -1, 12]
    tdt, fdt = getattr(torch, dtype), getattr(flow, dtype)
    t = getattr(torch.special, name)(torch.tensor(x, dtype=tdt), torch.tensor(n, dtype=tdt))
    f = getattr(flow.special, name)(flow.tensor(x, dtype=fdt), flow.tensor(n, dtype=fdt))
    assert f.dtype == fdt and tuple(f.shape) == (6, 40)
    tol = dict(rtol=1e-11, atol=1e-11) if dtype == "float64" else dict(rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(f.numpy(), t.numpy(), **tol)
    # a Python number for either argument; an integer tensor n
    np.testing.assert_allclose(getattr(flow.special, name)(flow.tensor(x, dtype=fdt), 3).numpy(),
                               getattr(torch.special, name)(torch.tensor(x, dtype=tdt), 3).numpy(), **tol)
    np.testing.assert_allclose(getattr(flow.special, name)(0.25, flow.tensor([0, 1, 2, 5])).numpy(),
                               getattr(torch.special, name)(0.25, torch.tensor([0, 1, 2, 5])).numpy(), rtol=1e-6)
    assert getattr(flow.special, name)(0.25, flow.tensor([0, 1])).dtype == flow.float32


@pytest.mark.parametrize("name", [n for n in POLYS if "chebyshev" in n] + ["hermite_polynomial_h"])
def test_huge_degrees_end_as_torchs(name):
    # The recurrence is a Python loop per degree: it stops once every element has its trig form or
    # has overflowed (NaN after, as torch), instead of running 2**40 steps (a hang)
    x = [0.5, 2.0, 1.1, -3.0, 1.0, -1.0, 0.2] if not name.startswith("shifted") else [0.75, 1.5, 1.05, -1.0, 1.0,
                                                                                      0.0, 0.6]
    for n in (100, 1000, 2 ** 40):
        f = getattr(flow.special, name)(flow.tensor(x, dtype=flow.float64), n)
        t = getattr(torch.special, name)(torch.tensor(x, dtype=torch.float64), n)
        np.testing.assert_allclose(f.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


def test_a_degree_the_recurrence_cannot_reach_is_refused():
    # Legendre stays finite on [-1, 1]: 2**40 steps of a Python loop are refused, not run
    with pytest.raises(ValueError, match="legendre_polynomial_p.*degree 1099511627776"):
        flow.special.legendre_polynomial_p(flow.tensor([0.5]), 2 ** 40)


def _p_reference(a, x):
    getcontext().prec = 40
    a, x = Decimal(a), Decimal(x)
    term = 1 / a
    s, ap = term, a
    for _ in range(4000):
        ap += 1
        term = term * x / ap
        s += term
    return float(s * (a * x.ln() - x - Decimal(math.lgamma(float(a)))).exp())


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gammainc_matches_torch(dtype):
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0, 5, 200), rng.uniform(0, 100, 200), [0, 0, 1, 0, -1, 2, 3, np.inf, np.inf]])
    x = np.concatenate([rng.uniform(0, 8, 200), rng.uniform(0, 150, 200), [0, 1, 0, np.inf, 1, -1, np.nan, 1, np.inf]])
    tdt, fdt = getattr(torch, dtype), getattr(flow, dtype)
    for name in ("gammainc", "gammaincc"):
        t = getattr(torch.special, name)(torch.tensor(a, dtype=tdt), torch.tensor(x, dtype=tdt)).numpy()
        f = getattr(flow.special, name)(flow.tensor(a, dtype=fdt), flow.tensor(x, dtype=fdt)).numpy()
        # torch's own float64 values are good to ~2e-9 relative for large a (see the reference test)
        _compare(f, t, rtol=5e-9 if dtype == "float64" else 2e-4, atol=1e-12 if dtype == "float64" else 1e-5)
    # broadcasting
    out = flow.special.gammainc(flow.tensor([[1.0], [2.0]]), flow.tensor([0.5, 1.0, 3.0]))
    assert tuple(out.shape) == (2, 3)


def test_gammainc_exact_reference_and_gradients():
    for a, x in [(26.570806873658313, 19.692391679817906), (3.5, 1.2), (0.3, 0.01), (80.0, 70.0)]:
        got = flow.special.gammainc(flow.tensor([a], dtype=flow.float64), flow.tensor([x], dtype=flow.float64)).item()
        assert got == pytest.approx(_p_reference(a, x), rel=1e-13)
    grads = []
    for L in (torch, flow):
        a = L.tensor([0.5, 2.0, 7.5], dtype=L.float64)
        x = L.tensor([0.3, 2.5, 4.0], dtype=L.float64, requires_grad=True)
        (L.special.gammainc(a, x).sum() + 2 * L.special.gammaincc(a, x).sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
    a = flow.tensor([0.5], requires_grad=True)
    with pytest.raises(NotImplementedError, match="igamma: input"):
        flow.special.gammainc(a, flow.tensor([1.0])).sum().backward()
    with pytest.raises(NotImplementedError):
        flow.special.gammainc(flow.tensor([1, 2]), flow.tensor([1, 2]))


def _ai_reference(x):
    getcontext().prec = 50
    ai0 = Decimal("0.355028053887817239260063186004183176397979174199177")
    aip0 = Decimal("0.258819403792806798405183560189203963479091138354934")
    x = Decimal(x)
    x3 = x ** 3
    f = tf = Decimal(1)
    g = tg = x
    for k in range(1, 200):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f += tf
        g += tg
    return float(ai0 * f - aip0 * g)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_airy_ai_matches_torch(dtype):
    x = np.concatenate([np.linspace(-60, 110, 3001), [np.inf, -np.inf, np.nan, 0.0, -7.0, 2.0, 9.65]]).reshape(-1, 2)
    t = torch.special.airy_ai(torch.tensor(x, dtype=getattr(torch, dtype))).numpy()
    f = flow.special.airy_ai(flow.tensor(x, dtype=getattr(flow, dtype)))
    assert f.dtype == getattr(flow, dtype) and not f.requires_grad
    # torch's (cephes') values are off by up to ~3e-6 near its switch at x = -2.09
    _compare(f.numpy(), t, rtol=1e-9 if dtype == "float64" else 1e-4, atol=5e-6)
    xs = [-6.9, -4.0, -2.0925, -1.0, 0.5, 1.7]
    np.testing.assert_allclose(flow.special.airy_ai(flow.tensor(xs, dtype=flow.float64)).numpy(),
                               [_ai_reference(v) for v in xs], rtol=1e-11, atol=1e-12)
