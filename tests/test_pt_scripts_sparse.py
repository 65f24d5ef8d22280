"""Sparse COO tensors as the public GCN example uses them (issue 13: pytorch/examples gcn builds
its normalized adjacency with sparse_coo_tensor / to_sparse and multiplies with spmm), checked
against torch. monoflow stores them densely (ops_sparse): values, gradients and the sparse
accessors must match torch's."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")

IND = np.array([[0, 1, 1, 3], [2, 0, 0, 1]], dtype=np.int32)  # a repeated index, int32 as numpy gives
VAL = [1.0, 2.0, 3.0, -4.0]


def build(lib, **kw):
    return lib.sparse_coo_tensor(IND, lib.tensor(VAL), (4, 3), **kw)


def test_construction_and_accessors_match_torch():
    f, t = build(flow), build(torch)
    assert f.is_sparse and t.is_sparse and not flow.ones(2).is_sparse
    assert f.layout == flow.sparse_coo and flow.ones(2).layout == flow.strided
    assert f.is_coalesced() == t.is_coalesced() is False
    assert f._nnz() == t._nnz() == 4
    np.testing.assert_array_equal(f._indices().numpy(), t._indices().numpy())
    np.testing.assert_array_equal(f.to_dense().numpy(), t.to_dense().numpy())
    fc, tc = f.coalesce(), t.coalesce()
    assert fc.is_coalesced() and fc._nnz() == tc._nnz() == 3
    np.testing.assert_array_equal(fc.indices().numpy(), tc.indices().numpy())
    np.testing.assert_array_equal(fc.values().numpy(), tc.values().numpy())
    assert fc.coalesce() is fc
    assert repr(fc).replace("monoflow", "torch") == repr(tc)
    assert repr(f).replace("monoflow", "torch") == repr(t)
    assert (fc.sparse_dim(), fc.dense_dim(), flow.ones(2, 3).sparse_dim(), flow.ones(2, 3).dense_dim()) == \
        (tc.sparse_dim(), tc.dense_dim(), torch.ones(2, 3).sparse_dim(), torch.ones(2, 3).dense_dim())


def test_dtype_size_inference_and_to_sparse():
    f = flow.sparse_coo_tensor(IND, flow.ones(4), dtype=flow.int64)
    t = torch.sparse_coo_tensor(IND, torch.ones(4), dtype=torch.int64)
    assert tuple(f.shape) == tuple(t.shape) and str(f.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    d = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 5.0]], dtype=np.float32)
    fs, ts = flow.tensor(d).to_sparse(), torch.tensor(d).to_sparse()
    assert fs.is_coalesced() and fs.to_sparse() is fs
    np.testing.assert_array_equal(fs.indices().numpy(), ts.indices().numpy())
    np.testing.assert_array_equal(fs.values().numpy(), ts.values().numpy())


def test_products_and_gradients_match_torch():
    rs = np.random.RandomState(0)
    dense, w = rs.randn(3, 5).astype(np.float32), rs.randn(4, 4).astype(np.float32)
    out = []
    for lib in (flow, torch):
        v = lib.tensor(VAL, requires_grad=True)
        s = lib.sparse_coo_tensor(IND, v, (4, 3))
        x = lib.tensor(dense, requires_grad=True)
        eye_plus = lib.eye(4) + lib.sparse_coo_tensor(IND[:, :2] + 1, lib.ones(2), (4, 4), dtype=lib.int64)
        deg = lib.diag(lib.sqrt(1 / lib.sum(eye_plus, dim=1))).to_sparse()
        a = (deg @ eye_plus @ deg).to_sparse()
        y = lib.spmm(a, lib.mm(s, x)) + lib.tensor(w) @ lib.mm(s, x)
        y.pow(2).sum().backward()
        out.append((y.detach().numpy(), v.grad.numpy(), x.grad.numpy(), a.layout == lib.sparse_coo))
    for g, r in zip(out[0][:3], out[1][:3]):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    assert out[0][3] and out[1][3]


def test_requires_grad_leaf():
    s = flow.sparse_coo_tensor(IND, flow.tensor(VAL), (4, 3), requires_grad=True)
    assert s.is_leaf and s.requires_grad
    (s * 2).sum().backward()
    np.testing.assert_array_equal(s.grad.numpy(), np.full((4, 3), 2.0, np.float32))


def test_refusals_as_torch():
    for lib in (flow, torch):
        with pytest.raises(RuntimeError, match="same nnz"):
            lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], (3,))
        with pytest.raises(RuntimeError, match="uncoalesced"):
            build(lib).indices()
        with pytest.raises(RuntimeError, match="expected sparse coordinate tensor layout but got Strided"):
            lib.ones(2).indices()
    with pytest.raises(RuntimeError, match="out of bounds"):
        flow.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))
    with pytest.raises(NotImplementedError, match="hybrid"):
        flow.ones(2, 3).to_sparse(1)
