"""nn.RNN / nn.LSTM / nn.GRU as the ONNX RNN, LSTM and GRU ops, one node per
layer (both directions in it).

The gates are reordered in the graph from the layer's own parameters: torch
stacks LSTM gates (i, f, g, o) and GRU gates (r, z, n), ONNX wants (i, o, f, c)
and (z, r, h). torch's GRU applies the reset gate after the hidden state's
matmul, which is ONNX's linear_before_reset=1."""

from ._errors import OnnxExporterError

# ONNX's gate order as indices into torch's
_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}


def _reordered(b, t, order, h):
    """A (G*H, ...) weight or (G*H,) bias with its H-row gate blocks in ``order``."""
    x = b.name(t)
    if order == list(range(len(order))):
        return x
    blocks = b.node("Split", [x, b.ints([h] * len(order))], n_out=len(order), axis=0)
    return b.node("Concat", [blocks[i] for i in order], axis=0)


def _stack_dirs(b, names):
    axis0 = b.ints([0])
    parts = [b.node("Unsqueeze", [n, axis0]) for n in names]
    return parts[0] if len(parts) == 1 else b.node("Concat", parts, axis=0)


def rnn(b, out, mod, input, hx=None):
    if mod.training and mod.dropout and mod.num_layers > 1:
        raise OnnxExporterError(f"{type(mod).__name__}: dropout between layers in training mode (random) is not "
                                "supported by the ONNX exporter")
    if getattr(mod, "proj_size", 0):
        raise OnnxExporterError(f"{type(mod).__name__}: proj_size > 0 (LSTM projections) has no ONNX LSTM "
                                "equivalent and is not supported by the ONNX exporter")
    mode, h, dirs = mod.mode, mod.hidden_size, 2 if mod.bidirectional else 1
    is_lstm = mode == "LSTM"
    order = _ORDER[mode]
    batched = input.dim() == 3
    x = b.name(input)
    if not batched:
        x = b.node("Unsqueeze", [x, b.ints([1])])
    elif mod.batch_first:
        x = b.node("Transpose", [x], perm=[1, 0, 2])
    h0 = c0 = None
    if hx is not None:
        h0, c0 = hx if is_lstm else (hx, None)
        h0 = b.name(h0)
        c0 = b.name(c0) if c0 is not None else None
        if not batched:
            h0 = b.node("Unsqueeze", [h0, b.ints([1])])
            c0 = b.node("Unsqueeze", [c0, b.ints([1])]) if c0 is not None else None
    op = {"LSTM": "LSTM", "GRU": "GRU"}.get(mode, "RNN")
    attrs = dict(hidden_size=h, direction="bidirectional" if dirs == 2 else "forward")
    if mode == "GRU":
        attrs["linear_before_reset"] = 1
    elif op == "RNN":
        attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * dirs
    h_n, c_n = [], []
    for layer in range(mod.num_layers):
        params = [mod._layer_params(layer, d) for d in range(dirs)]
        w = _stack_dirs(b, [_reordered(b, p[0], order, h) for p in params])
        r = _stack_dirs(b, [_reordered(b, p[1], order, h) for p in params])
        ins = [x, w, r]
        if mod.bias:
            ins.append(_stack_dirs(b, [b.node("Concat", [_reordered(b, p[2], order, h), _reordered(b, p[3], order, h)],
                                              axis=0) for p in params]))
        else:
            ins.append("")
        ins.append("")  # sequence_lens: every sequence runs the full length
        span = [b.ints([layer * dirs]), b.ints([(layer + 1) * dirs]), b.ints([0])]
        ins.append(b.node("Slice", [h0] + span) if h0 is not None else "")
        if is_lstm:
            ins.append(b.node("Slice", [c0] + span) if c0 is not None else "")
        while ins[-1] == "":
            ins.pop()
        outs = b.node(op, ins, n_out=3 if is_lstm else 2, **attrs)
        y = b.node("Transpose", [outs[0]], perm=[0, 2, 1, 3])   # (T, D, N, H) -> (T, N, D, H)
        x = b.node("Reshape", [y, b.ints([0, 0, -1])])         # -> (T, N, D * H)
        h_n.append(outs[1])
        if is_lstm:
            c_n.append(outs[2])
    states = [b.node("Concat", s, axis=0) if len(s) > 1 else b.node("Identity", s) for s in ([h_n, c_n] if is_lstm
                                                                                          else [h_n])]
    output = x
    if not batched:
        output = b.node("Squeeze", [output, b.ints([1])])
        states = [b.node("Squeeze", [s, b.ints([1])]) for s in states]
    elif mod.batch_first:
        output = b.node("Transpose", [output], perm=[1, 0, 2])
    return [output, states] if is_lstm else [output, states[0]]

