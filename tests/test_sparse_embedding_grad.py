"""nn.Embedding(sparse=True) / EmbeddingBag(sparse=True) and optim.SparseAdam against torch
(Note [Sparse row gradients] in ops_sparse): which rows the gradient holds, across accumulation,
zero_grad and tied (dense) uses of the table, and the lazy-Adam trajectory."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import monoflow as flow
from monoflow.autograd.engine_callbacks import queue_callback

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")


def table(lib, n, d, seed, **kw):
    emb = lib.nn.Embedding(n, d, sparse=True, **kw)
    with lib.no_grad():
        emb.weight.copy_(lib.tensor(np.random.RandomState(seed).randn(n, d).astype(np.float32)))
    return emb


def rows_of(grad):
    return grad.coalesce().indices().tolist()


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 12), st.integers(1, 4), st.integers(0, 2 ** 16),
       st.booleans(), st.sampled_from([None, 0, -1]), st.booleans())
def test_sparse_adam_matches_torch(n, d, seed, maximize, padding_idx, accumulate_twice):
    rs = np.random.RandomState(seed)
    batches = [rs.randint(0, n, size=(2, 3)) for _ in range(4)]
    results = []
    for lib in (flow, torch):
        emb = table(lib, n, d, seed, padding_idx=padding_idx)
        opt = lib.optim.SparseAdam(emb.parameters(), lr=0.05, betas=(0.8, 0.9), maximize=maximize)
        seen = []
        for b in batches:
            opt.zero_grad()
            for _ in range(2 if accumulate_twice else 1):
                (emb(lib.tensor(b)) ** 2).sum().backward()
            g = emb.weight.grad
            seen.append((g.is_sparse, g.sparse_dim(), g.dense_dim(), rows_of(g),
                         g.coalesce().values().detach().numpy().copy()))
            opt.step()
        results.append((seen, emb.weight.detach().numpy().copy(), opt.state[emb.weight]["step"]))
    (fs, fw, fstep), (ts, tw, tstep) = results
    assert fstep == tstep
    for (f, t) in zip(fs, ts):
        assert f[:4] == t[:4]
        np.testing.assert_allclose(f[4], t[4], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(fw, tw, rtol=1e-5, atol=1e-6)


def test_rows_with_zero_gradient_still_count():
    # a looked-up row whose gradient is exactly 0 is an entry (its moments decay), as in torch
    for lib in (flow, torch):
        emb = table(lib, 5, 2, 0)
        (emb(lib.tensor([1, 3])) * lib.tensor([[1.0, 1.0], [0.0, 0.0]])).sum().backward()
        assert rows_of(emb.weight.grad) == [[1, 3]]


def test_tied_dense_use_makes_the_gradient_dense():
    emb = table(flow, 6, 3, 1)
    x = emb(flow.tensor([2]))
    (x @ emb.weight.T).sum().backward()  # the table also used densely (tied output layer)
    assert not emb.weight.grad.is_sparse
    opt = flow.optim.SparseAdam(emb.parameters())
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        opt.step()


def test_zero_grad_keeping_tensors_clears_the_rows():
    for lib in (flow, torch):
        emb = table(lib, 6, 2, 2)
        opt = lib.optim.SparseAdam(emb.parameters())
        emb(lib.tensor([0, 4])).sum().backward()
        opt.zero_grad(set_to_none=False)
        emb(lib.tensor([2])).sum().backward()
        assert rows_of(emb.weight.grad) == [[2]], lib.__name__


def test_dense_optimizers_take_sparse_gradients_like_torch():
    for name, kw in (("SGD", dict(lr=0.1)), ("Adagrad", dict(lr=0.1))):
        out = []
        for lib in (flow, torch):
            emb = table(lib, 7, 3, 3)
            opt = getattr(lib.optim, name)(emb.parameters(), **kw)
            for b in ([1, 1, 4], [0, 6]):
                opt.zero_grad()
                emb(lib.tensor(b)).pow(2).sum().backward()
                opt.step()
            out.append(emb.weight.detach().numpy())
        np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-6, err_msg=name)


def test_embedding_bag_sparse_rows_skip_padding_slots():
    for lib in (flow, torch):
        bag = lib.nn.EmbeddingBag(8, 2, mode="sum", sparse=True, padding_idx=5)
        bag(lib.tensor([1, 5, 3, 7, 7]), lib.tensor([0, 2])).sum().backward()
        assert rows_of(bag.weight.grad) == [[1, 3, 7]], lib.__name__


def test_autograd_grad_leaves_dot_grad_alone_and_gives_the_gradient():
    emb = table(flow, 4, 2, 4)
    (g,) = flow.autograd.grad(emb(flow.tensor([1, 1])).sum(), emb.weight)
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [2, 2], [0, 0], [0, 0]])
    assert emb.weight.grad is None


def test_sparse_adam_validates_like_torch():
    w = flow.nn.Parameter(flow.ones(2))
    for kw, msg in ((dict(lr=0.0), "Invalid learning rate"), (dict(eps=0.0), "Invalid epsilon"),
                    (dict(betas=(1.0, 0.9)), "beta parameter at index 0"),
                    (dict(betas=(0.9, -0.1)), "beta parameter at index 1")):
        with pytest.raises(ValueError, match=msg):
            flow.optim.SparseAdam([w], **kw)
    with pytest.raises(ValueError, match="Sparse params at indices \\[\\[0, 0\\]\\]"):
        flow.optim.SparseAdam([flow.ones(2, 2).to_sparse().requires_grad_()])


def test_queue_callback_runs_after_accumulation_and_only_in_backward():
    w = flow.ones(2, requires_grad=True)
    seen = []
    w.register_hook(lambda g: flow.autograd.Variable._execution_engine.queue_callback(
        lambda: seen.append(w.grad.tolist())))
    (w * 3).sum().backward()
    (w * 2).sum().backward()
    assert seen == [[3.0, 3.0], [5.0, 5.0]]
    flow.autograd.grad((w * 2).sum(), w)  # grad() writes no .grad: its callbacks are dropped
    assert len(seen) == 2
    with pytest.raises(RuntimeError, match="only be installed during backward"):
        queue_callback(lambda: None)
    with pytest.raises(TypeError, match="must be callable"):
        queue_callback(3)


def test_hybrid_coo_tensors_and_sparse_mask_match_torch():
    ind, val = [[2, 0, 2]], np.array([[1.0, 0.0], [0.0, 0.0], [3.0, 4.0]], dtype=np.float32)
    dense = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    out = []
    for lib in (flow, torch):
        s = lib.sparse_coo_tensor(ind, lib.tensor(val), (3, 2))
        c = s.coalesce()  # the explicitly stored zero row stays an entry
        m = lib.tensor(dense).sparse_mask(s)
        mc = lib.tensor(dense).sparse_mask(c)
        out.append([(s.sparse_dim(), s.dense_dim(), s._nnz(), c._nnz(), m.is_coalesced(), mc.is_coalesced()),
                    c.indices().numpy(), c.values().numpy(), m._indices().numpy(), m._values().numpy(),
                    mc.values().numpy(), c.to_dense().numpy()])
    for f, t in zip(*out):
        if isinstance(f, tuple):
            assert f == t
        else:
            np.testing.assert_array_equal(f, t)
    with pytest.raises(RuntimeError, match="incompatible sizes"):
        flow.ones(2, 2).sparse_mask(flow.ones(2, 3).to_sparse())
    with pytest.raises(RuntimeError, match="sparse_mask"):
        flow.ones(2, 2).sparse_mask(flow.ones(2, 2))


def test_a_table_looked_up_twice_in_one_loss_keeps_a_sparse_gradient():
    # word2vec's pattern: one table serves the positive and the negative samples; the accumulated
    # gradient is sparse over both lookups' rows (each lookup checked alone made it dense), as torch's
    e = flow.nn.Embedding(10, 3, sparse=True)
    (e(flow.tensor([1, 2])).sum() + 2 * e(flow.tensor([3, 1])).sum()).backward()
    g = e.weight.grad
    assert g.is_sparse and g.coalesce().indices().tolist() == [[1, 2, 3]]
    want = np.zeros((10, 3), np.float32)
    want[1], want[2], want[3] = 3, 1, 2
    np.testing.assert_array_equal(g.to_dense().numpy(), want)
    before = e.weight.detach().numpy().copy()
    flow.optim.SparseAdam(list(e.parameters()), lr=0.1).step()
    changed = np.flatnonzero((e.weight.detach().numpy() != before).any(1))
    assert changed.tolist() == [1, 2, 3]
