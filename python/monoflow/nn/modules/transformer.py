"""Transformer, its encoder and decoder stacks and their layers (torch's
parameter names and forward signatures, so state dicts and call sites move
between the two frameworks)."""
import copy

from monoflow import _creation
from monoflow.nn import functional as F
from monoflow.nn import init
from monoflow.nn.module import Module
from monoflow.nn.modules.attention import MultiheadAttention
from monoflow.nn.modules.container import ModuleList
from monoflow.nn.modules.dropout import Dropout
from monoflow.nn.modules.linear import Linear
from monoflow.nn.modules.normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder"]


def _activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        # The default (F.relu) was bound when this file ran, before the global layer wrapped the
        # functional names; hand out the name's current function, the one a pickle of the layer
        # (torch.save(model)) can refer to by name.
        current = getattr(F, getattr(activation, "__name__", ""), None)
        return current if getattr(current, "__wrapped_local__", None) is activation else activation
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_activation_fn(activation):
    """torch's private helper that custom transformer layers import: 'relu' or 'gelu' -> the function."""
    if not isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _activation_fn(activation)


class TransformerEncoderLayer(Module):
    """A Transformer encoder layer: self-attention, then a feed-forward block, each with a residual
    connection and a LayerNorm.

    Call it as ``layer(src, src_mask=None, src_key_padding_mask=None, is_causal=False)``; the masks are
    those of :class:`MultiheadAttention`.

    Args:
        d_model (int): the model (embedding) size ``E``.
        nhead (int): the number of attention heads; must divide ``d_model``.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: ``2048``.
        dropout (float): the dropout probability (attention weights, feed-forward, residuals). Default:
            ``0.1``.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a unary callable for the feed-forward
            block. Default: ``F.relu``.
        layer_norm_eps (float): the eps of the LayerNorms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are ``(N, S, E)`` instead of ``(S, N, E)``. Default:
            ``False``.
        norm_first (bool): apply each LayerNorm before its block (pre-norm) instead of after the
            residual sum. Default: ``False``.
        bias (bool): learn biases in the linear layers and LayerNorms. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - src: ``(S, N, E)``, ``(N, S, E)`` with ``batch_first``, or unbatched ``(S, E)``.
        - Output: the shape of ``src``.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, batch_first=True)
        >>> layer(flow.randn(2, 5, 16)).shape
        monoflow.Size([2, 5, 16])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """A stack of ``num_layers`` copies of an encoder layer, then an optional norm.

    Call it as ``encoder(src, mask=None, src_key_padding_mask=None, is_causal=None)``.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy (deep copies: the layers do not share
            parameters).
        num_layers (int): the number of layers.
        norm (Module, optional): a final normalisation (e.g. LayerNorm). Default: ``None``.
        enable_nested_tensor (bool): accepted for torch compatibility; monoflow has no nested tensors,
            so it has no effect. Default: ``True``.
        mask_check (bool): accepted for torch compatibility; no effect. Default: ``True``.

    Shape:
        - src: ``(S, N, E)``, ``(N, S, E)`` with ``batch_first``, or unbatched ``(S, E)``.
        - Output: the shape of ``src``.

    Example::

        >>> layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32)
        >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(flow.randn(5, 2, 16)).shape
        monoflow.Size([5, 2, 16])
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoderLayer(Module):
    """A Transformer decoder layer: self-attention over the target, attention over the encoder's output
    (memory), then a feed-forward block, each with a residual connection and a LayerNorm.

    Call it as ``layer(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False)``.

    Args:
        d_model (int): the model (embedding) size ``E``.
        nhead (int): the number of attention heads; must divide ``d_model``.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: ``2048``.
        dropout (float): the dropout probability (attention weights, feed-forward, residuals). Default:
            ``0.1``.
        activation (str or callable): ``'relu'``, ``'gelu'`` or a unary callable for the feed-forward
            block. Default: ``F.relu``.
        layer_norm_eps (float): the eps of the LayerNorms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are ``(N, S, E)`` instead of ``(S, N, E)``. Default:
            ``False``.
        norm_first (bool): apply each LayerNorm before its block (pre-norm) instead of after the
            residual sum. Default: ``False``.
        bias (bool): learn biases in the linear layers and LayerNorms. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - tgt: ``(T, N, E)`` (``(N, T, E)`` with ``batch_first``).
        - memory: ``(S, N, E)`` (``(N, S, E)`` with ``batch_first``).
        - Output: the shape of ``tgt``.

    Example::

        >>> layer = nn.TransformerDecoderLayer(16, 4, dim_feedforward=32)
        >>> layer(flow.randn(3, 2, 16), flow.randn(5, 2, 16)).shape
        monoflow.Size([3, 2, 16])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation_fn(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=bool(is_causal))[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False, is_causal=bool(is_causal))[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """A stack of ``num_layers`` copies of a decoder layer, then an optional norm.

    Call it as ``decoder(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False)``.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy (deep copies).
        num_layers (int): the number of layers.
        norm (Module, optional): a final normalisation. Default: ``None``.

    Shape:
        - tgt: ``(T, N, E)``; memory: ``(S, N, E)`` (batch first with the layers' ``batch_first``).
        - Output: the shape of ``tgt``.

    Example::

        >>> decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, dim_feedforward=32), num_layers=2)
        >>> decoder(flow.randn(3, 2, 16), flow.randn(5, 2, 16)).shape
        monoflow.Size([3, 2, 16])
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    """The encoder-decoder Transformer (Vaswani et al.) with torch's layout: an encoder stack over ``src``
    and a decoder stack over ``tgt`` that attends to the encoder's output.

    Call it as ``model(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None, ...)``;
    :meth:`generate_square_subsequent_mask` builds the causal ``tgt_mask``. The parameters with more
    than one dim start Xavier-uniform.

    Args:
        d_model (int): the model size ``E``. Default: ``512``.
        nhead (int): the number of heads. Default: ``8``.
        num_encoder_layers (int): the encoder depth. Default: ``6``.
        num_decoder_layers (int): the decoder depth. Default: ``6``.
        dim_feedforward (int): the feed-forward hidden size. Default: ``2048``.
        dropout (float): the dropout probability. Default: ``0.1``.
        activation (str or callable): the feed-forward activation. Default: ``F.relu``.
        custom_encoder (Module, optional): an encoder to use instead of the default stack. Default:
            ``None``.
        custom_decoder (Module, optional): a decoder to use instead of the default stack. Default:
            ``None``.
        layer_norm_eps (float): the eps of the LayerNorms. Default: ``1e-5``.
        batch_first (bool): inputs and outputs are batch first. Default: ``False``.
        norm_first (bool): pre-norm layers. Default: ``False``.
        bias (bool): learn biases in linear layers and LayerNorms. Default: ``True``.
        device (optional): the device of the parameters. Default: the default device.
        dtype (optional): the dtype of the parameters. Default: the default floating dtype.

    Shape:
        - src: ``(S, N, E)``; tgt: ``(T, N, E)`` (batch first with ``batch_first``).
        - Output: ``(T, N, E)``.

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32)
        >>> mask = nn.Transformer.generate_square_subsequent_mask(3)
        >>> model(flow.randn(5, 2, 16), flow.randn(3, 2, 16), tgt_mask=mask).shape
        monoflow.Size([3, 2, 16])
        >>> mask
        tensor([[0., -inf, -inf],
                [0., 0., -inf],
                [0., 0., 0.]])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **kw)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **kw)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """An (sz, sz) float mask: -inf above the diagonal, 0 elsewhere."""
        from monoflow._dtypes import float32

        full = _creation.full((sz, sz), float("-inf"), dtype=dtype or float32, device=device)
        return full.triu(1)
