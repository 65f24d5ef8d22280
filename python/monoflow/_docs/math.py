"""Pointwise math: arithmetic, powers and logs, trigonometry, rounding, activations on tensors."""
from monoflow._docs import add_doc, add_inplace_docs  # noqa: F401

add_doc("add", "add(input, other, *, alpha=1) -> Tensor", r"""
    Adds ``other``, scaled by ``alpha``, to ``input``, element-wise.

    .. math:: \text{out}_i = \text{input}_i + \text{alpha} \times \text{other}_i

    The shapes of ``input`` and ``other`` broadcast; the result's dtype is
    their promoted dtype (see :func:`monoflow.result_type`).

    Args:
        input (Tensor): the tensor to add to.
        other (Tensor or Number): the tensor or number to add.
        alpha (Number): the multiplier of ``other``. Default: 1.

    Returns:
        Tensor: a new tensor of the broadcast shape.

    Example::

        >>> x = flow.tensor([1.0, 2.0, 3.0])
        >>> flow.add(x, 10)
        tensor([11., 12., 13.])
        >>> x.add(flow.ones(3), alpha=2)
        tensor([3., 4., 5.])
    """)

add_inplace_docs("add_")
