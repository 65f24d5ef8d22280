"""The fused LSTM cell (_C.lstm_cell, Note [Fused LSTM cell]), the GRU's
sequence node (Note [GRU backward over the sequence]) and the
vectorised float exp/tanh/sigmoid/erf under it (Note [Vectorisable
transcendentals]), against PyTorch: nn.LSTM / nn.LSTMCell with copied
weights (outputs, states and every gradient), the cell's own backward (each
output's gradient alone, double backward), and the activations' values over
the whole float range."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import monoflow as flow
from monoflow import _C

torch = pytest.importorskip("torch")

SETTINGS = settings(max_examples=25, deadline=None)


def to_torch(t):
    return torch.from_numpy(t.detach().numpy().copy())


def copy_weights(fm, tm):
    with torch.no_grad():
        for name, p in fm.named_parameters():
            getattr(tm, name).copy_(to_torch(p))


def close(a, b, tol):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@SETTINGS
@given(T=st.integers(1, 5), N=st.integers(1, 4), I=st.integers(1, 6), H=st.integers(1, 7),
       layers=st.integers(1, 3), bidirectional=st.booleans(), batch_first=st.booleans(), bias=st.booleans(),
       with_state=st.booleans(), dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 16))
def test_lstm_matches_torch(T, N, I, H, layers, bidirectional, batch_first, bias, with_state, dtype, seed):
    kw = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias, dropout=0.0)
    fm = flow.nn.LSTM(I, H, **kw).to(getattr(flow, dtype))
    tm = torch.nn.LSTM(I, H, **kw).to(getattr(torch, dtype))
    copy_weights(fm, tm)
    rng = np.random.default_rng(seed)
    shape = (N, T, I) if batch_first else (T, N, I)
    x = rng.standard_normal(shape).astype(dtype)
    xf, xt = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    states = ()
    if with_state:
        s = [rng.standard_normal((layers * (1 + bidirectional), N, H)).astype(dtype) for _ in range(2)]
        hf, cf = (flow.tensor(v, requires_grad=True) for v in s)
        ht, ct = (torch.tensor(v, requires_grad=True) for v in s)
        states = ((hf, cf), (ht, ct))
    of, (hnf, cnf) = fm(xf, *states[:1])
    ot, (hnt, cnt) = tm(xt, *states[1:])
    tol = 1e-5 if dtype == "float32" else 1e-10
    for a, b in ((of, ot), (hnf, hnt), (cnf, cnt)):
        close(a, b, tol)
    # a loss that reaches every output, each with its own weights
    w = [rng.standard_normal(tuple(t.shape)).astype(dtype) for t in (ot, hnt, cnt)]
    (sum((a * flow.tensor(v)).sum() for a, v in zip((of, hnf, cnf), w))).backward()
    (sum((a * torch.tensor(v)).sum() for a, v in zip((ot, hnt, cnt), w))).backward()
    close(xf.grad, xt.grad, 10 * tol)
    if with_state:
        close(states[0][0].grad, states[1][0].grad, 10 * tol)
        close(states[0][1].grad, states[1][1].grad, 10 * tol)
    for name, p in fm.named_parameters():
        close(p.grad, getattr(tm, name).grad, 10 * tol)


@SETTINGS
@given(N=st.integers(1, 5), I=st.integers(1, 6), H=st.integers(1, 7), bias=st.booleans(), batched=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_lstm_cell_module_matches_torch(N, I, H, bias, batched, seed):
    fm, tm = flow.nn.LSTMCell(I, H, bias=bias), torch.nn.LSTMCell(I, H, bias=bias)
    copy_weights(fm, tm)
    rng = np.random.default_rng(seed)
    lead = (N,) if batched else ()
    x, h, c = (rng.standard_normal(lead + (n,)).astype("float32") for n in (I, H, H))
    ff = [flow.tensor(v, requires_grad=True) for v in (x, h, c)]
    tt = [torch.tensor(v, requires_grad=True) for v in (x, h, c)]
    hf, cf = fm(ff[0], (ff[1], ff[2]))
    ht, ct = tm(tt[0], (tt[1], tt[2]))
    close(hf, ht, 1e-5)
    close(cf, ct, 1e-5)
    (hf.sum() + 2 * cf.sum()).backward()
    (ht.sum() + 2 * ct.sum()).backward()
    for a, b in zip(ff, tt):
        close(a.grad, b.grad, 1e-5)
    for name, p in fm.named_parameters():
        close(p.grad, getattr(tm, name).grad, 1e-5)


@SETTINGS
@given(T=st.integers(1, 5), N=st.integers(1, 4), I=st.integers(1, 6), H=st.integers(1, 7),
       layers=st.integers(1, 3), bidirectional=st.booleans(), batch_first=st.booleans(), bias=st.booleans(),
       with_state=st.booleans(), dtype=st.sampled_from(["float32", "float64"]), seed=st.integers(0, 2 ** 16),
       kind=st.sampled_from([("GRU", {}), ("RNN", {"nonlinearity": "tanh"}), ("RNN", {"nonlinearity": "relu"})]))
def test_gru_and_rnn_match_torch(T, N, I, H, layers, bidirectional, batch_first, bias, with_state, dtype, seed,
                                 kind):
    kw = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, bias=bias, dropout=0.0,
              **kind[1])
    fm = getattr(flow.nn, kind[0])(I, H, **kw).to(getattr(flow, dtype))
    tm = getattr(torch.nn, kind[0])(I, H, **kw).to(getattr(torch, dtype))
    copy_weights(fm, tm)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, T, I) if batch_first else (T, N, I)).astype(dtype)
    xf, xt = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    h0 = rng.standard_normal((layers * (1 + bidirectional), N, H)).astype(dtype)
    hf, ht = flow.tensor(h0, requires_grad=True), torch.tensor(h0, requires_grad=True)
    of, hnf = fm(xf, hf) if with_state else fm(xf)
    ot, hnt = tm(xt, ht) if with_state else tm(xt)
    tol = 1e-5 if dtype == "float32" else 1e-10
    close(of, ot, tol)
    close(hnf, hnt, tol)
    w = [rng.standard_normal(tuple(t.shape)).astype(dtype) for t in (ot, hnt)]
    ((of * flow.tensor(w[0])).sum() + (hnf * flow.tensor(w[1])).sum()).backward()
    ((ot * torch.tensor(w[0])).sum() + (hnt * torch.tensor(w[1])).sum()).backward()
    close(xf.grad, xt.grad, 10 * tol)
    if with_state:
        close(hf.grad, ht.grad, 10 * tol)
    for name, p in fm.named_parameters():
        close(p.grad, getattr(tm, name).grad, 10 * tol)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kind,kw,node", [("GRU", {}, "GRUSequenceBackward"),
                                          ("RNN", {}, "RNNTanhSequenceBackward"),
                                          ("RNN", {"nonlinearity": "relu"}, "RNNReluSequenceBackward")])
def test_gru_and_rnn_sequence_nodes_first_and_second_derivatives(bias, kind, kw, node):
    # Notes [GRU backward over the sequence], [Elman RNN backward over the sequence]
    m = getattr(flow.nn, kind)(3, 4, 2, bias=bias, bidirectional=True, **kw).double()
    x = flow.randn(5, 2, 3, dtype=flow.float64, requires_grad=True)
    h0 = flow.randn(4, 2, 4, dtype=flow.float64, requires_grad=True)
    assert type(getattr(flow.nn, kind)(3, 4, bias=bias, **kw).double()(x)[0].grad_fn).__name__ == node
    assert flow.autograd.gradcheck(lambda x, h: m(x, h)[0], (x, h0))
    assert flow.autograd.gradgradcheck(lambda x, h: m(x, h)[0], (x, h0))
    assert flow.autograd.gradcheck(lambda h: m(x, h)[1], (h0,))
    weights = [p for p in m.parameters()]
    assert flow.autograd.gradcheck(lambda *w: flow.func.functional_call(
        m, dict(zip([n for n, _ in m.named_parameters()], w)), (x,))[0], weights)


def torch_cell(gates, c):
    i, f, g, o = gates.chunk(4, 1)
    c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(c2), c2


@pytest.mark.parametrize("use", ["h", "c", "both"])
def test_cell_gradient_of_each_output(use):
    # an output whose gradient never arrives counts as zero
    rng = np.random.default_rng(0)
    g, c = rng.standard_normal((3, 20)).astype("float32") * 3, rng.standard_normal((3, 5)).astype("float32")
    gf, cf = flow.tensor(g, requires_grad=True), flow.tensor(c, requires_grad=True)
    gt, ct = torch.tensor(g, requires_grad=True), torch.tensor(c, requires_grad=True)
    (hf, c2f), (ht, c2t) = _C.lstm_cell(gf, cf), torch_cell(gt, ct)
    pick = {"h": lambda h, c2: h.sum(), "c": lambda h, c2: (c2 * c2).sum(), "both": lambda h, c2: (h * c2).sum()}[use]
    pick(hf, c2f).backward()
    pick(ht, c2t).backward()
    close(gf.grad, gt.grad, 1e-5)
    close(cf.grad, ct.grad, 1e-5)


def test_cell_double_backward_matches_torch():
    rng = np.random.default_rng(1)
    g, c = rng.standard_normal((2, 12)), rng.standard_normal((2, 3))
    gf, cf = flow.tensor(g, requires_grad=True), flow.tensor(c, requires_grad=True)
    gt, ct = torch.tensor(g, requires_grad=True), torch.tensor(c, requires_grad=True)
    results = []
    for lib, cell, a, b in ((flow, _C.lstm_cell, gf, cf), (torch, torch_cell, gt, ct)):
        h, c2 = cell(a, b)
        da, db = lib.autograd.grad((h * c2).sum(), (a, b), create_graph=True)
        results.append(lib.autograd.grad((da * da).sum() + (db * db).sum(), (a, b)))
    for a, b in zip(*results):
        close(a, b, 1e-10)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_sequence_node_first_and_second_derivatives(bidirectional):
    # Note [LSTM backward over the sequence]: one node per direction, whose backward replays the
    # steps differentiably under create_graph
    m = flow.nn.LSTM(3, 4, 2, bidirectional=bidirectional).double()
    x = flow.randn(5, 2, 3, dtype=flow.float64, requires_grad=True)
    h0 = flow.randn(2 * (2 if bidirectional else 1), 2, 4, dtype=flow.float64, requires_grad=True)
    assert m(x)[0].grad_fn is not None
    assert flow.autograd.gradcheck(lambda x, h: m(x, (h, h * 0.5))[0], (x, h0))
    assert flow.autograd.gradgradcheck(lambda x, h: m(x, (h, h * 0.5))[0], (x, h0))
    assert flow.autograd.gradcheck(lambda h: m(x, (h, h * 0.5))[1][1], (h0,))


def test_cell_no_grad_and_empty_batch():
    with flow.no_grad():
        h, c = _C.lstm_cell(flow.zeros(4, 8), flow.ones(4, 2))
    np.testing.assert_allclose(c.numpy(), 0.5 + 0.0 * c.numpy())  # sigmoid(0) * 1 + sigmoid(0) * tanh(0)
    np.testing.assert_allclose(h.numpy(), 0.5 * np.tanh(0.5) * np.ones((4, 2)), rtol=1e-6)
    h, c = _C.lstm_cell(flow.zeros(0, 8, requires_grad=True), flow.zeros(0, 2))
    assert tuple(h.shape) == (0, 2) and tuple(c.shape) == (0, 2)


def test_cell_bad_arguments():
    with pytest.raises(ValueError, match="lstm_cell"):
        _C.lstm_cell(flow.zeros(4, 7), flow.zeros(4, 2))
    with pytest.raises(ValueError, match="lstm_cell"):
        _C.lstm_cell(flow.zeros(8), flow.zeros(2))
    with pytest.raises(TypeError, match="lstm_cell"):
        _C.lstm_cell(flow.zeros(4, 8), flow.zeros(4, 2, dtype=flow.float64))
    with pytest.raises(TypeError, match="lstm_cell"):
        _C.lstm_cell(flow.zeros(4, 8, dtype=flow.int64), flow.zeros(4, 2, dtype=flow.int64))
    with pytest.raises(TypeError):
        _C.lstm_cell([1.0], flow.zeros(4, 2))


# ------------------------------------------------------------ the vectorised activations

def float_sweep():
    """Every 4099th float32 bit pattern (all signs, exponents, NaNs, infinities) plus the edges."""
    bits = np.arange(0, 2 ** 32, 4099, dtype=np.uint64).astype(np.uint32)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -87.3, -103.0, -104.5, 1e-40, -1e-40,
                      0.625, -0.625, 9.0, -9.0, 44.0, -44.0], dtype=np.float32)
    return np.concatenate([bits.view(np.float32), edges])


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "erf"])
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_activation_values_match_torch(name, dtype):
    x = float_sweep()
    tx = torch.from_numpy(x).to(getattr(torch, dtype))
    fx = flow.tensor(tx.float().numpy()).to(getattr(flow, dtype))
    ref = getattr(torch, name)(tx.double()).to(getattr(torch, dtype)).double().numpy()  # correctly rounded
    got = getattr(flow, name)(fx).double().numpy()
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    finite = np.isfinite(ref)
    assert np.array_equal(got[~finite & ~np.isnan(ref)], ref[~finite & ~np.isnan(ref)])  # +-inf where libm has it
    # within 3 float32 ulp of the correctly rounded value (and, for the half
    # types, one of their ulp), subnormal results included
    spacing = np.spacing(np.abs(ref[finite]).astype(np.float32)).astype(np.float64)
    if dtype != "float32":
        spacing = np.maximum(spacing, np.abs(ref[finite]) * (2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10))
    assert np.all(np.abs(got[finite] - ref[finite]) <= 3 * spacing)
    # and odd / even symmetry where it holds exactly
    if name == "tanh" and dtype == "float32":
        y = flow.tanh(flow.tensor(np.array([-0.0, 0.0], dtype=np.float32))).numpy()
        assert np.signbit(y[0]) and not np.signbit(y[1])


@pytest.mark.parametrize("name", ["exp", "tanh", "sigmoid", "erf"])
def test_activation_strided_and_graph_agree(name):
    # the contiguous (vector) loop, a strided view and nn.Graph's fused
    # program compute the same function, bit for bit
    x = flow.tensor(float_sweep()[:20000].reshape(200, 100))
    dense = getattr(flow, name)(x).numpy()
    strided = getattr(flow, name)(x.t()).numpy().T
    assert np.array_equal(dense, strided, equal_nan=True)

    class G(flow.nn.Graph):
        def build(self, v):
            return getattr(flow, name)(v * 1.0) * 1.0

    assert np.array_equal(G()(x).numpy(), dense, equal_nan=True)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    # gelu is built on the vectorised erf / tanh; its backward on erf and exp
    x = np.concatenate([np.linspace(-12, 12, 20001), [0.0, -0.0, np.inf, -np.inf]]).astype(np.float32)
    xf, xt = flow.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    yf, yt = flow.nn.functional.gelu(xf, approximate=approximate), torch.nn.functional.gelu(xt, approximate=approximate)
    finite = np.isfinite(x)
    np.testing.assert_allclose(yf.detach().numpy()[finite], yt.detach().numpy()[finite], rtol=3e-6, atol=1e-6)
    # at +-inf torch's answer depends on the host's vector unit (AVX512 builds give nan at +inf):
    # monoflow gives the formula's value, x * Phi(x) = inf at +inf and -inf * 0 = nan at -inf
    np.testing.assert_array_equal(yf.detach().numpy()[~finite], np.array([np.inf, np.nan], np.float32))
    yf.sum().backward()
    yt.sum().backward()
    # (1 - tanh(u)^2) cancels where tanh(u) is about -1: both sides are off by ~1e-6 there
    np.testing.assert_allclose(xf.grad.numpy()[finite], xt.grad.numpy()[finite], rtol=3e-6, atol=1e-5)


def test_lstm_in_graph_matches_eager():
    # the cell's fused launches trace into nn.Graph like any op: forward and one training step
    flow.manual_seed(0)
    m = flow.nn.LSTM(4, 5, 2)
    x = flow.randn(6, 3, 4)

    class Forward(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = m

        def build(self, v):
            return self.m(v)[0]

    np.testing.assert_allclose(Forward()(x).numpy(), m(x)[0].detach().numpy(), rtol=1e-6, atol=1e-7)
    m(x)[0].sum().backward()
    expected = {n: (p - 0.1 * p.grad).detach().numpy() for n, p in m.named_parameters()}
    m.zero_grad()
    opt = flow.optim.SGD(m.parameters(), lr=0.1)

    class Train(flow.nn.Graph):
        def __init__(self):
            super().__init__()
            self.m = m
            self.add_optimizer(opt)

        def build(self, v):
            loss = self.m(v)[0].sum()
            loss.backward()
            return loss

    Train()(x)
    for n, p in m.named_parameters():
        np.testing.assert_allclose(p.detach().numpy(), expected[n], rtol=1e-5, atol=1e-6)
