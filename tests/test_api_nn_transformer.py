"""nn.Transformer, TransformerDecoder(Layer), TransformerEncoder(Layer),
MultiheadAttention and F.scaled_dot_product_attention against torch: torch's
weights copied in through state_dict, then outputs and gradients (of the
input and of every parameter) compared, over the masks and options scripts
pass."""
import numpy as np
import pytest

import monoflow as flow

torch = pytest.importorskip("torch")

TOL = dict(rtol=1e-9, atol=1e-10)


def copy_weights(tmod, mmod):
    missing = mmod.load_state_dict({k: flow.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()})
    assert not missing.missing_keys and not missing.unexpected_keys
    assert sorted(dict(mmod.named_parameters())) == sorted(dict(tmod.named_parameters()))


def twin(name, *args, **kwargs):
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args, dropout=0.0, **kwargs).double()
    m = getattr(flow.nn, name)(*args, dropout=0.0, **kwargs).double()
    copy_weights(t, m)
    return t, m


def inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [flow.tensor(a, requires_grad=True) for a in arrays])


def compare(tout, mout, tmod, mmod, tins, mins):
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **TOL)
    w = np.random.default_rng(9).standard_normal(tuple(tout.shape))
    (tout * torch.tensor(w)).sum().backward()
    (mout * flow.tensor(w)).sum().backward()
    for a, b in zip(mins, tins):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL)
    tparams = dict(tmod.named_parameters())
    for name, p in mmod.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tparams[name].grad.numpy(), err_msg=name, **TOL)


def masks(L, S, N, kind):
    """(torch, monoflow) versions of a mask set: attn mask (L, S), key padding (N, S)."""
    rng = np.random.default_rng(5)
    if kind == "none":
        return (None, None), (None, None)
    if kind == "causal-float":
        m = np.triu(np.full((L, S), -np.inf), 1)
        return (torch.tensor(m), None), (flow.tensor(m), None)
    if kind == "bool":
        m = rng.random((L, S)) < 0.3
        m[:, 0] = False
        pad = np.zeros((N, S), dtype=bool)
        pad[0, -1] = True
        return (torch.tensor(m), torch.tensor(pad)), (flow.tensor(m), flow.tensor(pad))
    raise AssertionError(kind)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("mask", ["none", "causal-float", "bool"])
def test_transformer_matches_torch(batch_first, norm_first, activation, mask):
    d, L, S, N = 8, 5, 6, 3
    t, m = twin("Transformer", d_model=d, nhead=2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=16,
                batch_first=batch_first, norm_first=norm_first, activation=activation)
    shape = (lambda n, length: (n, length, d)) if batch_first else (lambda n, length: (length, n, d))
    tins, mins = inputs(shape(N, S), shape(N, L))
    (tsm, tspad), (msm, mspad) = masks(S, S, N, "bool" if mask == "bool" else "none")
    (ttm, ttpad), (mtm, mtpad) = masks(L, L, N, mask)
    tout = t(*tins, src_mask=tsm, tgt_mask=ttm, src_key_padding_mask=tspad, tgt_key_padding_mask=ttpad,
             memory_key_padding_mask=tspad)
    mout = m(*mins, src_mask=msm, tgt_mask=mtm, src_key_padding_mask=mspad, tgt_key_padding_mask=mtpad,
             memory_key_padding_mask=mspad)
    compare(tout, mout, t, m, tins, mins)


def test_decoder_alone_with_memory_mask_and_causal_flag():
    d, L, S, N = 8, 4, 5, 2
    torch.manual_seed(1)
    tl = torch.nn.TransformerDecoderLayer(d, 2, 16, dropout=0.0).double()
    ml = flow.nn.TransformerDecoderLayer(d, 2, 16, dropout=0.0).double()
    tdec = torch.nn.TransformerDecoder(tl, 3, norm=torch.nn.LayerNorm(d).double())
    mdec = flow.nn.TransformerDecoder(ml, 3, norm=flow.nn.LayerNorm(d).double())
    copy_weights(tdec, mdec)
    tins, mins = inputs((L, N, d), (S, N, d), seed=2)
    mem_mask = np.zeros((L, S))
    mem_mask[:, 1] = -1e9
    causal = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
    mcausal = flow.nn.Transformer.generate_square_subsequent_mask(L, dtype=flow.float64)
    np.testing.assert_array_equal(mcausal.numpy(), causal.numpy())
    tout = tdec(*tins, tgt_mask=causal, memory_mask=torch.tensor(mem_mask), tgt_is_causal=True)
    mout = mdec(*mins, tgt_mask=mcausal, memory_mask=flow.tensor(mem_mask), tgt_is_causal=True)
    compare(tout, mout, tdec, mdec, tins, mins)


def test_generate_square_subsequent_mask_default_dtype():
    mask = flow.nn.Transformer.generate_square_subsequent_mask(4)
    assert mask.dtype == flow.float32
    np.testing.assert_array_equal(mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(4).numpy())


def test_transformer_shape_errors():
    m = flow.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    with pytest.raises(RuntimeError, match="batch number of src and tgt"):
        m(flow.randn(5, 2, 8), flow.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match="feature number"):
        m(flow.randn(5, 2, 8), flow.randn(4, 2, 6))


@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("mask", ["none", "causal-float", "bool"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_kwargs(need_weights, average, mask, batch_first):
    d, L, S, N = 8, 4, 5, 3
    torch.manual_seed(3)
    t = torch.nn.MultiheadAttention(d, 2, batch_first=batch_first).double()
    m = flow.nn.MultiheadAttention(d, 2, batch_first=batch_first).double()
    copy_weights(t, m)
    shape = (lambda length: (N, length, d)) if batch_first else (lambda length: (length, N, d))
    tins, mins = inputs(shape(L), shape(S), shape(S), seed=4)
    (tam, tpad), (mam, mpad) = masks(L, S, N, mask)
    tout, tw = t(*tins, key_padding_mask=tpad, need_weights=need_weights, attn_mask=tam,
                 average_attn_weights=average)
    mout, mw = m(*mins, key_padding_mask=mpad, need_weights=need_weights, attn_mask=mam,
                 average_attn_weights=average)
    if need_weights:
        np.testing.assert_allclose(mw.detach().numpy(), tw.detach().numpy(), **TOL)
    else:
        assert mw is None and tw is None
    compare(tout, mout, t, m, tins, mins)


def test_multihead_attention_is_causal_with_mask():
    d, L, N = 8, 5, 2
    torch.manual_seed(4)
    t = torch.nn.MultiheadAttention(d, 4).double()
    m = flow.nn.MultiheadAttention(d, 4).double()
    copy_weights(t, m)
    tins, mins = inputs((L, N, d), seed=6)
    causal = np.triu(np.ones((L, L), dtype=bool), 1)
    tout, _ = t(tins[0], tins[0], tins[0], attn_mask=torch.tensor(causal), is_causal=True, need_weights=False)
    mout, _ = m(mins[0], mins[0], mins[0], attn_mask=flow.tensor(causal), is_causal=True, need_weights=False)
    compare(tout, mout, t, m, tins, mins)


@pytest.mark.parametrize("kind", ["plain", "causal", "bool-mask", "float-mask", "scale"])
def test_scaled_dot_product_attention(kind):
    B, H, L, S, E = 2, 3, 4, 6, 5
    tins, mins = inputs((B, H, L, E), (B, H, S, E), (B, H, S, E), seed=7)
    kw_t, kw_m = {}, {}
    if kind == "causal":
        kw_t = kw_m = dict(is_causal=True)
    elif kind == "bool-mask":
        mask = np.random.default_rng(1).random((L, S)) < 0.7
        mask[:, 0] = True
        kw_t, kw_m = dict(attn_mask=torch.tensor(mask)), dict(attn_mask=flow.tensor(mask))
    elif kind == "float-mask":
        mask = np.random.default_rng(2).standard_normal((B, 1, L, S))
        kw_t, kw_m = dict(attn_mask=torch.tensor(mask)), dict(attn_mask=flow.tensor(mask))
    elif kind == "scale":
        kw_t = kw_m = dict(scale=0.3)
    tout = torch.nn.functional.scaled_dot_product_attention(*tins, **kw_t)
    mout = flow.nn.functional.scaled_dot_product_attention(*mins, **kw_m)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), **TOL)
    tout.sum().backward()
    mout.sum().backward()
    for a, b in zip(mins, tins):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), **TOL)


def test_scaled_dot_product_attention_dropout_keeps_scale():
    """dropout_p zeroes weights and rescales the rest by 1/(1-p): the mean output stays."""
    flow.manual_seed(0)
    q = flow.randn(1, 1, 64, 8)
    v = flow.ones(1, 1, 64, 8)
    out = flow.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.5)
    assert abs(float(out.mean()) - 1.0) < 0.1
    assert float((out == 0).float().mean()) < 0.05  # rows average many kept weights
    with pytest.raises(RuntimeError, match="attn_mask"):  # torch's reference (not 4-D) path refuses both
        flow.nn.functional.scaled_dot_product_attention(q[0], q[0], v[0], attn_mask=flow.ones(64, 64), is_causal=True)


def test_sdpa_output_follows_a_transposed_querys_layout():
    # (B, L, H, D) projections viewed as (B, H, L, D): the output keeps that memory order, as torch's,
    # so y.transpose(1, 2).view(B, L, H * D) works without .contiguous()
    import monoflow.nn.functional as F

    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 5, 4, 8)).astype(np.float32)
    q = flow.tensor(a).transpose(1, 2)
    y = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert y.shape == (2, 4, 5, 8) and y.stride() == (160, 8, 32, 1)
    flat = y.transpose(1, 2).view(2, 5, 32)
    ref = F.scaled_dot_product_attention(q.contiguous(), q.contiguous(), q.contiguous(), is_causal=True)
    np.testing.assert_allclose(flat.numpy(), ref.transpose(1, 2).reshape(2, 5, 32).numpy(), rtol=1e-6, atol=1e-6)
    assert F.scaled_dot_product_attention(q.contiguous(), q, q).is_contiguous()
