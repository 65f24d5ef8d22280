"""Recurrent layers: RNN, LSTM, GRU and their cells, with torch's parameter
names (weight_ih_l0, weight_hh_l0_reverse, ...) and gate order (LSTM: i, f,
g, o; GRU: r, z, n), so that torch state dicts load and outputs match.

The input projection of every time step is one matmul over the whole
sequence; only the hidden-state recurrence loops over time. An LSTM step is
then one matmul, one add and one fused cell (_C.lstm_cell: the gates'
activations and the state update in one pass each way)."""
import functools
import math

from monoflow import _C
from monoflow import ops_math as _m
from monoflow.amp.autocast_mode import is_autocast_enabled
from monoflow.nn import functional as F
from monoflow.nn import init
from monoflow.nn.module import Module
from monoflow.nn.modules._factory import empty
from monoflow.nn.parameter import Parameter
from monoflow.nn.utils.rnn import PackedSequence, _padded_sorted, _step_masks
from monoflow.ops_shape import cat, stack

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _lstm_input_projection(x, w_ih, b_ih, b_hh):
    """x W_ih^T plus both biases: the step then adds only h W_hh^T."""
    return F.linear(x, w_ih, None if b_ih is None else b_ih + b_hh)


def _lstm_step(gi, h, c, w_hh):
    """One step from the input projection gi (_lstm_input_projection): (h', c', the
    pre-activation gates). W_hh is transposed per step: each step's weight gradient then reaches W_hh
    row-major (Note [Gradients in the operand's layout]), where one shared
    transposed view would sum the steps' gradients in the transposed layout."""
    gates = gi + h.matmul(w_hh.t())
    if gates.dtype != c.dtype:  # autocast made the matmuls lower precision: the cell runs in the state's
        gates = gates.to(c.dtype)  # dtype (torch's LSTMCell under CPU autocast returns float32 too)
    return (*_C.lstm_cell(gates, c), gates)


# Note [LSTM backward over the sequence]
#   Through autograd, every step's h W_hh^T hands W_hh a gradient of its own,
#   dG_t^T h_(t-1): at hidden 1024 a 16 MB matrix per step, made by a K = N
#   matmul and then added into the accumulated gradient, so that the adds
#   alone cost as much as the rest of the backward. _LSTMSequence runs one
#   direction of a layer as one autograd node: its backward walks the steps
#   back with the fused cell backward, keeps every step's gate gradient, and
#   makes W_hh's gradient with one matmul over all steps, dG^T H (T N rows),
#   which is also what the input projection's backward receives (dG). Under
#   create_graph the backward replays the steps with differentiable ops.
@functools.cache
def _lstm_sequence_function():
    from monoflow.autograd.function import Function  # (autograd imports the tensor, which imports nn)

    class LSTMSequence(Function):
        @staticmethod
        def forward(ctx, gi, h0, c0, w_hh, reverse):
            gates, cs = [None] * gi.shape[0], [None] * gi.shape[0]
            out, h, c = _lstm_sequence_steps(gi, h0, c0, w_hh, reverse, keep=(gates, cs))
            ctx.reverse = reverse
            ctx.save_for_backward(gi, h0, c0, w_hh, out, *gates, *cs)
            return out, h, c

        @staticmethod
        def backward(ctx, d_out, d_h, d_c):
            gi, h0, c0, w_hh, out, *rest = ctx.saved_tensors
            T = gi.shape[0]
            gates, cs = rest[:T], rest[T:]
            if _C.is_grad_enabled():  # create_graph
                return _replayed_gradients(_lstm_sequence_steps, [gi, h0, c0, w_hh], ctx.reverse, (d_out, d_h, d_c))
            order = _time_steps(T, not ctx.reverse)  # backward through the steps
            dh = d_h if d_h is not None else h0.new_zeros(h0.shape)
            dc = d_c if d_c is not None else c0.new_zeros(c0.shape)
            d_gates = [None] * T
            for t in order:
                if d_out is not None:
                    dh = dh + d_out[t]
                prev = t + 1 if ctx.reverse else t - 1
                c_prev = cs[prev] if 0 <= prev < T else c0
                d_gates[t], dc = _C.lstm_cell_backward(dh, dc, gates[t], c_prev, cs[t])
                dh = d_gates[t].matmul(w_hh)
            dG = stack(d_gates, 0)
            d_w = dG.flatten(0, 1).t().matmul(_previous_states(out, h0, ctx.reverse).flatten(0, 1))
            return dG, dh, dc, d_w, None

    return LSTMSequence


def _time_steps(n, reverse):
    """The time indices in the order a direction visits them."""
    return range(n - 1, -1, -1) if reverse else range(n)


def _previous_states(out, h0, reverse):
    """h_(t-1) of every step, in time order: the outputs shifted by one step."""
    first = h0.unsqueeze(0)
    return cat([out[1:], first] if reverse else [first, out[:-1]], 0)


def _replayed_gradients(steps, inputs, reverse, grads):
    """A sequence node's backward under create_graph: the steps run again with
    differentiable ops on the saved `inputs` (gi, states, weights; None where
    absent), and autograd differentiates them; returns the node's gradients."""
    from monoflow.autograd import grad as autograd_grad
    from monoflow.autograd.grad_mode import enable_grad

    wanted = [v for v in inputs if v is not None and v.requires_grad]
    with enable_grad():
        pairs = [(o, g) for o, g in zip(steps(*inputs, reverse), grads) if g is not None]
        found = iter(autograd_grad([o for o, _ in pairs], wanted, [g for _, g in pairs],
                                   create_graph=True, allow_unused=True))
    return (*(next(found) if v is not None and v.requires_grad else None for v in inputs), None)


def _lstm_sequence_steps(gi, h0, c0, w_hh, reverse, keep=None):
    """The steps of one direction from the input projection gi: (outputs, h_T, c_T).
    `keep` = (gates, cells), two lists of length T, receives each step's pre-activation
    gates and cell state (what LSTMSequence's backward reads)."""
    h, c, hs = h0, c0, [None] * gi.shape[0]
    for t in _time_steps(gi.shape[0], reverse):
        h, c, gates = _lstm_step(gi[t], h, c, w_hh)
        hs[t] = h
        if keep is not None:
            keep[0][t], keep[1][t] = gates, c
    return stack(hs, 0), h, c


def _lstm_sequence(gi, h0, c0, w_hh, reverse):
    return _lstm_sequence_function().apply(gi, h0, c0, w_hh, reverse)


def _gru_step(gi, h, w_hh, b_hh, keep=None, t=None):
    """One GRU step from the input projection gi (N, 3H). `keep` = four lists
    receiving the step's r, z, n and h W_hn^T + b_hn at index t (what
    GRUSequence's backward reads)."""
    gh = F.linear(h, w_hh, b_hh)
    ir, iz, in_ = gi.chunk(3, -1)
    hr, hz, hn = gh.chunk(3, -1)
    r = _m.sigmoid(ir + hr)
    z = _m.sigmoid(iz + hz)
    n = _m.tanh(in_ + r * hn)
    if keep is not None:
        keep[0][t], keep[1][t], keep[2][t], keep[3][t] = r, z, n, hn
    return n + z * (h - n)  # (1 - z) * n + z * h


# Note [GRU backward over the sequence]
#   As for the LSTM (Note [LSTM backward over the sequence]), one direction
#   of a GRU layer is one autograd node. Its backward walks the steps back
#   from the kept r, z, n and hn (= h W_hn^T + b_hn): with dh the gradient
#   reaching h_t,
#       dn~ = dh (1 - z) (1 - n^2)       (n's pre-activation; also d in)
#       dz~ = dh (h_(t-1) - n) z (1 - z) (d iz = d hz)
#       dr~ = dn~ hn r (1 - r)           (d ir = d hr)
#       d hn = dn~ r
#       dh_(t-1) = dh z + [dr~, dz~, d hn] W_hh
#   and W_hh's and b_hh's gradients are one matmul and one sum over all
#   steps' [dr~, dz~, d hn], instead of a weight-sized gradient per step.
@functools.cache
def _gru_sequence_function():
    from monoflow.autograd.function import Function

    class GRUSequence(Function):
        @staticmethod
        def forward(ctx, gi, h0, w_hh, b_hh, reverse):
            T = gi.shape[0]
            keep = ([None] * T, [None] * T, [None] * T, [None] * T)
            out, h = _gru_sequence_steps(gi, h0, w_hh, b_hh, reverse, keep)
            ctx.reverse, ctx.has_bias = reverse, b_hh is not None
            ctx.save_for_backward(gi, h0, w_hh, b_hh, out, *keep[0], *keep[1], *keep[2], *keep[3])
            return out, h

        @staticmethod
        def backward(ctx, d_out, d_h):
            gi, h0, w_hh, b_hh, out, *kept = ctx.saved_tensors
            if _C.is_grad_enabled():  # create_graph
                return _replayed_gradients(_gru_sequence_steps, [gi, h0, w_hh, b_hh], ctx.reverse, (d_out, d_h))
            T = gi.shape[0]
            rs, zs, ns, hns = (kept[k * T:(k + 1) * T] for k in range(4))
            h_prev = _previous_states(out, h0, ctx.reverse)
            dh = d_h if d_h is not None else h0.new_zeros(h0.shape)
            d_gi, d_gh = [None] * T, [None] * T
            for t in _time_steps(T, not ctx.reverse):
                if d_out is not None:
                    dh = dh + d_out[t]
                r, z, n = rs[t], zs[t], ns[t]
                dn = dh * (1 - z) * (1 - n * n)
                dz = dh * (h_prev[t] - n) * (z * (1 - z))
                d_hn = dn * r
                dr = dn * hns[t] * (r * (1 - r))
                d_gh[t] = cat([dr, dz, d_hn], 1)
                d_gi[t] = cat([dr, dz, dn], 1)
                dh = dh * z + d_gh[t].matmul(w_hh)
            dGh = stack(d_gh, 0).flatten(0, 1)
            d_w = dGh.t().matmul(h_prev.flatten(0, 1))
            d_b = dGh.sum(0) if ctx.has_bias else None
            return stack(d_gi, 0), dh, d_w, d_b, None

    return GRUSequence


def _gru_sequence_steps(gi, h0, w_hh, b_hh, reverse, keep=None):
    """The steps of one GRU direction from the input projection gi: (outputs, h_T)."""
    h, hs = h0, [None] * gi.shape[0]
    for t in _time_steps(gi.shape[0], reverse):
        h = hs[t] = _gru_step(gi[t], h, w_hh, b_hh, keep, t)
    return stack(hs, 0), h


def _rnn_step(gi, h, w_hh, b_hh, relu):
    pre = gi + F.linear(h, w_hh, b_hh)
    return _m.relu(pre) if relu else _m.tanh(pre)


# Note [Elman RNN backward over the sequence]
#   The plain RNN's node (as LSTM's and GRU's) needs nothing kept but the
#   outputs: the activation's derivative comes from h_t itself (tanh:
#   1 - h_t^2; relu: h_t > 0), the pre-activation's gradient is gi's, and
#   W_hh's and b_hh's gradients are one matmul and one sum over the steps.
@functools.cache
def _rnn_sequence_function(relu):
    from monoflow.autograd.function import Function

    def steps(gi, h0, w_hh, b_hh, reverse):
        h, hs = h0, [None] * gi.shape[0]
        for t in _time_steps(gi.shape[0], reverse):
            h = hs[t] = _rnn_step(gi[t], h, w_hh, b_hh, relu)
        return stack(hs, 0), h

    class RNNSequence(Function):
        @staticmethod
        def forward(ctx, gi, h0, w_hh, b_hh, reverse):
            out, h = steps(gi, h0, w_hh, b_hh, reverse)
            ctx.reverse, ctx.has_bias = reverse, b_hh is not None
            ctx.save_for_backward(gi, h0, w_hh, b_hh, out)
            return out, h

        @staticmethod
        def backward(ctx, d_out, d_h):
            gi, h0, w_hh, b_hh, out = ctx.saved_tensors
            if _C.is_grad_enabled():  # create_graph
                return _replayed_gradients(steps, [gi, h0, w_hh, b_hh], ctx.reverse, (d_out, d_h))
            dh = d_h if d_h is not None else h0.new_zeros(h0.shape)
            d_pre = [None] * gi.shape[0]
            for t in _time_steps(gi.shape[0], not ctx.reverse):
                if d_out is not None:
                    dh = dh + d_out[t]
                h = out[t]
                d_pre[t] = dh * (h > 0) if relu else dh * (1 - h * h)
                dh = d_pre[t].matmul(w_hh)
            dP = stack(d_pre, 0)
            flat = dP.flatten(0, 1)
            d_w = flat.t().matmul(_previous_states(out, h0, ctx.reverse).flatten(0, 1))
            return dP, dh, d_w, flat.sum(0) if ctx.has_bias else None, None

    RNNSequence.__name__ = RNNSequence.__qualname__ = "RNNReluSequence" if relu else "RNNTanhSequence"
    return RNNSequence


class RNNBase(Module):
    """The base of :class:`RNN`, :class:`LSTM` and :class:`GRU`: the stacked, optionally bidirectional
    recurrence over a sequence.

    Weights: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (``_reverse``
    for the backward direction), torch's names and layout, all starting as ``U(-1/sqrt(hidden_size),
    1/sqrt(hidden_size))``.

    Args:
        mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size (int): the number of features of each input step.
        hidden_size (int): the number of features of the hidden state.
        num_layers (int): the number of stacked layers. Default: ``1``.
        bias (bool): learn the biases ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): input and output are ``(N, L, H)`` instead of ``(L, N, H)`` (not the
            states). Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last, in training. Default:
            ``0.0``.
        bidirectional (bool): also run each layer backwards and concatenate both directions. Default:
            ``False``.
        proj_size (int): LSTM only: each step's hidden state is projected to this size by
            ``weight_hr_l{k}`` (``(proj_size, hidden_size)``); must be smaller than ``hidden_size``,
            ``0`` for none. Default: ``0``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, unbatched ``(L, H_in)``, or a
          ``PackedSequence``.
        - h_0: ``(D * num_layers, N, H_out)`` (``D = 2`` if bidirectional); zeros when not given.
        - output: ``(L, N, D * H_out)`` (batch first with ``batch_first``), the last layer's hidden
          state at every step.

    Example::

        >>> m = nn.RNNBase('GRU', 4, 8)
        >>> out, h = m(flow.randn(5, 3, 4))
        >>> out.shape, h.shape
        (monoflow.Size([5, 3, 8]), monoflow.Size([1, 3, 8]))
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be a positive integer")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if not isinstance(proj_size, int) or isinstance(proj_size, bool) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_dirs = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size  # the size of h (LSTM projections)
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(num_dirs):
                in_size = input_size if layer == 0 else real_hidden * num_dirs
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
                shapes = [(gate, in_size), (gate, real_hidden)]
                if bias:
                    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"]
                    shapes += [(gate,), (gate,)]
                if proj_size > 0:
                    names.append(f"weight_hr{suffix}")
                    shapes.append((proj_size, hidden_size))
                for n, s in zip(names, shapes):
                    setattr(self, n, Parameter(empty(*s, device=device, dtype=dtype)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        per = (4 if self.bias else 2) + (1 if self.proj_size > 0 else 0)
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _layer_params(self, layer, d):
        suffix = f"_l{layer}" + ("_reverse" if d else "")
        g = lambda n: getattr(self, n + suffix)  # noqa: E731
        return (g("weight_ih"), g("weight_hh"), g("bias_ih") if self.bias else None,
                g("bias_hh") if self.bias else None, g("weight_hr") if self.proj_size > 0 else None)

    def _run_direction(self, x, h, c, params, reverse, masks=None):
        # x: (T, N, in); returns (outputs (T, N, H), h_T, c_T). With `masks`
        # (packed input: per step, which sequences still run), a finished
        # sequence keeps its state and outputs zeros; running the reverse
        # direction from T-1 down then starts each sequence at its own end.
        w_ih, w_hh, b_ih, b_hh, w_hr = params
        is_lstm = self.mode == "LSTM"
        if masks is None and w_hr is None and x.shape[0] > 0 and _C.is_grad_enabled() \
                and any(v is not None and v.requires_grad for v in (x, w_ih, w_hh, b_hh, h, c)) \
                and not is_autocast_enabled(x.device.type):
            # the same steps as one autograd node (Notes [LSTM backward over the sequence],
            # [GRU backward over the sequence], [Elman RNN backward over the sequence])
            if is_lstm:
                return _lstm_sequence(_lstm_input_projection(x, w_ih, b_ih, b_hh), h, c, w_hh, reverse)
            sequence = _gru_sequence_function() if self.mode == "GRU" else \
                _rnn_sequence_function(self.mode == "RNN_RELU")
            return (*sequence.apply(F.linear(x, w_ih, b_ih), h, w_hh, b_hh, reverse), None)
        # Every step's input projection at once, unbound into per-step views:
        # unbind's backward stacks the step gradients once, where indexing
        # gi_all[t] per step would build (and sum) a full-size gradient per step.
        if is_lstm:
            gi_all = _lstm_input_projection(x, w_ih, b_ih, b_hh).unbind(0)
        else:
            gi_all = F.linear(x, w_ih, b_ih).unbind(0)
        steps = _time_steps(x.shape[0], reverse)
        outs = [None] * x.shape[0]
        for t in steps:
            gi = gi_all[t]
            h_prev, c_prev = h, c
            if is_lstm:
                h, c, _ = _lstm_step(gi, h, c, w_hh)
                if w_hr is not None:  # proj_size: h = W_hr h
                    h = h.matmul(w_hr.t())
            elif self.mode == "GRU":
                h = _gru_step(gi, h, w_hh, b_hh)
            else:
                h = _rnn_step(gi, h, w_hh, b_hh, self.mode == "RNN_RELU")
            if masks is not None:
                h = _m.where(masks[t], h, h_prev)
                c = _m.where(masks[t], c, c_prev) if c is not None else None
                outs[t] = _m.where(masks[t], h, h.new_zeros(()))
            else:
                outs[t] = h
        return stack(outs, 0), h, c

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        return self._forward(input, hx)

    def _forward_packed(self, packed, hx):
        """A PackedSequence in, a PackedSequence out; the states in the caller's batch order."""
        padded, _ = _padded_sorted(packed, 0.0, None)
        batch_sizes = [int(b) for b in packed.batch_sizes.tolist()]
        masks = _step_masks(batch_sizes, padded.shape[1], padded.device)
        if hx is not None and packed.sorted_indices is not None:  # to the sorted order
            hx = tuple(t.index_select(1, packed.sorted_indices) for t in hx) if self.mode == "LSTM" else \
                hx.index_select(1, packed.sorted_indices)
        output, hidden = self._forward(padded, hx, masks, batch_first=False)  # packed data is time-major
        data = cat([output[t, :b] for t, b in enumerate(batch_sizes)], 0)
        if packed.unsorted_indices is not None:
            hidden = tuple(t.index_select(1, packed.unsorted_indices) for t in hidden) if self.mode == "LSTM" \
                else hidden.index_select(1, packed.unsorted_indices)
        return PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices), hidden

    def _forward(self, input, hx=None, masks=None, batch_first=None):
        is_lstm = self.mode == "LSTM"
        batch_first = self.batch_first if batch_first is None else batch_first
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        x = input if batched else input.unsqueeze(1)
        if batched and batch_first:
            x = x.transpose(0, 1)
        N = x.shape[1]
        num_dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            h0 = x.new_zeros(self.num_layers * num_dirs, N, real_hidden)
            c0 = (h0 if real_hidden == self.hidden_size else x.new_zeros(self.num_layers * num_dirs, N,
                                                                          self.hidden_size)) if is_lstm else None
        else:
            h0, c0 = hx if is_lstm else (hx, None)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            for name, t, size in (("hidden", h0, real_hidden), ("cell", c0, self.hidden_size)):
                expected = (self.num_layers * num_dirs, N, size)
                if t is not None and tuple(t.shape) != expected:
                    raise RuntimeError(f"Expected {name} size {expected}, got {list(t.shape)}")
        h_n, c_n = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(num_dirs):
                k = layer * num_dirs + d
                out, h, c = self._run_direction(layer_in, h0[k], c0[k] if is_lstm else None,
                                                self._layer_params(layer, d), reverse=d == 1, masks=masks)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            layer_in = outs[0] if num_dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        output = layer_in
        h_n = stack(h_n, 0)
        c_n = stack(c_n, 0) if is_lstm else None
        if batched and batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if is_lstm else None
        return output, ((h_n, c_n) if is_lstm else h_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _split_args(args, kwargs, names):
    values = dict(zip(names, args))
    values.update(kwargs)
    return values


class RNN(RNNBase):
    """A multi-layer Elman RNN: ``h_t = tanh(x_t @ W_ih.T + b_ih + h_(t-1) @ W_hh.T + b_hh)`` (or relu).

    Call it as ``rnn(input, h_0=None)``; it returns ``(output, h_n)``.

    Weights: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (``_reverse``
    for the backward direction), torch's names and layout, all starting as ``U(-1/sqrt(hidden_size),
    1/sqrt(hidden_size))``.

    Args:
        args: torch's positional form ``(input_size, hidden_size, num_layers, nonlinearity, bias,
            batch_first, dropout, bidirectional)``.
        kwargs: the keyword form of the same: ``input_size``, ``hidden_size``, ``num_layers=1``,
            ``nonlinearity='tanh'`` (or ``'relu'``; anything else raises ``ValueError``), ``bias=True``,
            ``batch_first=False``, ``dropout=0.0``, ``bidirectional=False``, ``device``, ``dtype``.

    Shape:
        - input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, unbatched ``(L, H_in)``, or a
          ``PackedSequence``.
        - h_0, h_n: ``(D * num_layers, N, H_out)`` (``D = 2`` if bidirectional); zeros when not given.
        - output: ``(L, N, D * H_out)`` (batch first with ``batch_first``), the last layer's hidden
          state at every step.

    Example::

        >>> rnn = nn.RNN(10, 20, num_layers=2)
        >>> out, h_n = rnn(flow.randn(5, 3, 10))
        >>> out.shape, h_n.shape
        (monoflow.Size([5, 3, 20]), monoflow.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:  # torch's positional form (input, hidden, layers, nonlinearity, ...)
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, *args, **kwargs)



class LSTM(RNNBase):
    """A multi-layer long short-term memory: per step, input, forget, cell and output gates update the cell
    state ``c`` and the hidden state ``h``.

    Call it as ``lstm(input, (h_0, c_0)=None)``; it returns ``(output, (h_n, c_n))``. The gates are
    stacked ``(i, f, g, o)`` in the weights, as in torch, so state dicts move between the two.

    Weights: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (``_reverse``
    for the backward direction), torch's names and layout, all starting as ``U(-1/sqrt(hidden_size),
    1/sqrt(hidden_size))``.

    Args:
        args: torch's positional form ``(input_size, hidden_size, num_layers, bias, batch_first,
            dropout, bidirectional, proj_size)``.
        kwargs: the keyword form: ``input_size``, ``hidden_size``, ``num_layers=1``, ``bias=True``,
            ``batch_first=False``, ``dropout=0.0``, ``bidirectional=False``, ``proj_size=0`` (non-zero:
            ``h`` projected to that size by ``weight_hr_l{k}``), ``device``, ``dtype``.

    Shape:
        - input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, unbatched ``(L, H_in)``, or a
          ``PackedSequence``.
        - h_0, c_0, h_n, c_n: ``(D * num_layers, N, H_out)`` (``D = 2`` if bidirectional; ``H_out`` is
          ``proj_size`` for h with projections, ``hidden_size`` for c); zeros when not given.
        - output: ``(L, N, D * H_out)`` (batch first with ``batch_first``), the last layer's hidden
          state at every step.

    Example::

        >>> lstm = nn.LSTM(10, 20, batch_first=True, bidirectional=True)
        >>> out, (h_n, c_n) = lstm(flow.randn(3, 5, 10))
        >>> out.shape, h_n.shape, c_n.shape
        (monoflow.Size([3, 5, 40]), monoflow.Size([2, 3, 20]), monoflow.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """A multi-layer gated recurrent unit: per step, reset and update gates mix the previous hidden state
    with a candidate.

    Call it as ``gru(input, h_0=None)``; it returns ``(output, h_n)``. The gates are stacked ``(r, z,
    n)``, as in torch.

    Weights: ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (``_reverse``
    for the backward direction), torch's names and layout, all starting as ``U(-1/sqrt(hidden_size),
    1/sqrt(hidden_size))``.

    Args:
        args: torch's positional form ``(input_size, hidden_size, num_layers, bias, batch_first,
            dropout, bidirectional)``.
        kwargs: the keyword form: ``input_size``, ``hidden_size``, ``num_layers=1``, ``bias=True``,
            ``batch_first=False``, ``dropout=0.0``, ``bidirectional=False``, ``device``, ``dtype``.

    Shape:
        - input: ``(L, N, H_in)``, ``(N, L, H_in)`` with ``batch_first``, unbatched ``(L, H_in)``, or a
          ``PackedSequence``.
        - h_0, h_n: ``(D * num_layers, N, H_out)`` (``D = 2`` if bidirectional); zeros when not given.
        - output: ``(L, N, D * H_out)`` (batch first with ``batch_first``), the last layer's hidden
          state at every step.

    Example::

        >>> gru = nn.GRU(10, 20, num_layers=2)
        >>> out, h_n = gru(flow.randn(5, 3, 10))
        >>> out.shape, h_n.shape
        (monoflow.Size([5, 3, 20]), monoflow.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """The base of the single-step cells: holds ``weight_ih`` ``(num_chunks * hidden_size, input_size)``,
    ``weight_hh`` ``(num_chunks * hidden_size, hidden_size)`` and the biases.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn ``bias_ih`` and ``bias_hh``.
        num_chunks (int): the number of gates (1 RNN, 4 LSTM, 3 GRU).
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Example::

        >>> cell = nn.RNNCellBase(4, 8, True, 3)
        >>> cell.weight_ih.shape, cell.weight_hh.shape
        (monoflow.Size([24, 4]), monoflow.Size([24, 8]))
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _prepare(self, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            return x, None, batched
        if isinstance(hx, tuple):
            hx = tuple(h if batched else h.unsqueeze(0) for h in hx)
        else:
            hx = hx if batched else hx.unsqueeze(0)
        return x, hx, batched

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh)`` (or relu). Call it as
    ``cell(input, hx=None)``.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn the biases. Default: ``True``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in,)``.
        - hx: ``(N, H_out)`` or ``(H_out,)``; zeros when not given.
        - Output: ``h'``, the shape of ``hx``.

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> h = cell(flow.randn(3, 10))
        >>> cell(flow.randn(3, 10), h).shape
        monoflow.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        x, h, batched = self._prepare(input, hx)
        if h is None:
            h = x.new_zeros(x.shape[0], self.hidden_size)
        h = _rnn_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM. Call it as ``cell(input, (h, c)=None)``; it returns ``(h', c')``.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn the biases. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in,)``.
        - h, c: ``(N, H_out)`` or ``(H_out,)``; zeros when not given.
        - Output: ``(h', c')``, the shapes of ``h`` and ``c``.

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> h, c = cell(flow.randn(3, 10))
        >>> h.shape, c.shape
        (monoflow.Size([3, 20]), monoflow.Size([3, 20]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, hx, batched = self._prepare(input, hx)
        if hx is None:
            z = x.new_zeros(x.shape[0], self.hidden_size)
            hx = (z, z)
        gi = _lstm_input_projection(x, self.weight_ih, self.bias_ih, self.bias_hh)
        h, c, _ = _lstm_step(gi, hx[0], hx[1], self.weight_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU. Call it as ``cell(input, hx=None)``; it returns ``h'``.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn the biases. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - input: ``(N, H_in)`` or ``(H_in,)``.
        - hx: ``(N, H_out)`` or ``(H_out,)``; zeros when not given.
        - Output: ``h'``, the shape of ``hx``.

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> cell(flow.randn(3, 10)).shape
        monoflow.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, h, batched = self._prepare(input, hx)
        if h is None:
            h = x.new_zeros(x.shape[0], self.hidden_size)
        h = _gru_step(F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
