"""monoflow.onnx.export of nn.LSTM / nn.GRU / nn.RNN (one ONNX LSTM/GRU/RNN node per
layer): time-major and batch_first, multi-layer, bidirectional, given initial states,
unbatched input, and an LSTM language model exported with dynamic batch and sequence
axes. Each passes onnx.checker's full check and onnxruntime matches monoflow."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import monoflow as flow  # noqa: E402
import monoflow.nn as nn  # noqa: E402
from test_onnx import _Fn, _check, _export, _ops  # noqa: E402

flow.manual_seed(3)

CASES = {
    "lstm": (lambda: nn.LSTM(5, 7), (6, 3, 5)),
    "lstm_batch_first_2layers": (lambda: nn.LSTM(5, 7, num_layers=2, batch_first=True), (3, 6, 5)),
    "lstm_bidirectional_2layers": (lambda: nn.LSTM(5, 4, 2, bidirectional=True), (6, 3, 5)),
    "lstm_nobias": (lambda: nn.LSTM(5, 4, bias=False, batch_first=True), (3, 6, 5)),
    "lstm_unbatched": (lambda: nn.LSTM(5, 4, bidirectional=True), (6, 5)),
    "gru": (lambda: nn.GRU(5, 7), (6, 3, 5)),
    "gru_batch_first_bidirectional_3layers": (lambda: nn.GRU(5, 4, 3, batch_first=True, bidirectional=True),
                                              (3, 6, 5)),
    "rnn_tanh": (lambda: nn.RNN(5, 4, 2), (6, 3, 5)),
    "rnn_relu_bidirectional": (lambda: nn.RNN(5, 4, nonlinearity="relu", bidirectional=True), (6, 3, 5)),
}


class _AllOutputs(nn.Module):
    """The recurrent layer's output and final states as a flat tuple."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, *state):
        out, h = self.rnn(x, *state)
        return (out,) + (tuple(h) if isinstance(h, tuple) else (h,))


@pytest.mark.parametrize("name", sorted(CASES))
def test_recurrent_layer(name):
    make, shape = CASES[name]
    m = _AllOutputs(make())
    proto = _check(m, flow.randn(*shape))
    kind = type(m.rnn).__name__
    assert _ops(proto).count(kind) == m.rnn.num_layers


def test_initial_states_as_inputs():
    lstm = nn.LSTM(5, 4, 2, batch_first=True, bidirectional=True)
    h0, c0 = flow.randn(4, 3, 4), flow.randn(4, 3, 4)
    _check(_Fn(lambda x, h, c: lstm(x, (h, c))[0]), flow.randn(3, 6, 5), h0, c0)
    gru = nn.GRU(5, 4, 2)
    _check(_Fn(lambda x, h: gru(x, h)[1]), flow.randn(6, 3, 5), flow.randn(2, 3, 4))


class LSTMLanguageModel(nn.Module):
    """pytorch/examples word_language_model's RNNModel, LSTM flavour: embedding, a
    2-layer LSTM (batch first here), dropout, a decoder to the vocabulary."""

    def __init__(self, vocab=20, emb=8, hidden=12):
        super().__init__()
        self.drop = nn.Dropout(0.3)
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, 2, dropout=0.3, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        out, _ = self.rnn(self.drop(self.encoder(tokens)))
        logits = self.decoder(self.drop(out))
        return flow.log_softmax(logits, dim=-1)


def test_lstm_language_model_dynamic_batch_and_length():
    m = LSTMLanguageModel().eval()
    tokens = flow.randint(0, 20, (2, 5))
    axes = {"tokens": {0: "batch", 1: "time"}, "logp": {0: "batch", 1: "time"}}
    proto, sess = _export(m, (tokens,), input_names=["tokens"], output_names=["logp"], dynamic_axes=axes)
    assert [d.dim_param for d in proto.graph.input[0].type.tensor_type.shape.dim] == ["batch", "time"]
    for n, t in ((2, 5), (1, 3), (7, 9)):
        tokens = flow.randint(0, 20, (n, t))
        got = sess.run(None, {"tokens": tokens.numpy()})[0]
        np.testing.assert_allclose(got, m(tokens).numpy(), rtol=1e-5, atol=1e-5)


def test_packed_sequence_is_refused_by_name():
    lstm = nn.LSTM(5, 4)

    def fn(x):
        packed = nn.utils.rnn.pack_padded_sequence(x, [6, 4, 2])
        return lstm(packed)[1][0]
    with pytest.raises(flow.onnx.OnnxExporterError, match="pack_padded_sequence"):
        _export(_Fn(fn), (flow.randn(6, 3, 5),))


def test_training_dropout_between_layers_is_refused():
    with pytest.raises(flow.onnx.OnnxExporterError, match="LSTM: dropout"):
        _export(_AllOutputs(nn.LSTM(5, 4, 2, dropout=0.5)), (flow.randn(6, 3, 5),), training="TRAINING")
