"""CosineSimilarity and PairwiseDistance layers."""
from monoflow.nn import functional as F
from monoflow.nn.module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """The cosine similarity of two inputs along ``dim``: ``x1 . x2 / (max(||x1||, eps) * max(||x2||,
    eps))``.

    Args:
        dim (int): the dim of the vectors. Default: ``1``.
        eps (float): the lower bound of each norm. Default: ``1e-8``.

    Shape:
        - Input1: ``(*, D, *)``; Input2: broadcastable to Input1.
        - Output: the broadcast shape without ``dim``.

    Example::

        >>> m = nn.CosineSimilarity(dim=1)
        >>> m(flow.tensor([[1.0, 0.0], [1.0, 1.0]]), flow.tensor([[1.0, 0.0], [-1.0, -1.0]]))
        tensor([ 1.0000, -1.0000])
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm distance ``||x1 - x2 + eps||_p`` between the rows of two inputs (over the last dim).

    Args:
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the difference, to avoid division by zero. Default: ``1e-6``.
        keepdim (bool): keep the last dim with size 1. Default: ``False``.

    Shape:
        - Input1, Input2: ``(N, D)`` or ``(D,)``, broadcastable.
        - Output: ``(N,)`` (``(N, 1)`` with ``keepdim``).

    Example::

        >>> nn.PairwiseDistance()(flow.tensor([[0.0, 0.0]]), flow.tensor([[3.0, 4.0]]))
        tensor([5.0000])
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
