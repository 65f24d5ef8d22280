"""monoflow.linalg and the top-level matrix functions (ops_matrix) against
PyTorch: values, gradients (gauge-invariant functions of the factors where
the factors are defined up to signs), dtypes and errors."""
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow
from api_oracle import compare, same_error, torch

batches = st.sampled_from([(), (2,), (2, 3)])
dtypes = st.sampled_from([np.float32, np.float64])


def well_conditioned(rng, batch, n, dtype):
    a = rng.standard_normal(batch + (n, n))
    return (a + n * np.eye(n)).astype(dtype)


def spd(rng, batch, n, dtype):
    a = rng.standard_normal(batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-8, atol=1e-9)


@given(batches, st.integers(1, 4), dtypes, st.integers(0, 2 ** 16))
def test_inv_det_slogdet_solve(batch, n, dtype, seed):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, batch, n, dtype)
    b = rng.standard_normal(batch + (n, 2)).astype(dtype)
    v = rng.standard_normal(batch + (n,)).astype(dtype)
    t = tol(dtype)
    compare(flow.linalg.inv, torch.linalg.inv, a, **t)
    compare(flow.linalg.det, torch.linalg.det, a, **t)
    compare(flow.linalg.slogdet, torch.linalg.slogdet, a, **t)
    compare(flow.linalg.solve, torch.linalg.solve, a, b, **t)
    compare(flow.linalg.solve, torch.linalg.solve, a, v, **t)
    compare(lambda x, y: flow.linalg.solve(x, y, left=False), lambda x, y: torch.linalg.solve(x, y, left=False),
            a, np.swapaxes(b, -1, -2).copy(), **t)
    compare(lambda x: x.inverse(), lambda x: x.inverse(), a, **t)
    compare(lambda x: x.det(), lambda x: x.det(), a, **t)
    compare(flow.logdet, torch.logdet, spd(rng, batch, n, dtype), **t)


def test_det_of_singular_matrix_has_the_adjugate_gradient():
    # torch's CPU gradient is 0 here; the derivative of det is adj(A)^T, non-zero
    # for a matrix of rank n - 1: checked against central differences
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, 1.0, 0.0]])
    x = flow.tensor(a, requires_grad=True)
    flow.linalg.det(x).backward()
    eps, fd = 1e-6, np.zeros_like(a)
    for i in range(3):
        for j in range(3):
            e = np.zeros_like(a)
            e[i, j] = eps
            fd[i, j] = (np.linalg.det(a + e) - np.linalg.det(a - e)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), fd, atol=1e-6)
    assert np.abs(fd).max() > 1


def test_solve_broadcasts_batches():
    rng = np.random.default_rng(0)
    a = well_conditioned(rng, (2, 1), 3, np.float64)
    b = rng.standard_normal((1, 4, 3, 2))
    compare(flow.linalg.solve, torch.linalg.solve, a, b, rtol=1e-8, atol=1e-9)


@given(batches, st.integers(1, 4), dtypes, st.integers(0, 2 ** 16), st.booleans())
def test_cholesky(batch, n, dtype, seed, upper):
    a = spd(np.random.default_rng(seed), batch, n, dtype)
    t = tol(dtype)
    compare(lambda x: flow.linalg.cholesky(x, upper=upper), lambda x: torch.linalg.cholesky(x, upper=upper), a, **t)
    compare(lambda x: flow.linalg.cholesky_ex(x).L, lambda x: torch.linalg.cholesky_ex(x).L, a, **t)
    compare(lambda x: x.cholesky(), lambda x: x.cholesky(), a, **t)
    L = np.linalg.cholesky(a.astype(np.float64)).astype(dtype)
    b = np.random.default_rng(seed + 1).standard_normal(batch + (n, 2)).astype(dtype)
    compare(flow.cholesky_solve, torch.cholesky_solve, b, L, **t)
    compare(flow.cholesky_inverse, torch.cholesky_inverse, L[(0,) * len(batch)], **t)


def test_cholesky_of_indefinite_matrix_raises():
    a = np.array([[1.0, 2.0], [2.0, 1.0]])
    same_error(lambda: flow.linalg.cholesky(flow.tensor(a)), lambda: torch.linalg.cholesky(torch.tensor(a)))


@given(batches, st.integers(1, 4), st.integers(0, 3), st.integers(0, 2 ** 16), st.booleans(), st.booleans())
def test_solve_triangular(batch, n, k, seed, upper, left):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, batch, n, np.float64)
    b = rng.standard_normal(batch + ((n, k + 1) if left else (k + 1, n)))
    compare(lambda x, y: flow.linalg.solve_triangular(x, y, upper=upper, left=left),
            lambda x, y: torch.linalg.solve_triangular(x, y, upper=upper, left=left), a, b, rtol=1e-8, atol=1e-9)
    compare(lambda x, y: flow.linalg.solve_triangular(x, y, upper=upper, unitriangular=True),
            lambda x, y: torch.linalg.solve_triangular(x, y, upper=upper, unitriangular=True), a,
            rng.standard_normal(batch + (n, 2)), rtol=1e-8, atol=1e-8)


def _signs_fixed_qr(mod, x, mode="reduced"):
    Q, R = mod.linalg.qr(x, mode)
    return Q, R


@given(batches, st.integers(1, 4), st.integers(0, 2), st.integers(0, 2 ** 16))
def test_qr(batch, n, extra, seed):
    a = np.random.default_rng(seed).standard_normal(batch + (n + extra, n))
    # LAPACK's QR (Householder) is the same on both sides, so the factors agree, signs included
    compare(lambda x: flow.linalg.qr(x), lambda x: torch.linalg.qr(x), a, rtol=1e-7, atol=1e-8)
    compare(lambda x: flow.linalg.qr(x, "complete")[1], lambda x: torch.linalg.qr(x, "complete")[1], a, grad=False,
            rtol=1e-7, atol=1e-8)
    compare(lambda x: flow.linalg.qr(x, "r")[1], lambda x: torch.linalg.qr(x, "r")[1], a, grad=False, rtol=1e-7,
            atol=1e-8)


@given(batches, st.integers(1, 4), st.integers(-2, 2), st.integers(0, 2 ** 16))
def test_svd(batch, n, extra, seed):
    m = max(n + extra, 1)
    a = np.random.default_rng(seed).standard_normal(batch + (m, n))
    compare(flow.linalg.svdvals, torch.linalg.svdvals, a, rtol=1e-7, atol=1e-8)

    # gauge-invariant uses of all three factors: U diag(S) Vh, and |U|, |Vh|
    def use(mod):
        def f(x):
            U, S, Vh = mod.linalg.svd(x, full_matrices=False)
            return (U * S.unsqueeze(-2)).matmul(Vh), (U * U).sum(-2), U.matmul(U.transpose(-2, -1)) * 1.5, \
                Vh.transpose(-2, -1).matmul(Vh)
        return f

    compare(use(flow), use(torch), a, rtol=1e-7, atol=1e-8, grad_rtol=1e-5, grad_atol=1e-6)
    fu, fs, fv = flow.linalg.svd(flow.tensor(a))
    tu, ts, tv = torch.linalg.svd(torch.tensor(a))
    assert tuple(fu.shape) == tuple(tu.shape) and tuple(fv.shape) == tuple(tv.shape)
    np.testing.assert_allclose(np.abs(fu.numpy().swapaxes(-1, -2) @ fu.numpy()), np.abs(tu.numpy().swapaxes(-1, -2)
                                                                                      @ tu.numpy()), atol=1e-9)
    U, S, V = flow.svd(flow.tensor(a))
    np.testing.assert_allclose((U.numpy() * S.numpy()[..., None, :]) @ np.swapaxes(V.numpy(), -1, -2), a, atol=1e-9)


@given(batches, st.integers(1, 4), st.integers(0, 2 ** 16))
def test_eigh(batch, n, seed):
    a = spd(np.random.default_rng(seed), batch, n, np.float64)
    compare(flow.linalg.eigvalsh, torch.linalg.eigvalsh, a, rtol=1e-8, atol=1e-8)

    def use(mod, uplo):
        def f(x):
            L, V = mod.linalg.eigh(x, UPLO=uplo)
            return L, (V * V), V.matmul(torch.diag_embed(L) if mod is torch else flow.diag_embed(L)).matmul(
                V.transpose(-2, -1))
        return f

    for uplo in ("L", "U"):
        compare(use(flow, uplo), use(torch, uplo), a, rtol=1e-7, atol=1e-8, grad_rtol=1e-5, grad_atol=1e-6)


@given(st.integers(1, 4), st.integers(1, 4), st.integers(0, 2 ** 16))
def test_pinv_rank_lstsq(m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n))
    compare(flow.linalg.pinv, torch.linalg.pinv, a, rtol=1e-6, atol=1e-8, grad_rtol=1e-4, grad_atol=1e-6)
    compare(flow.pinverse, torch.pinverse, a, rtol=1e-6, atol=1e-8, grad_rtol=1e-4, grad_atol=1e-6)
    low = a[:, :1] @ a[:1, :]  # rank 1
    compare(flow.linalg.matrix_rank, torch.linalg.matrix_rank, low, grad=False)
    b = rng.standard_normal((m, 2))
    if m >= n:
        compare(lambda x, y: flow.linalg.lstsq(x, y).solution, lambda x, y: torch.linalg.lstsq(x, y).solution, a, b,
                rtol=1e-6, atol=1e-8, grad_rtol=1e-4, grad_atol=1e-6)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norms(ord):
    a = np.random.default_rng(0).standard_normal((2, 3, 4))
    compare(lambda x: flow.linalg.matrix_norm(x, "fro" if ord is None else ord),
            lambda x: torch.linalg.matrix_norm(x, "fro" if ord is None else ord), a, rtol=1e-7, atol=1e-8)
    compare(lambda x: flow.linalg.norm(x, ord, (0, 2), keepdim=True),
            lambda x: torch.linalg.norm(x, ord, (0, 2), keepdim=True), a, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, math.inf, -math.inf, 0])
def test_vector_norm(ord):
    a = np.random.default_rng(1).standard_normal((3, 4)) + 0.1
    for dim in (None, 0, (0, 1), -1):
        compare(lambda x: flow.linalg.vector_norm(x, ord, dim), lambda x: torch.linalg.vector_norm(x, ord, dim), a,
                rtol=1e-7, atol=1e-8, grad=ord != 0)
    compare(lambda x: flow.linalg.norm(x[0], ord), lambda x: torch.linalg.norm(x[0], ord), a, grad=ord != 0)
    compare(flow.linalg.norm, torch.linalg.norm, a)


def test_matrix_functions():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3)) * 0.7
    for n in (-2, -1, 0, 1, 2, 5):
        compare(lambda x: flow.linalg.matrix_power(x, n), lambda x: torch.linalg.matrix_power(x, n),
                a + 3 * np.eye(3), rtol=1e-8, atol=1e-9)
    compare(flow.linalg.matrix_exp, torch.linalg.matrix_exp, a, rtol=1e-9, atol=1e-10)
    compare(flow.matrix_exp, torch.matrix_exp, a * 6, rtol=1e-9, atol=1e-9)
    compare(lambda x, y: flow.linalg.cross(x, y), lambda x, y: torch.linalg.cross(x, y), rng.standard_normal((4, 3)),
            rng.standard_normal((1, 3)))
    compare(flow.cross, lambda x, y: torch.cross(x, y, dim=0), rng.standard_normal((3, 2)), rng.standard_normal((3, 2)))
    mats = [rng.standard_normal(s) for s in ((3,), (3, 4), (4, 2), (2,))]
    compare(lambda *xs: flow.linalg.multi_dot(xs), lambda *xs: torch.linalg.multi_dot(xs), *mats)
    compare(lambda x, y: flow.linalg.vecdot(x, y), lambda x, y: torch.linalg.vecdot(x, y), a, a)
    compare(flow.linalg.cond, torch.linalg.cond, a[0] + 2 * np.eye(3), rtol=1e-7)
    compare(lambda x: flow.linalg.diagonal(x, offset=1), lambda x: torch.linalg.diagonal(x, offset=1), a)


def test_products():
    rng = np.random.default_rng(3)
    inp, b1, b2 = rng.standard_normal((3, 5)), rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5))
    compare(lambda i, x, y: flow.baddbmm(i, x, y, beta=0.5, alpha=2), lambda i, x, y: torch.baddbmm(i, x, y, beta=0.5,
                                                                                                    alpha=2),
            inp, b1, b2)
    compare(lambda i, x, y: i.addbmm(x, y, alpha=-1), lambda i, x, y: i.addbmm(x, y, alpha=-1), inp, b1, b2)
    compare(lambda i, m, v: flow.addmv(i, m, v, beta=0), lambda i, m, v: torch.addmv(i, m, v, beta=0),
            rng.standard_normal(3), rng.standard_normal((3, 4)), rng.standard_normal(4))
    compare(lambda i, x, y: i.addr(x, y), lambda i, x, y: i.addr(x, y), rng.standard_normal((3, 4)),
            rng.standard_normal(3), rng.standard_normal(4))
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 3, 5))
    for dims in (0, 1, ([1, 2], [1, 0]), ([0], [1])):
        yy = y if dims != ([0], [1]) else rng.standard_normal((4, 2))
        compare(lambda a, b: flow.tensordot(a, b, dims), lambda a, b: torch.tensordot(a, b, dims), x, yy)
    compare(flow.inner, torch.inner, x, rng.standard_normal((5, 4)))
    compare(lambda a, b: flow.cdist(a, b), lambda a, b: torch.cdist(a, b), rng.standard_normal((2, 4, 3)),
            rng.standard_normal((2, 5, 3)))
    for p in (1.0, 3.0, 0.0):
        compare(lambda a, b: flow.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), rng.standard_normal((4, 3)),
                rng.standard_normal((5, 3)), grad=p != 0)
    compare(lambda a, b: flow.dist(a, b, 3), lambda a, b: torch.dist(a, b, 3), rng.standard_normal(4),
            rng.standard_normal(4))
    compare(lambda *m: flow.chain_matmul(*m), lambda *m: torch.linalg.multi_dot(m), rng.standard_normal((2, 3)),
            rng.standard_normal((3, 4)))


@pytest.mark.parametrize("fn", ["inv", "det", "cholesky", "eigh"])
def test_errors(fn):
    same_error(lambda: getattr(flow.linalg, fn)(flow.ones(2, 3)), lambda: getattr(torch.linalg, fn)(torch.ones(2, 3)))
    same_error(lambda: getattr(flow.linalg, fn)(flow.ones(3)), lambda: getattr(torch.linalg, fn)(torch.ones(3)))
    if fn != "eigh":  # (torch: NotImplementedError for integer eigh, RuntimeError for the others)
        same_error(lambda: getattr(flow.linalg, fn)(flow.ones(2, 2, dtype=flow.int64)),
                   lambda: getattr(torch.linalg, fn)(torch.ones(2, 2, dtype=torch.int64)))
    same_error(lambda: flow.linalg.inv(flow.zeros(2, 2)), lambda: torch.linalg.inv(torch.zeros(2, 2)))
    same_error(lambda: flow.linalg.eig(flow.ones(2, 3)), lambda: torch.linalg.eig(torch.ones(2, 3)))  # (eig works now)


@given(batch=st.sampled_from([(), (3,), (2, 2)]), n=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_inv_inside_nn_graph(batch, n, seed):
    # LAPACK reads host values, which a trace does not have: inside nn.Graph inv runs as Gauss-Jordan with
    # partial pivoting (OneFlow's test_inv checks every autotest program in a graph too)
    a = np.random.default_rng(seed).standard_normal(batch + (n, n))
    a[..., 0, :] *= 1e-3  # a small leading row: pivoting matters

    class G(flow.nn.Graph):
        def build(self, x):
            return flow.linalg.inv(x)

    np.testing.assert_allclose(G()(flow.tensor(a)).numpy(), np.linalg.inv(a), rtol=1e-7, atol=1e-7 * np.abs(
        np.linalg.inv(a)).max())


def test_singular_triangular_systems_as_torch():
    # a zero on the diagonal: substitution's infinities and NaNs (numpy's solver raised its own
    # LinAlgError), and cholesky_inverse's LinAlgError (a RuntimeError) naming the element
    cases = [
        lambda m: m.linalg.solve_triangular(m.tensor([[0., 0.], [1., 1.]]), m.tensor([[1.], [2.]]), upper=False),
        lambda m: m.linalg.solve_triangular(m.tensor([[1., 2.], [0., 0.]]), m.tensor([[1.], [2.]]), upper=True),
        lambda m: m.cholesky_solve(m.ones(3, 1), m.zeros(3, 3)),
        lambda m: m.triangular_solve(m.ones(2, 3, 1), m.zeros(2, 3, 3))[0],
    ]
    want = [np.array([[np.inf], [-np.inf]]), np.array([[-np.inf], [np.inf]]), np.full((3, 1), np.nan),
            np.array([[[np.nan], [np.nan], [np.inf]]] * 2)]
    for case, w in zip(cases, want):
        got = case(flow).numpy()
        np.testing.assert_array_equal(got, w)
        if torch is not None:
            np.testing.assert_array_equal(got, case(torch).numpy())
    for shape, prefix in (((3, 3), ""), ((2, 2, 3, 3), r"\(Batch element 0\): ")):
        with pytest.raises(flow.linalg.LinAlgError, match=prefix + "The diagonal element 1 is zero"):
            flow.cholesky_inverse(flow.zeros(*shape))
    assert issubclass(flow.linalg.LinAlgError, RuntimeError)
