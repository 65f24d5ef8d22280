"""nn layers against torch (autotest style): the torch layer's initialised
parameters are copied into the monoflow layer, both run the same random
inputs, and outputs, input gradients and parameter gradients must agree."""
from collections import OrderedDict

import numpy as np
import pytest

import monoflow as flow
from monoflow import nn
from monoflow.nn import functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _rng(seed=0):
    return np.random.default_rng(seed)


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def load_from_torch(fm, tm):
    fm.load_state_dict(OrderedDict((k, flow.tensor(v.detach().numpy())) for k, v in tm.state_dict().items()))
    return fm


def compare(fm, tm, arrays, *, rtol=1e-6, atol=1e-9, train=False, call=None, tcall=None, grads=True):
    """Runs fm and tm (tm in float64, fm converted to match) on `arrays`;
    floating arrays get gradients. Returns the flattened monoflow outputs."""
    tm = tm.double().train(train)
    fm = load_from_torch(fm.double().train(train), tm)
    fx = [flow.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in arrays]
    tx = [torch.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in arrays]
    fo = _flat(call(fm, *fx) if call else fm(*fx))
    to = _flat(tcall(tm, *tx) if tcall else tm(*tx))
    assert len(fo) == len(to)
    for f, t in zip(fo, to):
        assert tuple(f.shape) == tuple(t.shape)
        np.testing.assert_allclose(f.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    if not grads:
        return fo
    rng = _rng(1)
    ups = [rng.standard_normal(tuple(t.shape)) for t in to]
    sum(((f * flow.tensor(u)).sum() for f, u in zip(fo, ups) if f.requires_grad), flow.tensor(0.0)).backward()
    sum(((t * torch.tensor(u)).sum() for t, u in zip(to, ups) if t.requires_grad), torch.tensor(0.0)).backward()
    for f, t in zip(fx, tx):
        if isinstance(t, torch.Tensor) and t.grad is not None:
            assert f.grad is not None, "missing input gradient"
            np.testing.assert_allclose(f.grad.numpy(), t.grad.numpy(), rtol=rtol * 10, atol=atol * 10)
    tparams = dict(tm.named_parameters())
    for name, p in fm.named_parameters():
        tg = tparams[name].grad
        if tg is None:
            assert p.grad is None or float(p.grad.abs().sum()) == 0, name
            continue
        assert p.grad is not None, f"missing gradient of {name}"
        np.testing.assert_allclose(p.grad.numpy(), tg.numpy(), rtol=rtol * 10, atol=atol * 10, err_msg=name)
    return fo


def randn(*shape, seed=0):
    return _rng(seed).standard_normal(shape)


# ---------------------------------------------------------------- linear family

@pytest.mark.parametrize("bias", [True, False])
def test_linear(bias):
    compare(nn.Linear(4, 3, bias=bias), torch.nn.Linear(4, 3, bias=bias), [randn(2, 5, 4)])


def test_linear_init_matches_torch_bounds():
    flow.manual_seed(0)
    m = nn.Linear(50, 40)
    bound = 1 / np.sqrt(50)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.1 * bound
    assert np.abs(m.bias.detach().numpy()).max() <= bound
    flow.manual_seed(0)
    np.testing.assert_array_equal(nn.Linear(50, 40).weight.detach().numpy(), w)  # seeded: reproducible


def test_bilinear_identity_flatten():
    compare(nn.Bilinear(3, 4, 2), torch.nn.Bilinear(3, 4, 2), [randn(5, 3), randn(5, 4, seed=1)])
    compare(nn.Identity(7), torch.nn.Identity(7), [randn(2, 3)])
    compare(nn.Flatten(), torch.nn.Flatten(), [randn(2, 3, 4)])
    compare(nn.Flatten(0, 1), torch.nn.Flatten(0, 1), [randn(2, 3, 4)])
    compare(nn.Unflatten(1, (2, 3)), torch.nn.Unflatten(1, (2, 3)), [randn(4, 6)])
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        nn.Linear(3, 2)(flow.randn(4, 5))


# ---------------------------------------------------------------- activations

ACTIVATIONS = [
    ("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.7,)), ("GELU", ()), ("GELU", ("tanh",)),
    ("SiLU", ()), ("Sigmoid", ()), ("Tanh", ()), ("Softplus", (2.0, 5.0)), ("Mish", ()), ("Hardtanh", (-0.5, 0.8)),
    ("Hardswish", ()), ("Hardsigmoid", ()), ("Softsign", ()), ("SELU", ()), ("CELU", (1.3,)), ("LogSigmoid", ()),
    ("Softmax", (1,)), ("LogSoftmax", (-1,)), ("Softmin", (0,)), ("Tanhshrink", ()), ("GLU", (1,)),
]


@pytest.mark.parametrize("name,args", ACTIVATIONS, ids=[f"{n}{a}" for n, a in ACTIVATIONS])
def test_activation(name, args):
    x = randn(3, 4) * 3
    x[np.abs(x) < 1e-3] = 0.5  # stay off the kinks
    x[np.abs(np.abs(x) - 3) < 1e-3] = 1.5
    compare(getattr(nn, name)(*args), getattr(torch.nn, name)(*args), [x])


def test_prelu_per_channel():
    compare(nn.PReLU(3, 0.1), torch.nn.PReLU(3, 0.1), [randn(2, 3, 4)])
    compare(nn.PReLU(), torch.nn.PReLU(), [randn(5)])


def test_inplace_activation_writes_input():
    x = flow.tensor([-1.0, 2.0])
    y = nn.ReLU(inplace=True)(x)
    assert x[0].item() == 0.0 and y[1].item() == 2.0


@pytest.mark.parametrize("name,args", [
    ("ReLU", ()), ("ReLU6", ()), ("SiLU", ()), ("Mish", ()), ("Hardswish", ()), ("Hardsigmoid", ()),
    ("ELU", ()), ("CELU", ()), ("SELU", ()), ("LeakyReLU", ()), ("Hardtanh", ()), ("Threshold", (0.1, -1.0)),
    ("RReLU", ()),
])
def test_inplace_activation_of_an_intermediate_backpropagates_like_torch(name, args):
    # (an in-place op whose backward reads its input saves the original, as torch's do: the write-back
    # must not invalidate it; a module after BatchNorm is the common case)
    torch = pytest.importorskip("torch")
    x0 = np.random.default_rng(3).standard_normal((4, 5)).astype(np.float32)
    grads, outs = [], []
    for lib in (torch, flow):
        x = lib.tensor(x0, requires_grad=True)
        m = getattr(lib.nn, name)(*args, inplace=True)
        m.eval()  # (RReLU: the deterministic slope)
        h = x * 2
        y = m(h)
        assert y is h or y.data_ptr() == h.data_ptr()
        (y * lib.arange(20.0).reshape(4, 5)).sum().backward()
        grads.append(x.grad.numpy())
        outs.append(y.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-5)


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension"):
        out = F.softmax(flow.randn(2, 3))
    np.testing.assert_allclose(out.sum(1).numpy(), [1.0, 1.0], rtol=1e-6)


# ---------------------------------------------------------------- embedding

def test_embedding_and_padding_gradient():
    idx = np.array([[1, 0, 3], [3, 2, 0]])
    compare(nn.Embedding(5, 4, padding_idx=0), torch.nn.Embedding(5, 4, padding_idx=0), [idx])
    m = nn.Embedding(5, 4, padding_idx=0)
    assert float(m.weight[0].abs().sum()) == 0.0  # initialised to zeros
    m(flow.tensor(idx)).sum().backward()
    g = m.weight.grad.numpy()
    assert np.all(g[0] == 0) and np.all(g[3] == 2) and np.all(g[4] == 0)
    with pytest.raises(RuntimeError, match="indices"):
        m(flow.randn(2))


def test_embedding_max_norm_and_pretrained():
    w = flow.tensor(randn(4, 3) * 5)
    m = nn.Embedding.from_pretrained(w.clone(), max_norm=1.0)
    assert not m.weight.requires_grad
    out = m(flow.tensor([0, 2]))
    assert np.all(np.linalg.norm(out.numpy(), axis=1) <= 1.0 + 1e-5)
    np.testing.assert_allclose(m.weight[1].numpy(), w[1].numpy())  # rows not looked up stay as they were


# ---------------------------------------------------------------- normalisation

def _steps(fm, tm, shapes, rtol=1e-6):
    tm = tm.double()
    fm = load_from_torch(fm.double(), tm)
    for i, shape in enumerate(shapes):
        compare(fm, tm, [randn(*shape, seed=i) * 2 + 1], train=True, rtol=rtol)
        for name, buf in tm.named_buffers():
            np.testing.assert_allclose(fm.get_buffer(name).numpy(), buf.numpy(), rtol=1e-6, err_msg=name)
        fm.zero_grad()
        tm.zero_grad()
    return fm, tm


@pytest.mark.parametrize("kwargs", [{}, dict(momentum=None), dict(affine=False), dict(track_running_stats=False),
                                    dict(bias=False)])
def test_batchnorm1d_running_stats(kwargs):
    fm, tm = _steps(nn.BatchNorm1d(3, **kwargs), torch.nn.BatchNorm1d(3, **kwargs), [(4, 3), (6, 3, 2), (5, 3)])
    compare(fm, tm, [randn(4, 3, seed=7)], train=False)  # eval: the running statistics
    if tm.track_running_stats:
        assert fm.num_batches_tracked.item() == 3


def test_batchnorm2d_and_errors():
    _steps(nn.BatchNorm2d(2), torch.nn.BatchNorm2d(2), [(3, 2, 2, 3), (2, 2, 3, 3)])
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(2)(flow.randn(2, 2))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.BatchNorm1d(2)(flow.randn(1, 2))


def test_batchnorm_loads_old_state_dict_without_counter():
    bn = nn.BatchNorm1d(2)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata = {"": {"version": 1}}
    assert bn.load_state_dict(sd).missing_keys == []


@pytest.mark.parametrize("shape,norm", [((2, 5), 5), ((2, 3, 4), (3, 4)), ((3, 4), 4)])
def test_layernorm(shape, norm):
    compare(nn.LayerNorm(norm), torch.nn.LayerNorm(norm), [randn(*shape) * 3 + 2])
    compare(nn.LayerNorm(norm, elementwise_affine=False), torch.nn.LayerNorm(norm, elementwise_affine=False),
            [randn(*shape)])


def test_layernorm_nontrivial_affine_and_error():
    tm = torch.nn.LayerNorm(4)
    with torch.no_grad():
        tm.weight.normal_()
        tm.bias.normal_()
    compare(nn.LayerNorm(4), tm, [randn(3, 4)])
    with pytest.raises(RuntimeError, match="normalized_shape"):
        nn.LayerNorm(3)(flow.randn(2, 4))


def test_groupnorm():
    tm = torch.nn.GroupNorm(2, 4)
    with torch.no_grad():
        tm.weight.normal_()
    compare(nn.GroupNorm(2, 4), tm, [randn(3, 4, 5)])
    compare(nn.GroupNorm(1, 2, affine=False), torch.nn.GroupNorm(1, 2, affine=False), [randn(2, 2, 3, 3)])


# ---------------------------------------------------------------- dropout

def test_dropout_statistics_and_determinism():
    m = nn.Dropout(0.3)
    x = flow.ones(20000)
    flow.manual_seed(5)
    y = m(x).numpy()
    zero = (y == 0).mean()
    assert abs(zero - 0.3) < 0.02
    np.testing.assert_allclose(y[y != 0], 1 / 0.7, rtol=1e-6)
    flow.manual_seed(5)
    np.testing.assert_array_equal(m(x).numpy(), y)
    m.eval()
    assert m(x) is x
    assert float(nn.Dropout(1.0)(x).abs().sum()) == 0
    with pytest.raises(ValueError):
        nn.Dropout(1.5)


def test_dropout_gradient_uses_the_mask():
    x = flow.ones(1000, requires_grad=True)
    y = F.dropout(x, 0.5, training=True)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout2d_zeroes_whole_channels():
    flow.manual_seed(1)
    y = nn.Dropout2d(0.5)(flow.ones(8, 16, 3, 3)).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
    y1 = nn.Dropout1d(0.5)(flow.ones(4, 6, 5)).numpy()
    assert np.all((y1 == 0).all(-1) | (y1 == 2).all(-1))
    with pytest.raises(RuntimeError, match="dropout1d"):  # torch refuses this rank too
        nn.Dropout1d()(flow.ones(2, 3, 4, 5))
    # (other ranks of Dropout2d/3d warn as torch does: tests/test_public_script_surface.py)


# ---------------------------------------------------------------- attention

def _mha_pair(**kw):
    return nn.MultiheadAttention(8, 2, **kw), torch.nn.MultiheadAttention(8, 2, **kw)


def _mha_call(kwargs):
    return (lambda m, q, k, v: m(q, k, v, **kwargs))


def test_mha_self_attention_and_weights():
    fm, tm = _mha_pair()
    assert list(fm.state_dict()) == list(tm.state_dict())
    x = randn(5, 3, 8)
    compare(fm, tm, [x, x, x], call=lambda m, q, k, v: m(q, q, q), tcall=lambda m, q, k, v: m(q, q, q))
    for avg in (True, False):
        fm, tm = _mha_pair()
        compare(fm, tm, [randn(4, 2, 8), randn(6, 2, 8, seed=1), randn(6, 2, 8, seed=2)],
                call=_mha_call(dict(average_attn_weights=avg)), tcall=_mha_call(dict(average_attn_weights=avg)))


def test_mha_masks_batch_first_and_unbatched():
    L, S, N = 4, 5, 2
    bool_mask = np.triu(np.ones((L, S), dtype=bool), 1)
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, -2:] = True
    float_mask = randn(L, S, seed=3)
    for kw_np in (dict(attn_mask=bool_mask), dict(key_padding_mask=kpm), dict(attn_mask=float_mask),
                  dict(attn_mask=bool_mask, key_padding_mask=kpm, need_weights=False)):
        fkw = {k: flow.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw_np.items()}
        tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw_np.items()}
        fm, tm = _mha_pair(batch_first=True)
        compare(fm, tm, [randn(N, L, 8), randn(N, S, 8, seed=1), randn(N, S, 8, seed=2)], call=_mha_call(fkw),
                tcall=_mha_call(tkw))
    fm, tm = _mha_pair()
    compare(fm, tm, [randn(L, 8), randn(S, 8, seed=1), randn(S, 8, seed=2)])


def test_mha_kdim_vdim_no_bias_bias_kv():
    for kw in (dict(kdim=5, vdim=3), dict(bias=False), dict(add_bias_kv=True, add_zero_attn=True)):
        fm, tm = _mha_pair(**kw)
        assert list(fm.state_dict()) == list(tm.state_dict())
        compare(fm, tm, [randn(4, 2, 8), randn(3, 2, kw.get("kdim", 8), seed=1),
                         randn(3, 2, kw.get("vdim", 8), seed=2)])


def test_scaled_dot_product_attention():
    q, k, v = randn(2, 3, 4, 5), randn(2, 3, 6, 5, seed=1), randn(2, 3, 6, 5, seed=2)
    mask = _rng(4).random((4, 6)) > 0.3
    mask[:, 0] = True
    cases = [dict(), dict(attn_mask=mask), dict(attn_mask=randn(4, 6, seed=5)), dict(scale=0.3)]
    for kw in cases:
        fkw = {a: flow.tensor(b) if isinstance(b, np.ndarray) else b for a, b in kw.items()}
        tkw = {a: torch.tensor(b) if isinstance(b, np.ndarray) else b for a, b in kw.items()}
        got = F.scaled_dot_product_attention(flow.tensor(q), flow.tensor(k), flow.tensor(v), **fkw)
        want = TF.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k), torch.tensor(v), **tkw)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-9)
    q2 = randn(2, 4, 5)
    got = F.scaled_dot_product_attention(flow.tensor(q2), flow.tensor(q2), flow.tensor(q2), is_causal=True)
    want = TF.scaled_dot_product_attention(*(torch.tensor(q2),) * 3, is_causal=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------- transformer

@pytest.mark.parametrize("kw", [dict(), dict(norm_first=True, activation="gelu"), dict(batch_first=True)])
def test_transformer_encoder_layer(kw):
    fm = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)
    tm = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)
    assert list(fm.state_dict()) == list(tm.state_dict())
    # train mode: torch's fused fast path (eval only) would differ in rounding only
    compare(fm, tm, [randn(3, 4, 8)], train=True, rtol=1e-5, atol=1e-8)


def test_transformer_encoder_with_mask():
    layer_f = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    layer_t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    fm, tm = nn.TransformerEncoder(layer_f, 2), torch.nn.TransformerEncoder(layer_t, 2, enable_nested_tensor=False)
    assert list(fm.state_dict()) == list(tm.state_dict())
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    compare(fm, tm, [randn(4, 2, 8)], train=True, call=lambda m, x: m(x, mask=flow.tensor(mask)),
            tcall=lambda m, x: m(x, mask=torch.tensor(mask)), rtol=1e-5, atol=1e-8)


# ---------------------------------------------------------------- recurrent

RNN_CASES = [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True, bias=False),
             dict(num_layers=2, bidirectional=True, batch_first=True)]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("kw", RNN_CASES, ids=[str(k) for k in RNN_CASES])
def test_recurrent_layers(kind, kw):
    fm, tm = getattr(nn, kind)(3, 4, **kw), getattr(torch.nn, kind)(3, 4, **kw)
    assert list(fm.state_dict()) == list(tm.state_dict())
    shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    compare(fm, tm, [randn(*shape)], rtol=1e-6)


def test_recurrent_initial_state_and_unbatched():
    fm, tm = nn.LSTM(3, 4, 2), torch.nn.LSTM(3, 4, 2)
    h0, c0 = randn(2, 2, 4, seed=1), randn(2, 2, 4, seed=2)
    compare(fm, tm, [randn(5, 2, 3), h0, c0], call=lambda m, x, h, c: m(x, (h, c)),
            tcall=lambda m, x, h, c: m(x, (h, c)))
    fm, tm = nn.GRU(3, 4, bidirectional=True), torch.nn.GRU(3, 4, bidirectional=True)
    compare(fm, tm, [randn(5, 3), randn(2, 4, seed=1)])
    with pytest.raises(RuntimeError, match="input_size"):
        nn.LSTM(3, 4)(flow.randn(5, 2, 4))


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells(kind):
    fm, tm = getattr(nn, kind)(3, 4), getattr(torch.nn, kind)(3, 4)
    compare(fm, tm, [randn(2, 3)])
    compare(fm, tm, [randn(3)])


def test_recurrent_dropout_between_layers_is_active_only_in_training():
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = flow.randn(5, 2, 3)
    m.eval()
    a, b = m(x)[0].detach().numpy(), m(x)[0].detach().numpy()
    np.testing.assert_array_equal(a, b)
    m.train()
    flow.manual_seed(3)
    c = m(x)[0].detach().numpy()
    flow.manual_seed(4)
    d = m(x)[0].detach().numpy()
    assert not np.allclose(c, d)


# ---------------------------------------------------------------- float32 and devices

def test_mlp_float32_on_device(device):
    tm = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.LayerNorm(5), torch.nn.GELU(), torch.nn.Linear(5, 2))
    fm = nn.Sequential(nn.Linear(6, 5), nn.LayerNorm(5), nn.GELU(), nn.Linear(5, 2))
    load_from_torch(fm, tm).to(device)
    x = randn(4, 6).astype(np.float32)
    fo = fm(flow.tensor(x, device=device))
    to = tm(torch.tensor(x))
    assert str(fo.device) == device
    np.testing.assert_allclose(fo.detach().numpy(), to.detach().numpy(), rtol=1e-4, atol=1e-5)
    fo.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(fm[0].weight.grad.numpy(), tm[0].weight.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make, shape", [(lambda m: m.nn.BatchNorm1d(3), (0, 3)),
                                         (lambda m: m.nn.BatchNorm1d(3), (0, 3, 5)),
                                         (lambda m: m.nn.BatchNorm2d(3), (0, 3, 4, 4)),
                                         (lambda m: m.nn.BatchNorm3d(3, momentum=None), (0, 3, 2, 2, 2)),
                                         (lambda m: m.nn.GroupNorm(1, 3), (0, 3, 4)),
                                         (lambda m: m.nn.GroupNorm(3, 6), (0, 6, 2, 2)),
                                         (lambda m: m.nn.InstanceNorm1d(3), (0, 3, 5))])
def test_empty_batch_through_norm_layers_matches_torch(make, shape):
    # N = 0 in training mode: an empty output, zero parameter gradients; BatchNorm counts the batch but
    # keeps its running statistics (torch 2.13). This raised before (crash sweep 07).
    results = []
    for lib in (flow, torch):
        layer = make(lib)
        layer.train()
        x = lib.zeros(*shape, requires_grad=True)
        y = layer(x)
        y.sum().backward()
        state = {k: v.numpy().copy() for k, v in layer.state_dict().items()}
        grads = [None if p.grad is None else p.grad.numpy().copy() for p in layer.parameters()]
        results.append((tuple(y.shape), tuple(x.grad.shape), state, grads))
    (fs, fgs, fstate, fgrads), (ts, tgs, tstate, tgrads) = results
    assert fs == ts == shape and fgs == tgs == shape
    assert fstate.keys() == tstate.keys()
    for k in fstate:
        np.testing.assert_array_equal(fstate[k], tstate[k], err_msg=k)
    for f, t in zip(fgrads, tgrads):
        assert (f is None) == (t is None)
        if f is not None:
            np.testing.assert_array_equal(f, t)


def test_batch_norm_still_refuses_one_value_per_channel():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        flow.nn.BatchNorm1d(3)(flow.zeros(1, 3))


@pytest.mark.parametrize("a_shape, b_shape, dims", [((0, 3), (0, 3), ([0], [0])), ((2, 4, 0), (0, 5), 1),
                                                    ((2, 0), (0, 3, 0), ([1], [0]))])
def test_tensordot_over_an_empty_contraction_matches_torch(a_shape, b_shape, dims):
    out = []
    for lib in (flow, torch):
        a, b = lib.ones(*a_shape, requires_grad=True), lib.ones(*b_shape, requires_grad=True)
        r = lib.tensordot(a, b, dims=dims)
        (r * 2).sum().backward()
        out.append((r.detach().numpy(), a.grad.numpy(), b.grad.numpy()))
    for f, t in zip(*out):
        assert f.shape == t.shape
        np.testing.assert_array_equal(f, t)
