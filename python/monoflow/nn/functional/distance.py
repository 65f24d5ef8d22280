"""cosine_similarity and pairwise_distance (torch.nn.functional's)."""
__all__ = ["cosine_similarity", "pairwise_distance"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along dim
    (the inputs broadcast)."""
    n1 = x1.norm(2, dim, keepdim=True).clamp_min(eps)
    n2 = x2.norm(2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim."""
    d = x1 - x2 + eps
    return d.norm(p, -1, keepdim=keepdim) if d.dim() else d.abs()
