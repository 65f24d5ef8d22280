"""OneFlow's nn.CombinedMarginLoss: the ArcFace / CosFace / SphereFace margins on the target logit."""
from monoflow.nn.module import Module

__all__ = ["CombinedMarginLoss"]


class CombinedMarginLoss(Module):
    """Applies the combined angular margin to the target-class logits (OneFlow's
    ``nn.CombinedMarginLoss``), as in InsightFace: for each row ``i`` with label ``y``,
    ``x[i, y] = cos(m1 * arccos(x[i, y]) + m2) - m3``; the other logits are unchanged.

    With ``m1 == 1`` and ``m2 == 0`` it is the additive cosine margin ``x[i, y] - m3``
    (differentiable everywhere); with all defaults the input passes through. The inputs are
    cosines, in ``[-1, 1]``.

    Args:
        m1 (float): the multiplicative angular margin (SphereFace). Default: ``1.0``.
        m2 (float): the additive angular margin (ArcFace). Default: ``0.0``.
        m3 (float): the additive cosine margin (CosFace). Default: ``0.0``.

    Shape:
        - Input: ``x`` of shape ``(N, C)`` and integer ``label`` of shape ``(N,)``.
        - Output: ``(N, C)``.

    Example::

        >>> m = nn.CombinedMarginLoss(m3=0.4)
        >>> m(flow.tensor([[0.5, 0.2], [0.1, 0.9]]), flow.tensor([0, 1]))
        tensor([[0.1000, 0.2000],
                [0.1000, 0.5000]])
    """

    def __init__(self, m1=1.0, m2=0.0, m3=0.0):
        super().__init__()
        self.m1, self.m2, self.m3 = float(m1), float(m2), float(m3)

    def forward(self, x, label):
        from monoflow import _dtypes
        from monoflow.nn import functional as F

        if x.dim() != 2 or label.dim() != 1 or label.shape[0] != x.shape[0]:
            raise RuntimeError(f"CombinedMarginLoss: expected x of shape (N, C) and label of shape (N,), got "
                               f"{list(x.shape)} and {list(label.shape)}")
        if self.m1 == 1.0 and self.m2 == 0.0 and self.m3 == 0.0:
            return x
        one_hot = F.one_hot(label.to(_dtypes.int64), x.shape[1]).to(x.dtype)
        if self.m1 == 1.0 and self.m2 == 0.0:
            return x - one_hot * self.m3
        zy = x.gather(1, label.to(_dtypes.int64).unsqueeze(1))
        t = zy.acos() * self.m1 + self.m2
        new_zy = t.cos() - self.m3
        return x + one_hot * (new_zy - zy)

    def extra_repr(self):
        return f"m1={self.m1}, m2={self.m2}, m3={self.m3}"
