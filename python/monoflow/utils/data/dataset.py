"""Datasets: map-style (``dataset[i]``) and iterable (``iter(dataset)``), and
the ways to combine and split them."""
import bisect
import math
import operator
import typing
import warnings

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split"]

_T_co = typing.TypeVar("_T_co", covariant=True)


class Dataset(typing.Generic[_T_co]):  # Dataset[T] in annotations and subclass bases, as torch's
    """Base class of map-style datasets, whose samples are read by index: ``dataset[i]``.

    A subclass implements ``__getitem__`` and usually ``__len__`` (the default
    samplers need it); it may add ``__getitems__(indices)`` to fetch a whole batch
    at once, which the DataLoader then uses. ``a + b`` concatenates two datasets
    (a :class:`ConcatDataset`).

    Example::

        >>> class Squares(flow.utils.data.Dataset):
        ...     def __len__(self):
        ...         return 5
        ...     def __getitem__(self, i):
        ...         return i * i
        >>> list(flow.utils.data.DataLoader(Squares(), batch_size=2))
        [tensor([0, 1]), tensor([4, 9]), tensor([16])]
        >>> (Squares() + Squares())[6]
        1
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[_T_co]):
    """Base class of iterable datasets: a stream of samples read with ``iter(dataset)``.

    A subclass implements ``__iter__``. With ``num_workers > 0`` every worker
    iterates its own copy, so ``__iter__`` should shard the stream with
    :func:`get_worker_info` to avoid duplicates. A DataLoader over an iterable
    dataset takes no ``shuffle``, ``sampler`` or ``batch_sampler``. ``a + b``
    chains two of them (a :class:`ChainDataset`).

    Example::

        >>> class Count(flow.utils.data.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         info = flow.utils.data.get_worker_info()
        ...         start, step = (0, 1) if info is None else (info.id, info.num_workers)
        ...         return iter(range(start, self.n, step))
        >>> list(flow.utils.data.DataLoader(Count(5), batch_size=2))
        [tensor([0, 1]), tensor([2, 3]), tensor([4])]
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """A dataset of tensors indexed along their first dimension: sample ``i`` is ``tuple(t[i] for t in tensors)``.

    Args:
        *tensors (Tensor): tensors of the same size in dimension 0; ``ValueError``
            otherwise, or when none is given.

    Example::

        >>> ds = flow.utils.data.TensorDataset(flow.arange(6).float(), flow.tensor([0, 1, 0, 1, 0, 1]))
        >>> len(ds), ds[1]
        (6, (tensor(1.), tensor(1)))
        >>> for x, y in flow.utils.data.DataLoader(ds, batch_size=4):
        ...     print(x, y)
        tensor([0., 1., 2., 3.]) tensor([0, 1, 0, 1])
        tensor([4., 5.]) tensor([0, 1])
    """

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


class StackDataset(Dataset):
    """Datasets of one length side by side: item ``i`` is the tuple (positional datasets) or the dict (keyword
    datasets) of their items ``i``.

    Example::

        >>> images = flow.utils.data.TensorDataset(flow.tensor([1, 2]))
        >>> both = flow.utils.data.StackDataset(image=images, label=[7, 8])
        >>> len(both), both[1]
        (2, {'image': (tensor(2),), 'label': 8})
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                             "but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        datasets = args if args else list(kwargs.values())
        self._length = len(datasets[0])
        if any(self._length != len(d) for d in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another, as one dataset.

    Args:
        datasets (iterable): the map-style datasets, at least one
            (an :class:`IterableDataset` raises ``TypeError``: use :class:`ChainDataset`).

    Example::

        >>> a = flow.utils.data.TensorDataset(flow.tensor([1, 2]))
        >>> b = flow.utils.data.TensorDataset(flow.tensor([3, 4, 5]))
        >>> both = flow.utils.data.ConcatDataset([a, b])
        >>> len(both), both[2], both.cumulative_sizes
        (5, (tensor(3),), [2, 5])
    """

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
    """Iterable datasets one after another, as one stream (the chaining is lazy).

    Args:
        datasets (iterable): the :class:`IterableDataset` objects to chain.

    Example::

        >>> class Count(flow.utils.data.IterableDataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n))
        >>> list(flow.utils.data.ChainDataset([Count(2), Count(3)]))
        [0, 1, 0, 1, 2]
    """

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
    """The samples of ``dataset`` at ``indices``, in that order, as a dataset.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): the indices of the samples to keep.

    Example::

        >>> ds = flow.utils.data.TensorDataset(flow.tensor([10, 11, 12, 13]))
        >>> sub = flow.utils.data.Subset(ds, [3, 0])
        >>> len(sub), sub[0]
        (2, (tensor(13),))
    """

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
    """Splits ``dataset`` into non-overlapping random :class:`Subset` objects of the given lengths.

    Fractions are rounded down, then the remainder goes one by one to the
    splits from the first, as torch does (an empty split warns).

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence): ints summing to ``len(dataset)``, or fractions summing to 1;
            ``ValueError`` otherwise.
        generator (Generator, optional): the source of the permutation. Default: the
            default generator, so ``monoflow.manual_seed`` makes the split reproducible.

    Returns:
        list of Subset: one per length.

    Example::

        >>> train, val = flow.utils.data.random_split(range(10), [0.8, 0.2])
        >>> len(train), len(val)
        (8, 2)
        >>> sorted(list(train) + list(val)) == list(range(10))
        True
    """
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
