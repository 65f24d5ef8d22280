"""Flatten and Unflatten."""
from monoflow.nn.module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens the dims ``start_dim`` to ``end_dim`` into one (by default all but the batch dim).

    Args:
        start_dim (int): the first dim to flatten. Default: ``1``.
        end_dim (int): the last dim to flatten. Default: ``-1``.

    Shape:
        - Input: ``(*, S_start, ..., S_end, *)``.
        - Output: ``(*, S_start * ... * S_end, *)``.

    Example::

        >>> nn.Flatten()(flow.randn(32, 1, 5, 5)).shape
        monoflow.Size([32, 25])
        >>> nn.Flatten(0, 2)(flow.randn(32, 1, 5, 5)).shape
        monoflow.Size([160, 5])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into the shape ``unflattened_size`` (the inverse of :class:`Flatten`).

    Args:
        dim (int): the dim to split (named dims are not supported: a str raises ``TypeError``).
        unflattened_size (tuple or list of int): the new shape; its product must be the size of ``dim``.

    Shape:
        - Input: ``(*, S_dim, *)``.
        - Output: ``(*, U_1, ..., U_n, *)``.

    Example::

        >>> nn.Unflatten(1, (2, 5, 5))(flow.randn(2, 50)).shape
        monoflow.Size([2, 2, 5, 5])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise TypeError("Unflatten: named dimensions are not supported")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be tuple of ints, but found type {type(unflattened_size).__name__}")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        d = self.dim + input.dim() if self.dim < 0 else self.dim
        shape = list(input.shape[:d]) + list(self.unflattened_size) + list(input.shape[d + 1:])
        return input.reshape(shape)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
