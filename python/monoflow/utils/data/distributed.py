"""DistributedSampler: each rank of a data-parallel job visits its own share
of the dataset (torch.utils.data.distributed.DistributedSampler).

The epoch's order (a permutation drawn from seed + epoch, so every rank draws
the same one, or range(n) without shuffle) is padded by wrapping around to a
multiple of the number of replicas (or cut to one with ``drop_last``), and
rank r takes positions r, r + R, r + 2R, ... as torch does."""
import math

from monoflow._C import Generator
from monoflow.utils.data.sampler import Sampler, _randperm

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Yields the share of the dataset's indices that one rank of a data-parallel job visits.

    Every rank draws the same epoch order (a permutation seeded with
    ``seed + epoch``, or ``range(n)`` without shuffling), padded by wrapping
    around to a multiple of ``num_replicas`` (or cut to one with ``drop_last``);
    rank ``r`` takes positions ``r, r + R, r + 2R, ...``. Call ``set_epoch(epoch)``
    before each epoch so that shuffling changes between epochs.

    Args:
        dataset (Dataset): the dataset (only its length is used).
        num_replicas (int, optional): number of ranks. Default: ``flow.env.get_world_size()``
            (the default process group's size, else the launcher's ``WORLD_SIZE``, else 1), as OneFlow.
        rank (int, optional): this rank, in ``[0, num_replicas)``. Default: ``flow.env.get_rank()``
            (else the launcher's ``RANK``, else 0).
        shuffle (bool): shuffle the indices. Default: ``True``.
        seed (int): the seed of the shuffle, the same on every rank. Default: ``0``.
        drop_last (bool): drop the tail so that every rank gets the same number of
            distinct samples, instead of padding with repeated ones. Default: ``False``.

    Example::

        >>> from monoflow.utils.data import DistributedSampler
        >>> list(DistributedSampler(range(5), num_replicas=2, rank=0, shuffle=False))
        [0, 2, 4]
        >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
        [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            # OneFlow's defaults: the job's size and rank even before communication is initialized
            # (a process the launcher started answers from its environment, a plain one is rank 0 of 1);
            # torch raises there instead.
            from monoflow import env

            num_replicas = env.get_world_size() if num_replicas is None else num_replicas
            rank = env.get_rank() if rank is None else rank
        if num_replicas <= 0:
            raise ValueError(f"DistributedSampler: num_replicas must be positive, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)  # the largest even share
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _order(self):
        """The epoch's padded (or cut) order, shared by all ranks."""
        n = len(self.dataset)
        if self.shuffle:
            indices = _randperm(n, Generator().manual_seed(self.seed + self.epoch))
        else:
            indices = list(range(n))
        if self.drop_last:
            return indices[:self.total_size]
        pad = self.total_size - n
        if pad > 0:
            indices += (indices * math.ceil(pad / n))[:pad]
        return indices

    def __iter__(self):
        own = self._order()[self.rank:self.total_size:self.num_replicas]
        assert len(own) == self.num_samples
        return iter(own)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Call before each epoch so that shuffling differs between epochs
        (yet agrees across ranks)."""
        self.epoch = epoch
