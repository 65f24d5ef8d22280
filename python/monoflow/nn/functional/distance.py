"""cosine_similarity, pairwise_distance and pdist (torch.nn.functional's)."""
from monoflow import _C

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine similarity along ``dim``: ``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))``; the
    inputs broadcast. See :class:`~monoflow.nn.CosineSimilarity`.

    Args:
        x1 (Tensor): the first input.
        x2 (Tensor): the second input, broadcastable with ``x1``.
        dim (int): the dim of the vectors. Default: ``1``.
        eps (float): the lower bound of each norm. Default: ``1e-8``.

    Example::

        >>> F.cosine_similarity(flow.tensor([[1.0, 0.0]]), flow.tensor([[1.0, 1.0]]))
        tensor([0.7071])
    """
    _C.check_tensor(x2, "cosine_similarity", "x2", 2)
    _C.check_tensor(x1, "cosine_similarity", "x1", 1)
    common = _C.result_type(x1, x2)
    if not (common.is_floating_point or common.is_complex):  # (PyTorch's and OneFlow's check)
        raise RuntimeError(f"cosine_similarity(): expected common dtype to be floating point, yet common dtype is "
                           f"{common}")
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """p-norm distance ``||x1 - x2 + eps||_p`` over the last dim. See
    :class:`~monoflow.nn.PairwiseDistance`.

    Args:
        x1 (Tensor): ``(N, D)`` or ``(D,)``.
        x2 (Tensor): broadcastable with ``x1``.
        p (float): the norm degree. Default: ``2.0``.
        eps (float): added to the difference. Default: ``1e-6``.
        keepdim (bool): keep the reduced dim. Default: ``False``.

    Example::

        >>> F.pairwise_distance(flow.tensor([[0.0, 0.0]]), flow.tensor([[3.0, 4.0]]), p=1.0)
        tensor([7.0000])
    """
    _C.check_tensor(x1, "pairwise_distance", "x1", 1)
    _C.check_tensor(x2, "pairwise_distance", "x2", 2)
    p = _C.check_float(p, "pairwise_distance", "p", 3)
    _C.check_float(eps, "pairwise_distance", "eps", 4)
    d = x1 - x2 + eps
    return d.norm(p, -1, keepdim=keepdim) if d.dim() else d.abs()


def pdist(input, p=2):
    """The p-norm distances between every pair of rows of an ``(N, M)`` input: the upper triangle of the
    distance matrix, row by row (``N * (N - 1) / 2`` values).

    Args:
        input (Tensor): ``(N, M)``.
        p (float): the norm degree. Default: ``2``.

    Example::

        >>> F.pdist(flow.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    _C.check_tensor(input, "pdist", "input", 1)
    p = _C.check_float(p, "pdist", "p", 2)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    from monoflow._creation import tensor

    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    if not rows:
        return input.new_zeros((0,))
    a = input.index_select(0, tensor(rows, device=input.device))
    b = input.index_select(0, tensor(cols, device=input.device))
    return (a - b).norm(p, -1)
