"""cosine_similarity, pairwise_distance and pdist (torch.nn.functional's)."""
from monoflow import _C

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along dim
    (the inputs broadcast)."""
    _C.check_tensor(x1, "cosine_similarity", "x1", 1)
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    _C.check_tensor(x1, "pairwise_distance", "x1", 1)
    d = x1 - x2 + eps
    return d.norm(p, -1, keepdim=keepdim) if d.dim() else d.abs()


def pdist(input, p=2):
    """The p-norm distances between the rows of an (N, M) input: the upper
    triangle of the distance matrix, row by row (N * (N - 1) / 2 values)."""
    _C.check_tensor(input, "pdist", "input", 1)
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
