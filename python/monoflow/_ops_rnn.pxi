# Bindings of the recurrent-network ops (included by _C.pyx; uses its
# helpers: wrap and the argument converters of _args.pxi).


def lstm_cell(gates, cx):
    """The LSTM cell after its matmuls, one fused pass: gates (N, 4H) are the
    pre-activation sums (order i, f, g, o), cx (N, H) the cell state;
    returns (h', c')."""
    cdef pair[Tensor, Tensor] r = c_lstm_cell(_tt(gates, "lstm_cell", "gates"), _tt(cx, "lstm_cell", "cx"))
    return (wrap(r.first), wrap(r.second))


def lstm_cell_backward(gh, gc, gates, cx, c_new):
    """lstm_cell's backward: (d gates, d cx) from the gradients gh of h' and gc
    of c', given the cell's inputs and its c' (fused; differentiable ops when
    grad mode is on)."""
    cdef pair[Tensor, Tensor] r = c_lstm_cell_backward(
        _tt(gh, "lstm_cell_backward", "gh"), _tt(gc, "lstm_cell_backward", "gc"),
        _tt(gates, "lstm_cell_backward", "gates"), _tt(cx, "lstm_cell_backward", "cx"),
        _tt(c_new, "lstm_cell_backward", "c_new"))
    return (wrap(r.first), wrap(r.second))
