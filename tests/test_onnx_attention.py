"""monoflow.onnx.export of attention: F.scaled_dot_product_attention,
nn.MultiheadAttention (masks, batch_first, separate k/v dims, bias_k/v, zero
attention, returned weights) and nn.TransformerEncoder(Layer), the encoder also
with a dynamic batch axis. Each passes onnx.checker's full check and onnxruntime
matches monoflow's own forward."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import monoflow as flow  # noqa: E402
import monoflow.nn as nn  # noqa: E402
import monoflow.nn.functional as F  # noqa: E402
from test_onnx import _Fn, _check, _export  # noqa: E402

flow.manual_seed(4)
L, N, E = 5, 3, 8
Q = flow.randn(L, N, E)
CAUSAL = nn.Transformer.generate_square_subsequent_mask(L)
PAD = flow.tensor([[False] * L, [False, False, False, True, True], [False] * 4 + [True]])


def test_sdpa():
    q, k, v = flow.randn(2, 4, 5, 8), flow.randn(2, 4, 6, 8), flow.randn(2, 4, 6, 3)
    _check(_Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v)), q, k, v)
    _check(_Fn(lambda q: F.scaled_dot_product_attention(q, q, q, is_causal=True, scale=0.3)), q)
    mask = flow.rand(5, 6) > 0.3
    mask[:, 0] = True
    _check(_Fn(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask)), q, k, v)
    _check(_Fn(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m)), q, k, v,
           flow.randn(5, 6))


MHA = {
    "self": (lambda m, x: m(x, x, x), {}),
    "weights_per_head": (lambda m, x: m(x, x, x, average_attn_weights=False), {}),
    "no_weights_causal": (lambda m, x: m(x, x, x, need_weights=False, attn_mask=CAUSAL)[0], {}),
    "bool_mask_and_padding": (lambda m, x: m(x, x, x, attn_mask=CAUSAL.isinf(),
                                             key_padding_mask=PAD), {}),
    "is_causal": (lambda m, x: m(x, x, x, attn_mask=CAUSAL, is_causal=True)[0], {}),
    "cross_kdim_vdim": (lambda m, x: m(x, x[:4, :, :6], x[:4, :, 2:]), dict(kdim=6, vdim=6)),
    "bias_kv_zero_attn": (lambda m, x: m(x, x, x, key_padding_mask=PAD), dict(add_bias_kv=True, add_zero_attn=True)),
    "no_bias": (lambda m, x: m(x, x, x), dict(bias=False)),
    "batch_first": (lambda m, x: m(x, x, x), dict(batch_first=True)),
    "unbatched": (lambda m, x: m(x[:, 0], x[:, 0], x[:, 0]), {}),
}


@pytest.mark.parametrize("name", sorted(MHA))
def test_multihead_attention(name):
    call, kw = MHA[name]
    m = nn.MultiheadAttention(E, 2, **kw).eval()
    _check(_Fn(lambda x: call(m, x)), Q)


def _encoder(batch_first, norm_first):
    layer = nn.TransformerEncoderLayer(E, 2, dim_feedforward=16, dropout=0.1, batch_first=batch_first,
                                       norm_first=norm_first, activation="gelu" if norm_first else "relu")
    return nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E) if norm_first else None).eval()


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer(norm_first):
    layer = nn.TransformerEncoderLayer(E, 4, 16, norm_first=norm_first).eval()
    _check(layer, Q)
    _check(_Fn(lambda x: layer(x, src_mask=CAUSAL, src_key_padding_mask=PAD)), Q)


class Classifier(nn.Module):
    """A small text classifier: embedding plus learnt positions, a 2-layer batch-first
    encoder with a causal mask, mean pooling, a linear head."""

    def __init__(self, vocab=30, length=6):
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, E), nn.Parameter(flow.randn(length, E))
        self.encoder = _encoder(True, True)
        self.head = nn.Linear(E, 4)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(length))

    def forward(self, tokens):
        h = self.emb(tokens) + self.pos
        h = self.encoder(h, mask=self.mask)
        return self.head(h.mean(1))


def test_transformer_encoder_dynamic_batch():
    m = Classifier().eval()
    tokens = flow.randint(0, 30, (2, 6))
    proto, sess = _export(m, (tokens,), input_names=["tokens"], output_names=["logits"],
                          dynamic_axes={"tokens": {0: "batch"}, "logits": {0: "batch"}})
    for n in (2, 1, 5):
        tokens = flow.randint(0, 30, (n, 6))
        got = sess.run(None, {"tokens": tokens.numpy()})[0]
        np.testing.assert_allclose(got, m(tokens).numpy(), rtol=1e-4, atol=1e-5)


def test_time_major_encoder_with_padding_mask_dynamic_batch():
    enc = _encoder(False, False)
    m = _Fn(lambda x, pad: enc(x, src_key_padding_mask=pad))
    proto, sess = _export(m, (Q, PAD), input_names=["x", "pad"], output_names=["y"],
                          dynamic_axes={"x": {1: "batch"}, "pad": {0: "batch"}, "y": {1: "batch"}})
    for n in (3, 6):
        x, pad = flow.randn(L, n, E), flow.rand(n, L) > 0.7
        pad[:, 0] = False
        got = sess.run(None, {"x": x.numpy(), "pad": pad.numpy()})[0]
        np.testing.assert_allclose(got, m(x, pad).numpy(), rtol=1e-4, atol=1e-5)


def test_attention_dropout_is_refused():
    q = flow.randn(2, 5, 8)
    with pytest.raises(flow.onnx.OnnxExporterError, match="dropout"):
        _export(_Fn(lambda q: F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)), (q,))
    m = nn.MultiheadAttention(E, 2, dropout=0.5)
    with pytest.raises(flow.onnx.OnnxExporterError, match="dropout"):
        _export(_Fn(lambda x: m(x, x, x)[0]), (Q,), training="TRAINING")


def test_transformer_encoder_decoder():
    m = nn.Transformer(E, 2, 1, 1, 16, dropout=0.1).eval()
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
    _check(_Fn(lambda s, t: m(s, t, tgt_mask=tgt_mask)), Q, flow.randn(4, N, E), rtol=1e-4)
