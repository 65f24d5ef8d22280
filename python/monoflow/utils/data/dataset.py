"""Datasets: map-style (``dataset[i]``) and iterable (``iter(dataset)``), and
the ways to combine and split them."""
import bisect
import math
import operator
import warnings

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]


class Dataset:
    """A map-style dataset: subclasses implement ``__getitem__`` (and usually
    ``__len__``, which samplers need). ``a + b`` concatenates."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses implement ``__iter__``. With
    ``num_workers > 0`` every worker iterates its own copy, so ``__iter__``
    should shard with ``monoflow.utils.data.get_worker_info()`` to avoid
    duplicates."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all tensors share their first dimension."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        n = tensors[0].shape[0] if tensors[0].dim() else None
        if any(t.dim() == 0 or t.shape[0] != n for t in tensors):
            sizes = [tuple(t.shape) for t in tensors]
            raise ValueError(f"TensorDataset: size mismatch between tensors (shapes {sizes}); all must "
                             "have the same size in dimension 0")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """Map-style datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset; use ChainDataset")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("ConcatDataset: absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} out of range for length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        # Batched fetch (used by DataLoader) when the wrapped dataset has one.
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


def _split_lengths(n, lengths):
    """Integer lengths. Lengths summing to 1 are fractions, as in torch: each
    split gets floor(n * fraction), then the remainder goes one by one
    round-robin from the first split."""
    lengths = list(lengths)
    if not (math.isclose(sum(lengths), 1) and sum(lengths) <= 1):
        return [operator.index(x) for x in lengths]
    out = []
    for i, frac in enumerate(lengths):
        if not 0 <= frac <= 1:
            raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1")
        out.append(int(math.floor(n * frac)))
    for i in range(n - sum(out)):
        out[i % len(out)] += 1
    for i, length in enumerate(out):
        if length == 0:
            warnings.warn(f"random_split: length of split at index {i} is 0; this split will be empty",
                          stacklevel=3)
    return out


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping random ``Subset``s of the given
    lengths (ints summing to ``len(dataset)``, or fractions summing to 1).
    The permutation comes from ``generator`` (default: monoflow's default
    generator, so ``monoflow.manual_seed`` makes it reproducible)."""
    from monoflow.utils.data.sampler import _randperm

    n = len(dataset)
    lengths = _split_lengths(n, lengths)
    if sum(lengths) != n:
        raise ValueError("random_split: sum of input lengths does not equal the length of the input dataset")
    perm = _randperm(n, generator)
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
