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
    if permutation is None:
        return None
    inverse = _creation.empty(permutation.shape, dtype=int64, device=permutation.device)
    inverse.scatter_(0, permutation, _creation.arange(permutation.numel(), device=permutation.device))
    return inverse


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """What pack_padded_sequence returns; the recurrent layers take it as input."""

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
    """Packs a padded (T, B, *) batch (B, T, * with batch_first) of the given lengths."""
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
    """Inverse of pack_padded_sequence: (padded batch in the caller's order, lengths as an int64 tensor)."""
    padded, lengths = _padded_sorted(sequence, padding_value, total_length)
    lengths = _creation.tensor(lengths, dtype=int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices.to("cpu"))
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks tensors of shapes (L_i, *) into (max L, B, *) (B first with batch_first), padded."""
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
    """Packs a list of (L_i, *) tensors."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of unpadded sequences of a padded batch."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths_list(lengths))]


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def _step_masks(batch_sizes, batch, device):
    """Per time step, a (B, 1) bool tensor: which (sorted) sequences are still running."""
    rows = np.arange(batch)[:, None]
    return [_creation.tensor(rows < b, device=device) for b in batch_sizes]
