"""OneFlow's nn.CoinFlip: a data-pipeline module that draws a batch of 0/1 flags."""
from monoflow import _C, _creation, ops_random
from monoflow._dtypes import float32, int8
from monoflow.nn.module import Module

__all__ = ["CoinFlip"]


class CoinFlip(Module):
    """Draws ``batch_size`` independent coin flips: an int8 tensor of 1 (probability ``probability``) or 0.

    OneFlow's data-pipeline module (used, e.g., to decide per image whether to
    mirror it). Each call of the module draws a new batch.

    Args:
        batch_size (int): the number of flips, the length of the result. Default: ``1``.
        random_seed (int, optional): seeds the module's own generator, so two
            modules with the same seed draw the same sequence; ``None`` draws a
            seed from the default generator. Default: ``None``.
        probability (float): the probability of a 1, in ``[0, 1]``. Default: ``0.5``.
        device (flow.device or str, optional): the result's device. Default: cpu.
        placement (flow.placement, optional): make the result global on this
            placement (give ``sbp`` too; not with ``device``). Default: ``None``.
        sbp (flow.sbp.sbp or sequence, optional): the result's sbp, one per
            placement dimension. Default: ``None``.

    Example::

        >>> m = nn.CoinFlip(batch_size=4, random_seed=1, probability=1.0)
        >>> m()
        tensor([1, 1, 1, 1], dtype=monoflow.int8)
        >>> nn.CoinFlip(3, probability=0.0)().tolist()
        [0, 0, 0]
    """

    def __init__(self, batch_size=1, random_seed=None, probability=0.5, device=None, placement=None, sbp=None):
        super().__init__()
        if not 0.0 <= float(probability) <= 1.0:
            raise ValueError(f"CoinFlip: probability must be in [0, 1], got {probability}")
        if placement is not None and device is not None:
            raise ValueError("CoinFlip: give device or placement, not both")
        if placement is None and sbp is not None:
            raise ValueError("CoinFlip: sbp needs a placement")
        self.batch_size = int(batch_size)
        self.probability = float(probability)
        self.placement = placement
        self.sbp = sbp
        self.device = _C.device("cpu" if device is None else device)
        self._generator = _C.Generator()
        if random_seed is None:
            self._generator.seed()
        else:
            self._generator.manual_seed(int(random_seed))

    def forward(self):
        p = _creation.full((self.batch_size,), self.probability, dtype=float32)
        res = ops_random.bernoulli(p, generator=self._generator, dtype=int8)
        if self.placement is not None:
            return res.to_global(placement=self.placement, sbp=self.sbp)
        return res.to(self.device)

    def extra_repr(self):
        return f"batch_size={self.batch_size}, probability={self.probability}"
