"""nn.CTCLoss: the module face of F.ctc_loss."""
from monoflow.nn.functional.ctc_loss import ctc_loss
from monoflow.nn.module import Module

__all__ = ["CTCLoss"]


class CTCLoss(Module):
    """The Connectionist Temporal Classification loss (see :func:`monoflow.nn.functional.ctc_loss`).

    Args:
        blank (int): the blank label. Default: ``0``.
        reduction (str): ``'none'``, ``'mean'`` or ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): make infinite losses and their gradients 0. Default: ``False``.

    Example::

        >>> lp = flow.randn(6, 2, 4).log_softmax(2)
        >>> nn.CTCLoss()(lp, flow.tensor([[1, 2], [3, 3]]), (6, 5), (2, 2)).shape
        monoflow.Size([])
    """

    __module__ = "monoflow.nn"

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = blank
        self.reduction = reduction
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                        self.zero_infinity)
