# Bindings of the recurrent-network ops (included by _C.pyx; uses its
# helpers: wrap and the argument converters of _args.pxi).


def lstm_cell(gates, cx):
    """The LSTM cell after its matmuls, one fused pass: gates (N, 4H) are the
    pre-activation sums (order i, f, g, o), cx (N, H) the cell state;
    returns (h', c')."""
    cdef pair[Tensor, Tensor] r = c_lstm_cell(_tt(gates, "lstm_cell", "gates"), _tt(cx, "lstm_cell", "cx"))
    return (wrap(r.first), wrap(r.second))
