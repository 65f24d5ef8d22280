"""Whole models trained in flow.nn.Graph against the same training written
eagerly: a transformer encoder layer (with dropout, which a graph draws
anew at every step, and a causal mask built inside build) and a small
language model. Losses, parameters and optimizer state must agree after
several steps."""
import numpy as np
import pytest

import monoflow as flow
import monoflow.nn.functional as F
from monoflow import nn


def _np(t):
    return t.detach().numpy().copy()


class TokenModel(nn.Module):
    """Embedding -> causal encoder layers -> vocabulary logits."""

    def __init__(self, vocab, d, heads, layers, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, dropout=dropout, batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        n = tokens.shape[1]
        # Built on every call from constants: the graph keeps it as part of the plan.
        mask = flow.triu(flow.ones(n, n, device=tokens.device), diagonal=1).bool()
        mask = flow.zeros(n, n, device=tokens.device).masked_fill(mask, float("-inf"))
        return self.head(self.encoder(self.embed(tokens), mask=mask))


class LMGraph(nn.Graph):
    def __init__(self, model, opt):
        super().__init__()
        self.model = model
        self.add_optimizer(opt)

    def build(self, tokens, targets):
        logits = self.model(tokens)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        loss.backward()
        return loss


class EncoderGraph(nn.Graph):
    def __init__(self, layer, opt):
        super().__init__()
        self.layer = layer
        self.add_optimizer(opt)

    def build(self, x, target):
        loss = F.mse_loss(self.layer(x), target)
        loss.backward()
        return loss


def _batches(n, shape, vocab=None, seed=0):
    rng = np.random.default_rng(seed)
    if vocab is None:
        return [(flow.tensor(rng.standard_normal(shape).astype(np.float32)),
                 flow.tensor(rng.standard_normal(shape).astype(np.float32))) for _ in range(n)]
    return [(flow.tensor(rng.integers(0, vocab, shape)), flow.tensor(rng.integers(0, vocab, shape)))
            for _ in range(n)]


def _train_both(make_model, make_graph, loss_fn, batches, seed_eager_and_graph=1234):
    """The same model and optimizer trained eagerly and through a graph from the
    same initial values and the same random seed."""
    m_e, o_e = make_model()
    m_g, o_g = make_model()
    m_g.load_state_dict(m_e.state_dict())
    flow.manual_seed(seed_eager_and_graph)
    eager = []
    for x, y in batches:
        o_e.zero_grad()
        loss = loss_fn(m_e, x, y)
        loss.backward()
        o_e.step()
        eager.append(loss.item())
    flow.manual_seed(seed_eager_and_graph)
    graph = make_graph(m_g, o_g)
    got = [graph(x, y).item() for x, y in batches]
    return (m_e, o_e, eager), (m_g, o_g, got), graph


def _check_close(m_e, o_e, m_g, o_g, rtol, atol):
    for (name, pe), pg in zip(m_e.named_parameters(), m_g.parameters()):
        np.testing.assert_allclose(_np(pg), _np(pe), rtol=rtol, atol=atol, err_msg=name)
        for k, v in o_e.state[pe].items():
            if isinstance(v, flow.Tensor):
                np.testing.assert_allclose(_np(o_g.state[pg][k]), _np(v), rtol=rtol, atol=atol,
                                           err_msg=f"{name} {k}")


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_transformer_encoder_layer_trains_like_eager(dropout):
    def make():
        flow.manual_seed(0)
        layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=dropout, batch_first=True)
        return layer, flow.optim.AdamW(layer.parameters(), lr=1e-2, weight_decay=0.01)

    def loss_fn(m, x, y):
        return F.mse_loss(m(x), y)
    batches = _batches(5, (3, 7, 16))
    (m_e, o_e, eager), (m_g, o_g, got), graph = _train_both(make, EncoderGraph, loss_fn, batches)
    assert len(graph._plans) == 1
    # Adam's first step ran eagerly (it creates the moments); the rest replayed the plan.
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-6)
    _check_close(m_e, o_e, m_g, o_g, rtol=1e-4, atol=1e-6)
    if dropout:
        # Dropout drew fresh masks each step: frozen masks would repeat a loss on a repeated batch.
        x, y = batches[0]
        assert graph(x, y).item() != graph(x, y).item()


def test_causal_language_model_trains_like_eager():
    vocab = 11

    def make():
        flow.manual_seed(0)
        model = TokenModel(vocab, 16, 2, 2, dropout=0.1)
        return model, flow.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def loss_fn(m, x, y):
        logits = m(x)
        return F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
    batches = _batches(6, (4, 9), vocab=vocab)
    (m_e, o_e, eager), (m_g, o_g, got), graph = _train_both(make, LMGraph, loss_fn, batches)
    np.testing.assert_allclose(got, eager, rtol=1e-5, atol=1e-6)
    assert got[-1] < got[0]  # it learns
    _check_close(m_e, o_e, m_g, o_g, rtol=1e-4, atol=1e-6)
    # A new sequence length is a new signature: another plan, same model.
    x, y = _batches(1, (4, 5), vocab=vocab, seed=9)[0]
    graph(x, y)
    assert len(graph._plans) == 2
