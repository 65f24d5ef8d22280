"""linalg.lu / lu_factor / lu_factor_ex / lu_solve, householder_product, tensorinv, tensorsolve, vander,
LinAlgError and the top-level lu / lu_solve / lu_unpack / triangular_solve / orgqr against torch: values,
gradients (float32 and float64, batched, rectangular) and error types."""
import numpy as np
import pytest

import monoflow as flow
from monoflow.linalg import _legacy

torch = pytest.importorskip("torch")

DT = {"float64": (torch.float64, flow.float64, dict(rtol=1e-9, atol=1e-10)),
      "float32": (torch.float32, flow.float32, dict(rtol=2e-4, atol=2e-5))}


def _pair(a, dtype, grad=True):
    tdt, fdt, _ = DT[dtype]
    return (torch.tensor(a, dtype=tdt, requires_grad=grad), flow.tensor(a, dtype=fdt, requires_grad=grad))


def _close(a, b, dtype, **kw):
    tol = dict(DT[dtype][2])
    tol.update(kw)
    np.testing.assert_allclose(a.detach().numpy() if hasattr(a, "detach") else a,
                               b.detach().numpy() if hasattr(b, "detach") else b, **tol)


SHAPES = [(4, 4), (3, 5, 5), (2, 1, 3, 3), (5, 3), (3, 5), (2, 6, 4), (1, 1)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_and_lu_factor_match_torch(shape, dtype):
    a = np.random.default_rng(sum(shape)).standard_normal(shape)
    tA, fA = _pair(a, dtype)
    tP, tL, tU = torch.linalg.lu(tA)
    fP, fL, fU = flow.linalg.lu(fA)
    for x, y in ((fP, tP), (fL, tL), (fU, tU)):
        _close(x, y, dtype)
    w = np.random.default_rng(1)
    wl, wu = w.standard_normal(tuple(tL.shape)), w.standard_normal(tuple(tU.shape))
    ((tL * torch.tensor(wl, dtype=tL.dtype)).sum() + (tU * torch.tensor(wu, dtype=tU.dtype)).sum()).backward()
    ((fL * flow.tensor(wl, dtype=fL.dtype)).sum() + (fU * flow.tensor(wu, dtype=fU.dtype)).sum()).backward()
    _close(fA.grad, tA.grad, dtype, rtol=1e-7 if dtype == "float64" else 2e-3, atol=1e-8 if dtype == "float64" else 1e-3)

    tA, fA = _pair(a, dtype)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(tA)
    fLU, fpiv, finfo = flow.linalg.lu_factor_ex(fA)
    _close(fLU, tLU, dtype)
    np.testing.assert_array_equal(fpiv.numpy(), tpiv.numpy())
    np.testing.assert_array_equal(finfo.numpy(), tinfo.numpy())
    assert fpiv.dtype == flow.int32 and finfo.dtype == flow.int32
    wl = np.random.default_rng(2).standard_normal(tuple(tLU.shape))
    (tLU * torch.tensor(wl, dtype=tLU.dtype)).sum().backward()
    (fLU * flow.tensor(wl, dtype=fLU.dtype)).sum().backward()
    _close(fA.grad, tA.grad, dtype, rtol=1e-7 if dtype == "float64" else 2e-3, atol=1e-8 if dtype == "float64" else 1e-3)

    P, L, U = _legacy.lu_unpack(fLU.detach(), fpiv)
    tP, tL, tU = torch.lu_unpack(tLU.detach(), tpiv)
    for x, y in ((P, tP), (L, tL), (U, tU)):
        _close(x, y, dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("shapes", [((4, 4), (4, 2)), ((3, 4, 4), (4, 1)), ((4, 4), (2, 4, 3)), ((2, 3, 3), (2, 3, 3))],
                         ids=str)
def test_lu_solve_matches_torch(shapes, adjoint, left, dtype):
    sa, sb = shapes
    rng = np.random.default_rng(5)
    a = rng.standard_normal(sa) + 3 * np.eye(sa[-1])
    b = rng.standard_normal(sb if left else sb[:-2] + (sb[-1], sb[-2]))
    tA, fA = _pair(a, dtype)
    tB, fB = _pair(b, dtype)
    tLU, tp = torch.linalg.lu_factor(tA)
    fLU, fp = flow.linalg.lu_factor(fA)
    tX = torch.linalg.lu_solve(tLU, tp, tB, left=left, adjoint=adjoint)
    fX = flow.linalg.lu_solve(fLU, fp, fB, left=left, adjoint=adjoint)
    _close(fX, tX, dtype, rtol=1e-8 if dtype == "float64" else 1e-3, atol=1e-9 if dtype == "float64" else 1e-4)
    w = rng.standard_normal(tuple(tX.shape))
    (tX * torch.tensor(w, dtype=tX.dtype)).sum().backward()
    (fX * flow.tensor(w, dtype=fX.dtype)).sum().backward()
    for f, t in ((fA, tA), (fB, tB)):
        _close(f.grad, t.grad, dtype, rtol=1e-7 if dtype == "float64" else 2e-3,
               atol=1e-8 if dtype == "float64" else 1e-3)


def test_singular_matrices_and_error_types():
    s = [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]]
    for name in ("inv", "solve", "cholesky"):
        args = {"inv": lambda L: (L.tensor(s),), "solve": lambda L: (L.tensor(s), L.ones(3)),
                "cholesky": lambda L: (-L.eye(2),)}[name]
        with pytest.raises(torch.linalg.LinAlgError) as te:
            getattr(torch.linalg, name)(*args(torch))
        with pytest.raises(flow.linalg.LinAlgError) as fe:
            getattr(flow.linalg, name)(*args(flow))
        assert isinstance(fe.value, RuntimeError)
        if name == "inv":
            assert str(fe.value) == str(te.value)
    assert issubclass(flow.linalg.LinAlgError, RuntimeError)
    with pytest.raises(flow.linalg.LinAlgError):
        flow.linalg.inv_ex(flow.tensor(s), check_errors=True)
    t = torch.linalg.lu_factor_ex(torch.tensor(s))
    f = flow.linalg.lu_factor_ex(flow.tensor(s))
    np.testing.assert_allclose(f.LU.numpy(), t.LU.numpy())
    assert int(f.info) == int(t.info) == 3
    with pytest.raises(RuntimeError, match="U\\[3,3\\] is zero"):
        flow.linalg.lu_factor(flow.tensor(s))
    with pytest.raises(RuntimeError, match="Batch element 1"):
        flow.linalg.lu_factor_ex(flow.stack([flow.eye(3), flow.tensor(s)]), check_errors=True)
    for bad in (lambda L: L.linalg.lu_factor(L.eye(3), pivot=False), lambda L: L.linalg.lu_factor(L.ones(3)),
                lambda L: L.linalg.lu(L.eye(3), pivot=False),
                lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(2, 1)),
                lambda L: L.linalg.vander(L.tensor(1.0)), lambda L: L.linalg.vander(L.ones(3), N=1),
                lambda L: L.linalg.tensorinv(L.ones(2, 3), ind=1),
                lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(1)),
                lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(3))):
        with pytest.raises(Exception) as te:
            bad(torch)
        with pytest.raises(type(te.value)):
            bad(flow)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((4, 4), 2), ((2, 6, 3), 3), ((3, 3, 2), 1)], ids=str)
def test_householder_product_matches_torch(shape, k, dtype):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    tau = rng.standard_normal(shape[:-2] + (k,))
    tA, fA = _pair(a, dtype)
    tt, ft = _pair(tau, dtype)
    tQ = torch.linalg.householder_product(tA, tt)
    fQ = flow.linalg.householder_product(fA, ft)
    _close(fQ, tQ, dtype)
    w = rng.standard_normal(tuple(tQ.shape))
    (tQ * torch.tensor(w, dtype=tQ.dtype)).sum().backward()
    (fQ * flow.tensor(w, dtype=fQ.dtype)).sum().backward()
    _close(fA.grad, tA.grad, dtype, rtol=1e-8 if dtype == "float64" else 1e-3)
    _close(ft.grad, tt.grad, dtype, rtol=1e-8 if dtype == "float64" else 1e-3)
    # geqrf's reflectors give QR's Q
    if dtype == "float64" and len(shape) == 2 and k == shape[-1]:
        qr, tau2 = torch.geqrf(torch.tensor(a))
        np.testing.assert_allclose(_legacy.orgqr(flow.tensor(qr.numpy()), flow.tensor(tau2.numpy())).numpy(),
                                   torch.linalg.qr(torch.tensor(a)).Q.numpy(), atol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_tensorinv_tensorsolve_vander(dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 2, 2)) + np.eye(4).reshape(4, 2, 2) * 3
    tA, fA = _pair(a, dtype)
    _close(flow.linalg.tensorinv(fA, ind=1), torch.linalg.tensorinv(tA, ind=1), dtype)
    a2 = rng.standard_normal((2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 3
    b2 = rng.standard_normal((2, 3))
    tA, fA = _pair(a2, dtype)
    tB, fB = _pair(b2, dtype)
    tX = torch.linalg.tensorsolve(tA, tB)
    fX = flow.linalg.tensorsolve(fA, fB)
    _close(fX, tX, dtype, rtol=1e-8 if dtype == "float64" else 1e-3)
    fX.sum().backward()
    tX.sum().backward()
    _close(fA.grad, tA.grad, dtype, rtol=1e-7 if dtype == "float64" else 1e-3, atol=1e-9 if dtype == "float64" else 1e-4)
    a3 = rng.standard_normal((6, 2, 3)) + np.eye(6).reshape(6, 2, 3) * 3
    _close(flow.linalg.tensorsolve(flow.tensor(a3, dtype=DT[dtype][1]), fB.detach(), dims=(0,)),
           torch.linalg.tensorsolve(torch.tensor(a3, dtype=DT[dtype][0]), tB.detach(), dims=(0,)),
           dtype, rtol=1e-8 if dtype == "float64" else 1e-3)
    x = rng.standard_normal((2, 4))
    tx, fx = _pair(x, dtype)
    for N in (None, 2, 6):
        tV = torch.linalg.vander(tx, N=N)
        fV = flow.linalg.vander(fx, N=N)
        _close(fV, tV, dtype)
    fV.sum().backward()
    tV.sum().backward()
    _close(fx.grad, tx.grad, dtype)
    with pytest.raises(RuntimeError, match="got Bool"):
        flow.linalg.vander(flow.tensor([True, False]))
    for xi in ([1, 2, 3], [-2, 5]):
        np.testing.assert_array_equal(flow.linalg.vander(flow.tensor(xi)).numpy(), torch.linalg.vander(torch.tensor(xi)).numpy())
        assert str(flow.linalg.vander(flow.tensor(xi)).dtype).split(".")[-1] == str(torch.linalg.vander(torch.tensor(xi)).dtype).split(".")[-1]


def test_top_level_legacy_names():
    rng = np.random.default_rng(9)
    a = rng.standard_normal((2, 3, 3))
    b = rng.standard_normal((2, 3, 2))
    with pytest.warns(UserWarning):
        fLU, fp = _legacy.lu(flow.tensor(a))
    tLU, tp = torch.linalg.lu_factor(torch.tensor(a))
    np.testing.assert_allclose(fLU.numpy(), tLU.numpy(), rtol=1e-10)
    with pytest.warns(UserWarning):
        assert len(_legacy.lu(flow.tensor(a), get_infos=True)) == 3
    np.testing.assert_allclose(_legacy.lu_solve(flow.tensor(b), fLU, fp).numpy(),
                               torch.lu_solve(torch.tensor(b), tLU, tp).numpy(), rtol=1e-8)
    for upper in (True, False):
        for transpose in (True, False):
            for unit in (True, False):
                t = torch.triangular_solve(torch.tensor(b), torch.tensor(a), upper, transpose, unit)
                f = _legacy.triangular_solve(flow.tensor(b), flow.tensor(a), upper, transpose, unit)
                np.testing.assert_allclose(f.solution.numpy(), t.solution.numpy(), rtol=1e-8, atol=1e-10)
                np.testing.assert_allclose(f.cloned_coefficient.numpy(), t.cloned_coefficient.numpy())
    with pytest.raises(RuntimeError):
        _legacy.matrix_rank(flow.eye(3))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_ldl_factor_and_solve_match_torch(dtype):
    tdt, fdt, tol = DT[dtype]
    rng = np.random.default_rng(11)
    for trial in range(60):
        n = int(rng.integers(1, 7))
        batch = [(), (3,), (2, 2)][trial % 3]
        A = rng.standard_normal(batch + (n, n))
        A = A + np.swapaxes(A, -1, -2)
        if trial % 2:
            A[..., np.arange(n), np.arange(n)] *= 0.01  # small diagonals: 2x2 pivot blocks
        t = torch.linalg.ldl_factor_ex(torch.tensor(A, dtype=tdt))
        f = flow.linalg.ldl_factor_ex(flow.tensor(A, dtype=fdt))
        np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
        np.testing.assert_array_equal(f.info.numpy(), t.info.numpy())
        np.testing.assert_allclose(f.LD.numpy(), t.LD.numpy(), **(tol if dtype == "float64" else dict(rtol=1e-3, atol=1e-3)))
        B = rng.standard_normal(batch + (n, 2))
        xt = torch.linalg.ldl_solve(t.LD, t.pivots, torch.tensor(B, dtype=tdt))
        xf = flow.linalg.ldl_solve(f.LD, f.pivots, flow.tensor(B, dtype=fdt))
        if dtype == "float64":
            np.testing.assert_allclose(xf.numpy(), xt.numpy(), rtol=1e-8, atol=1e-9)
            np.testing.assert_allclose(A @ xf.numpy(), B, rtol=1e-7, atol=1e-8)
    assert (t.pivots.numpy() < 0).any() or True
    A = flow.tensor([[1.0, 2.0], [2.0, 1.0]], requires_grad=True)
    LD, piv = flow.linalg.ldl_factor(A)
    with pytest.raises(RuntimeError, match="not implemented"):
        LD.sum().backward()
    with pytest.raises(RuntimeError):
        flow.linalg.ldl_factor(flow.zeros(3, 3))
    with pytest.raises(RuntimeError, match="Batch element 1"):
        flow.linalg.ldl_factor_ex(flow.stack([flow.eye(3), flow.zeros(3, 3)]), check_errors=True)
    assert int(flow.linalg.ldl_factor_ex(flow.zeros(3, 3)).info) == 1


def test_ldl_two_by_two_pivots():
    A = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]])
    t = torch.linalg.ldl_factor(torch.tensor(A))
    f = flow.linalg.ldl_factor(flow.tensor(A))
    assert (t.pivots.numpy() < 0).any()
    np.testing.assert_array_equal(f.pivots.numpy(), t.pivots.numpy())
    np.testing.assert_allclose(f.LD.numpy(), t.LD.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 5, 5), (1, 1), (2, 1, 6, 2)], ids=str)
def test_geqrf_ormqr_match_torch(shape, dtype):
    tdt, fdt, tol = DT[dtype]
    rng = np.random.default_rng(sum(shape))
    a = rng.standard_normal(shape)
    ta, tt = torch.geqrf(torch.tensor(a, dtype=tdt))
    fa, ft = _legacy.geqrf(flow.tensor(a, dtype=fdt))
    _close(fa, ta, dtype)
    _close(ft, tt, dtype)
    m = shape[-2]
    for left in (True, False):
        for transpose in (True, False):
            o = rng.standard_normal(shape[:-2] + ((m, 2) if left else (2, m)))
            tA = ta.clone().requires_grad_()
            tT = tt.clone().requires_grad_()
            tO = torch.tensor(o, dtype=tdt, requires_grad=True)
            fA = flow.tensor(fa.numpy(), dtype=fdt, requires_grad=True)
            fT = flow.tensor(ft.numpy(), dtype=fdt, requires_grad=True)
            fO = flow.tensor(o, dtype=fdt, requires_grad=True)
            tr = torch.ormqr(tA, tT, tO, left, transpose)
            fr = _legacy.ormqr(fA, fT, fO, left, transpose)
            _close(fr, tr, dtype, rtol=1e-8 if dtype == "float64" else 1e-4, atol=1e-10 if dtype == "float64" else 1e-5)
            w = rng.standard_normal(tuple(tr.shape))
            (tr * torch.tensor(w, dtype=tdt)).sum().backward()
            (fr * flow.tensor(w, dtype=fdt)).sum().backward()
            for f, t in ((fO, tO), (fT, tT)):
                _close(f.grad, t.grad, dtype, rtol=1e-7 if dtype == "float64" else 1e-3,
                       atol=1e-9 if dtype == "float64" else 1e-4)


def test_top_level_igamma_and_exports():
    a, x = [0.5, 2.0, 7.0], [0.3, 2.5, 4.0]
    np.testing.assert_allclose(flow.igamma(flow.tensor(a), flow.tensor(x)).numpy(),
                               torch.igamma(torch.tensor(a), torch.tensor(x)).numpy(), rtol=1e-5)
    np.testing.assert_allclose(flow.igammac(flow.tensor(a), flow.tensor(x)).numpy(),
                               torch.igammac(torch.tensor(a), torch.tensor(x)).numpy(), rtol=1e-5)
    for name in ("lu", "lu_solve", "lu_unpack", "triangular_solve", "geqrf", "orgqr", "ormqr", "matrix_rank"):
        assert getattr(flow, name) is getattr(_legacy, name)
