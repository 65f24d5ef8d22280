"""Samplers: the order in which a DataLoader visits a map-style dataset.

Random orders come from monoflow's generators (the default one, which
``monoflow.manual_seed`` resets, or an explicit ``generator=``), so shuffling
is reproducible the same way every other random op is."""
import typing

import numpy as np

from monoflow._tensor import Tensor
from monoflow.ops_random import randint
from monoflow.utils.data.dataset import _T_co

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


def _numpy_rng(generator):
    # monoflow has no randperm/multinomial op yet: draw 124 bits from the
    # monoflow generator and let numpy's PCG64 expand them. Consuming the
    # monoflow generator keeps manual_seed and generator= semantics intact.
    words = randint(0, 2**62, (2,), generator=generator).tolist()
    return np.random.Generator(np.random.PCG64(words))


def _randperm(n, generator=None):
    """A uniformly random permutation of range(n), as a list of ints."""
    return _numpy_rng(generator).permutation(n).tolist()


class Sampler(typing.Generic[_T_co]):  # Sampler[int] in annotations and bases, as torch's
    """Base class of samplers, the iterables of dataset indices a DataLoader visits.

    A subclass implements ``__iter__`` (yielding indices, or lists of indices for
    a batch sampler) and, where the length is known, ``__len__``.

    Args:
        data_source (Dataset, optional): accepted for compatibility and ignored
            (torch deprecates it). Default: ``None``.

    Example::

        >>> class Reversed(flow.utils.data.Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(self.n - 1, -1, -1))
        ...     def __len__(self):
        ...         return self.n
        >>> ds = flow.utils.data.TensorDataset(flow.tensor([10, 11, 12]))
        >>> [x for (x,) in flow.utils.data.DataLoader(ds, batch_size=2, sampler=Reversed(3))]
        [tensor([12, 11]), tensor([10])]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler):
    """Yields the indices ``0, 1, ..., len(data_source) - 1`` in order (the default of a DataLoader).

    Args:
        data_source (Dataset): the dataset (only its length is used).

    Example::

        >>> list(flow.utils.data.SequentialSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yields the dataset's indices in a random order (what ``shuffle=True`` uses).

    Without replacement, a ``num_samples`` larger than the dataset chains
    several permutations; with ``replacement=True`` the indices are
    ``num_samples`` independent uniform draws.

    Args:
        data_source (Dataset): the dataset (only its length is used).
        replacement (bool): draw with replacement. Default: ``False``.
        num_samples (int, optional): how many indices to yield. Default: ``len(data_source)``.
        generator (Generator, optional): the source of randomness. Default: the
            default generator, so ``monoflow.manual_seed`` makes the order reproducible.

    Example::

        >>> sampler = flow.utils.data.RandomSampler(range(5))
        >>> sorted(sampler)
        [0, 1, 2, 3, 4]
        >>> len(flow.utils.data.RandomSampler(range(5), replacement=True, num_samples=8))
        8
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement should be a boolean value, but got "
                            f"replacement={replacement!r}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples!r}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.replacement:
            # In chunks, so that a partially consumed epoch draws little.
            left = self.num_samples
            while left > 0:
                k = min(left, 32)
                yield from randint(0, n, (k,), generator=self.generator).tolist()
                left -= k
            return
        for _ in range(self.num_samples // n):
            yield from _randperm(n, self.generator)
        if self.num_samples % n:
            yield from _randperm(n, self.generator)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """Yields the given indices in a random order (a new one each epoch).

    Args:
        indices (sequence): the indices to visit.
        generator (Generator, optional): the source of randomness. Default: the
            default generator.

    Example::

        >>> sorted(flow.utils.data.SubsetRandomSampler([3, 5, 7]))
        [3, 5, 7]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _randperm(len(self.indices), self.generator):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Yields ``num_samples`` indices drawn with probabilities proportional to ``weights``.

    Args:
        weights (sequence or Tensor): 1-D, finite, non-negative weights, not all zero.
        num_samples (int): how many indices to draw, positive.
        replacement (bool): draw with replacement; without it, ``num_samples`` may not
            exceed the number of non-zero weights (``RuntimeError``). Default: ``True``.
        generator (Generator, optional): the source of randomness. Default: the
            default generator.

    Example::

        >>> list(flow.utils.data.WeightedRandomSampler([0.0, 1.0, 0.0], num_samples=4))
        [1, 1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a boolean value, but got "
                             f"replacement={replacement!r}")
        w = np.asarray(weights.double().numpy() if isinstance(weights, Tensor) else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"WeightedRandomSampler: weights should be a 1-d sequence, but given weights have "
                             f"shape {w.shape}")
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be finite, non-negative and not all zero")
        if not replacement and num_samples > np.count_nonzero(w):
            raise RuntimeError("WeightedRandomSampler: cannot draw more samples than there are non-zero weights "
                               "without replacement")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rng = _numpy_rng(self.generator)
        yield from rng.choice(len(self.weights), self.num_samples, self.replacement,
                              self.weights / self.weights.sum()).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` indices.

    Args:
        sampler (Sampler or iterable): the indices to group.
        batch_size (int): the size of a batch, positive.
        drop_last (bool): drop the last, shorter batch instead of yielding it.

    Example::

        >>> sampler = flow.utils.data.SequentialSampler(range(5))
        >>> list(flow.utils.data.BatchSampler(sampler, batch_size=2, drop_last=False))
        [[0, 1], [2, 3], [4]]
        >>> list(flow.utils.data.BatchSampler(sampler, batch_size=2, drop_last=True))
        [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"BatchSampler: batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size!r}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"BatchSampler: drop_last should be a boolean value, but got drop_last={drop_last!r}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
