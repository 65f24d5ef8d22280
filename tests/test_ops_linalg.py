"""mm, bmm, mv, addmm, dot, outer and einsum against numpy/torch on every device."""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import monoflow as flow


def arr(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def T(a, device):
    return flow.tensor(a, device=device)


def check(out, ref, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=rtol, atol=atol)


@given(m=st.integers(0, 6), k=st.integers(0, 6), n=st.integers(0, 6), b=st.integers(1, 3))
def test_products_match_numpy(device, m, k, n, b):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    A, B, v = arr(rng, m, k), arr(rng, k, n), arr(rng, k)
    check(flow.mm(T(A, device), T(B, device)), A @ B)
    check(flow.mv(T(A, device), T(v, device)), A @ v)
    C, D = arr(rng, b, m, k), arr(rng, b, k, n)
    check(flow.bmm(T(C, device), T(D, device)), C @ D)
    check(flow.dot(T(v, device), T(v, device)), v @ v)
    check(flow.outer(T(A[:, 0] if k else np.zeros(m), device), T(v, device)), np.outer(A[:, 0] if k else np.zeros(m), v))
    bias = arr(rng, n)
    check(flow.addmm(T(bias, device), T(A, device), T(B, device), beta=0.5, alpha=2.0), 0.5 * bias + 2.0 * (A @ B))


def test_transposed_operands(device):
    rng = np.random.default_rng(0)
    A, B = arr(rng, 5, 3, dtype=np.float32), arr(rng, 5, 4, dtype=np.float32)
    check(flow.mm(T(A, device).T, T(B, device)), A.T @ B, rtol=1e-5, atol=1e-5)
    assert T(A, device).T.mm(T(B, device)).shape == (3, 4)


EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(6,), (6,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 5)]),
    ("ij->", [(3, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ijk,ik->j", [(2, 3, 4), (2, 4)]),
    ("i,i,i->i", [(5,), (5,), (5,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS)
def test_einsum_matches_numpy(device, eq, shapes):
    rng = np.random.default_rng(len(eq))
    ops = [arr(rng, *s) for s in shapes]
    out = flow.einsum(eq, *[T(o, device) for o in ops])
    ref = np.einsum(eq, *ops)
    assert tuple(out.shape) == ref.shape
    check(out, ref, rtol=1e-6, atol=1e-9)


def test_einsum_matches_torch(device):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = arr(rng, 2, 1, 4), arr(rng, 3, 4)
    out = flow.einsum("bij,kj->bik", T(a, device), T(b, device))
    ref = torch.einsum("bij,kj->bik", torch.from_numpy(a), torch.from_numpy(b)).numpy()
    check(out, ref)


def test_bad_input(device):
    a = flow.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match="mm: mat2 must be a matrix"):
        flow.mm(a, flow.ones(3, device=device))
    with pytest.raises(RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        flow.mm(a, a)
    with pytest.raises(RuntimeError, match="bmm: batch sizes differ"):
        flow.bmm(flow.ones(2, 2, 2, device=device), flow.ones(3, 2, 2, device=device))
    with pytest.raises(RuntimeError, match="dot: inconsistent"):
        flow.dot(flow.ones(2, device=device), flow.ones(3, device=device))
    with pytest.raises(RuntimeError, match="einsum"):  # (torch's and OneFlow's type)
        flow.einsum("ij,jk->ik", a)
    with pytest.raises(RuntimeError, match="einsum"):
        flow.einsum("ijk->i", a)
    with pytest.raises(RuntimeError, match="einsum: output subscript 'z'"):
        flow.einsum("ij->z", a)
    with pytest.raises(TypeError, match=r"mm\(\): argument 'mat2' \(position 2\) must be Tensor"):
        flow.mm(a, [[1.0]])
