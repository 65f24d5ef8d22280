"""Variable-length sequences for the recurrent layers (torch.nn.utils.rnn):
PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence,
pack_sequence, unpad_sequence, unpack_sequence.

A PackedSequence holds the time steps of a batch sorted by decreasing
length, step after step: ``data`` is the concatenation over t of the
``batch_sizes[t]`` sequences still running at step t. ``sorted_indices``
maps the sorted order to the caller's batch order (None when the caller
passed them sorted) and ``unsorted_indices`` is its inverse.
"""
from collections import namedtuple

import numpy as np

from monoflow import _C, _creation
from monoflow._dtypes import int64
from monoflow.ops_shape import cat, stack

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence",
           "unpad_sequence", "unpack_sequence", "invert_permutation"]


def invert_permutation(permutation):
    """The inverse of a permutation: ``out[permutation[i]] = i``; ``None`` gives ``None``.

    Args:
        permutation (Tensor, optional): a 1-d int64 permutation of ``0 .. n-1``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> rnn_utils.invert_permutation(flow.tensor([2, 0, 1]))
        tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    inverse = _creation.empty(permutation.shape, dtype=int64, device=permutation.device)
    inverse.scatter_(0, permutation, _creation.arange(permutation.numel(), device=permutation.device))
    return inverse


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """A batch of variable-length sequences packed time step by time step, the input form of
    :class:`~monoflow.nn.RNN`, :class:`~monoflow.nn.LSTM` and :class:`~monoflow.nn.GRU` that skips the
    padding. Build it with :func:`pack_padded_sequence` or :func:`pack_sequence`, not by hand.

    Args:
        data (Tensor): the steps of all sequences, ``(sum of lengths, *)``, longest sequences first at
            each step.
        batch_sizes (Tensor, optional): how many sequences are still running at each time step.
        sorted_indices (Tensor, optional): the batch order the sequences were sorted into (by decreasing
            length). Default: ``None``.
        unsorted_indices (Tensor, optional): its inverse; computed from ``sorted_indices`` when not
            given. Default: ``None``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> packed = rnn_utils.pack_sequence([a, b])
        >>> packed.data, packed.batch_sizes
        (tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _apply(self, fn):
        return type(self)(fn(self.data), self.batch_sizes,
                          None if self.sorted_indices is None else fn(self.sorted_indices),
                          None if self.unsorted_indices is None else fn(self.unsorted_indices))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        return type(self)(data, self.batch_sizes,
                          None if self.sorted_indices is None else self.sorted_indices.to(device),
                          None if self.unsorted_indices is None else self.unsorted_indices.to(device))

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return type(self)(self.data.double(), *self[1:])

    def float(self):
        return type(self)(self.data.float(), *self[1:])

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    if isinstance(lengths, _C.TensorBase):
        return [int(v) for v in lengths.reshape(-1).tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch of sequences of the given lengths into a :class:`PackedSequence`.

    Args:
        input (Tensor): the padded batch, ``(T, B, *)`` or ``(B, T, *)`` with ``batch_first``.
        lengths (Tensor or list of int): the length of each sequence.
        batch_first (bool): the batch is dim 0 (``(B, T, *)``) instead of dim 1 (``(T, B, *)``).
            Default: ``False``.
        enforce_sorted (bool): require lengths in decreasing order (else ``RuntimeError``); ``False``
            sorts them and records the order in ``sorted_indices``. Default: ``True``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> x = flow.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 0.0]])
        >>> packed = rnn_utils.pack_padded_sequence(x.unsqueeze(-1), [3, 2], batch_first=True)
        >>> out, h = nn.RNN(1, 2)(packed)
        >>> packed.batch_sizes, type(out).__name__, h.shape
        (tensor([2, 2, 1]), 'PackedSequence', monoflow.Size([1, 2, 2]))
    """
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, as torch's sort
        sorted_indices = _creation.tensor(order, dtype=int64, device=input.device)
        lengths = [lengths[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    if len(lengths) != input.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={input.shape[1]})")
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lengths and lengths[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {input.shape[0]}, but got {lengths[0]}")
    steps = lengths[0] if lengths else 0
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(steps)]
    data = cat([input[t, :b] for t, b in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _creation.tensor(batch_sizes, dtype=int64), sorted_indices, None)


def _padded_sorted(sequence, padding_value, total_length):
    """(T, B, *) padded batch in the packed (sorted) order, and the lengths."""
    data = sequence.data
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    batch = batch_sizes[0] if batch_sizes else 0
    rows, offset = [], 0
    tail = tuple(data.shape[1:])
    for t in range(steps):
        b = batch_sizes[t] if t < len(batch_sizes) else 0
        chunk = data[offset:offset + b]
        offset += b
        if b < batch:
            fill = _creation.full((batch - b, *tail), padding_value, dtype=data.dtype, device=data.device)
            chunk = cat([chunk, fill], 0) if b else fill
        rows.append(chunk)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(batch)]
    return stack(rows, 0), lengths


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: the padded batch (in the caller's order) and the
    lengths.

    Args:
        sequence (PackedSequence): the packed batch.
        batch_first (bool): the batch is dim 0 (``(B, T, *)``) instead of dim 1 (``(T, B, *)``).
            Default: ``False``.
        padding_value (float): the value of the padding. Default: ``0.0``.
        total_length (int, optional): pad to this many steps (at least the longest length). Default:
            ``None`` (the longest).

    Returns:
        tuple: ``(padded Tensor, lengths as an int64 Tensor)``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> rnn_utils.pad_packed_sequence(rnn_utils.pack_sequence([a, b]), batch_first=True)
        (tensor([[1., 2., 3.],
                [4., 5., 0.]]), tensor([3, 2]))
    """
    padded, lengths = _padded_sorted(sequence, padding_value, total_length)
    lengths = _creation.tensor(lengths, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.to("cpu"))
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shapes ``(L_i, *)`` into one padded batch ``(max L, B, *)`` (``(B, max L, *)``
    with ``batch_first``).

    Args:
        sequences (list of Tensor or Tensor): the sequences (a tensor is split along dim 0).
        batch_first (bool): the batch is dim 0 (``(B, T, *)``) instead of dim 1 (``(T, B, *)``).
            Default: ``False``.
        padding_value (float): the value of the padding. Default: ``0.0``.
        padding_side (str): ``'right'`` or ``'left'``: where the padding goes. Default: ``'right'``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> rnn_utils.pad_sequence([a, b], batch_first=True)
        tensor([[1., 2., 3.],
                [4., 5., 0.]])
        >>> rnn_utils.pad_sequence([a, b], batch_first=True, padding_side='left')
        tensor([[1., 2., 3.],
                [0., 4., 5.]])
    """
    if isinstance(sequences, _C.TensorBase):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = _creation.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences of shapes ``(L_i, *)``: :func:`pad_sequence` then
    :func:`pack_padded_sequence`.

    Args:
        sequences (list of Tensor): the sequences.
        enforce_sorted (bool): require decreasing lengths; ``False`` sorts them. Default: ``True``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> rnn_utils.pack_sequence([b, a], enforce_sorted=False).sorted_indices
        tensor([1, 0])
    """
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Splits a padded batch back into the list of its sequences, each cut to its length.

    Args:
        padded_sequences (Tensor): the padded batch.
        lengths (Tensor or list of int): the length of each sequence.
        batch_first (bool): the batch is dim 0 (``(B, T, *)``) instead of dim 1 (``(T, B, *)``).
            Default: ``False``.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> padded = rnn_utils.pad_sequence([a, b])
        >>> rnn_utils.unpad_sequence(padded, [3, 2])
        [tensor([1., 2., 3.]), tensor([4., 5.])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths))]


def unpack_sequence(packed_sequences):
    """The list of sequences of a :class:`PackedSequence`, in the caller's order.

    Args:
        packed_sequences (PackedSequence): the packed batch.

    Example::

        >>> from monoflow.nn.utils import rnn as rnn_utils
        >>> a, b = flow.tensor([1.0, 2.0, 3.0]), flow.tensor([4.0, 5.0])
        >>> rnn_utils.unpack_sequence(rnn_utils.pack_sequence([a, b]))
        [tensor([1., 2., 3.]), tensor([4., 5.])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def _step_masks(batch_sizes, batch, device):
    """Per time step, a (B, 1) bool tensor: which (sorted) sequences are still running."""
    rows = np.arange(batch)[:, None]
    return [_creation.tensor(rows < b, device=device) for b in batch_sizes]
