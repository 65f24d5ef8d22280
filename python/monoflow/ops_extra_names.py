"""Names OneFlow (and torch) give to ops monoflow already has: ``argwhere``,
``as_strided``, ``cast``, ``gather_nd``, ``in_top_k``, ``new_ones``, the
activations ``mish``/``softsign``/``quick_gelu`` at the top level, and the
matching Tensor methods. Each is a thin composition of existing ops, so values,
gradients and errors are those ops'."""
from monoflow import _C

__all__ = ["argwhere", "as_strided", "cast", "gather_nd", "in_top_k", "mish", "new_ones", "quick_gelu", "softsign"]


def _F():
    from monoflow.nn import functional  # the functional layer sits above the Tensor class
    return functional


def argwhere(input):
    """The indices of the nonzero elements, one row per element (torch.argwhere).

    Args:
        input (Tensor): any tensor.

    Returns:
        Tensor: int64, shape ``(number of nonzeros, input.dim())``.

    Example::

        >>> import monoflow as flow
        >>> flow.argwhere(flow.tensor([[0, 1], [2, 0]]))
        tensor([[0, 1],
                [1, 0]])
    """
    return _C.check_tensor(input, "argwhere", "input").nonzero()


def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s storage with the given sizes and strides (torch.as_strided).

    Args:
        input (Tensor): whose storage the view reads.
        size (sequence of int): the view's shape.
        stride (sequence of int): elements between neighbours along each dim.
        storage_offset (int, optional): the first element (default: `input`'s own offset).

    Example::

        >>> import monoflow as flow
        >>> flow.as_strided(flow.arange(6.0), (2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """
    return _C.check_tensor(input, "as_strided", "input").as_strided(size, stride, storage_offset)


def cast(input, dtype):
    """OneFlow's ``oneflow.cast``: `input` converted to `dtype` (``input.to(dtype)``).

    Args:
        input (Tensor): the tensor to convert.
        dtype (monoflow.dtype): the element type of the result.

    Example::

        >>> import monoflow as flow
        >>> flow.cast(flow.tensor([1.7, -1.2]), flow.int32)
        tensor([ 1, -1], dtype=monoflow.int32)
    """
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"cast(): argument 'dtype' must be monoflow.dtype, not {type(dtype).__name__}")
    return _C.check_tensor(input, "cast", "input").to(dtype)


def gather_nd(params, indices):
    """OneFlow's ``oneflow.gather_nd``: the slices of `params` at the index tuples in `indices`' last dim.

    Args:
        params (Tensor): the source, ``(d0, ..., dn)``.
        indices (Tensor): integer, ``(..., k)`` with k <= params.dim(); each row indexes the first k dims.

    Returns:
        Tensor: ``indices.shape[:-1] + params.shape[k:]``, differentiable in `params`.

    Example::

        >>> import monoflow as flow
        >>> flow.gather_nd(flow.tensor([[1, 2], [3, 4]]), flow.tensor([[1, 0], [0, 1]]))
        tensor([3, 2])
    """
    params = _C.check_tensor(params, "gather_nd", "params")
    indices = _C.check_tensor(indices, "gather_nd", "indices")
    if indices.dtype.is_floating_point or indices.dim() == 0:
        raise TypeError("gather_nd(): argument 'indices' must be an integer tensor with at least 1 dim")
    k = indices.shape[-1]
    if k > params.dim():
        raise IndexError(f"gather_nd(): indices.shape[-1] ({k}) exceeds params.dim() ({params.dim()})")
    return params[tuple(indices[..., i] for i in range(k))]


def in_top_k(targets, predictions, k):
    """OneFlow's ``oneflow.in_top_k``: whether each target class is among the row's `k` largest predictions.

    Args:
        targets (Tensor): integer, ``(N,)``, a class per row.
        predictions (Tensor): ``(N, C)`` scores.
        k (int): how many of the top scores count.

    Returns:
        Tensor: bool, ``(N,)``.

    Example::

        >>> import monoflow as flow
        >>> flow.in_top_k(flow.tensor([2, 0]), flow.tensor([[0.1, 0.2, 0.7], [0.5, 0.3, 0.2]]), 1)
        tensor([True, True])
    """
    targets = _C.check_tensor(targets, "in_top_k", "targets")
    predictions = _C.check_tensor(predictions, "in_top_k", "predictions")
    if predictions.dim() != 2 or targets.dim() != 1 or targets.shape[0] != predictions.shape[0]:
        raise ValueError(f"in_top_k(): expected targets (N,) and predictions (N, C), got "
                         f"{list(targets.shape)} and {list(predictions.shape)}")
    top = predictions.topk(min(int(k), predictions.shape[1]), dim=1).indices
    return (top == targets.reshape(-1, 1)).any(dim=1)


def new_ones(x, size=None, dtype=None, device=None, requires_grad=False):
    """OneFlow's ``oneflow.new_ones``: ones of `size` with `x`'s dtype and device unless given.

    Args:
        x (Tensor): the tensor whose dtype and device are the defaults.
        size (int or sequence of int, optional): the shape (default: `x`'s).
        dtype, device: override `x`'s.
        requires_grad (bool): whether autograd records operations on the result.

    Example::

        >>> import monoflow as flow
        >>> flow.new_ones(flow.zeros(2, dtype=flow.int32), (3,))
        tensor([1, 1, 1], dtype=monoflow.int32)
    """
    x = _C.check_tensor(x, "new_ones", "x")
    return x.new_ones(tuple(x.shape) if size is None else size, dtype=dtype, device=device,
                      requires_grad=requires_grad)


def mish(input):
    """``input * tanh(softplus(input))`` (``nn.functional.mish``).

    Example::

        >>> import monoflow as flow
        >>> flow.mish(flow.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8651])
    """
    return _F().mish(input)


def softsign(input):
    """``input / (1 + |input|)`` (``nn.functional.softsign``).

    Example::

        >>> import monoflow as flow
        >>> flow.softsign(flow.tensor([1.0, -3.0]))
        tensor([ 0.5000, -0.7500])
    """
    return _F().softsign(input)


def quick_gelu(input):
    """OneFlow's ``oneflow.quick_gelu``: ``input * sigmoid(1.702 * input)``, GELU's fast approximation.

    Example::

        >>> import monoflow as flow
        >>> flow.quick_gelu(flow.tensor([0.0, 1.0]))
        tensor([0.0000, 0.8458])
    """
    input = _C.check_tensor(input, "quick_gelu", "input")
    return input * (input * 1.702).sigmoid()


class TensorMethods:
    """Mixed into monoflow.Tensor."""

    def argwhere(self):
        """Tensor.argwhere() -> Tensor: ``monoflow.argwhere`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0, 3]).argwhere()
            tensor([[1]])
        """
        return argwhere(self)

    def cast(self, dtype):
        """Tensor.cast(dtype) -> Tensor: ``monoflow.cast`` of this tensor (OneFlow's name).

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.5]).cast(flow.int64)
            tensor([1])
        """
        return cast(self, dtype)

    def mish(self):
        """Tensor.mish() -> Tensor: ``nn.functional.mish`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).mish()
            tensor([0.8651])
        """
        return _F().mish(self)

    def softsign(self):
        """Tensor.softsign() -> Tensor: ``nn.functional.softsign`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).softsign()
            tensor([0.5000])
        """
        return _F().softsign(self)

    def selu(self):
        """Tensor.selu() -> Tensor: ``nn.functional.selu`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).selu()
            tensor([1.0507])
        """
        return _F().selu(self)

    def silu(self):
        """Tensor.silu() -> Tensor: ``nn.functional.silu`` of this tensor.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([1.0]).silu()
            tensor([0.7311])
        """
        return _F().silu(self)

    def softplus(self, beta=1.0, threshold=20.0):
        """Tensor.softplus(beta=1.0, threshold=20.0) -> Tensor: ``nn.functional.softplus`` of this tensor.

        Args:
            beta (float): the sharpness.
            threshold (float): above ``beta * x`` the identity is returned.

        Example::

            >>> import monoflow as flow
            >>> flow.tensor([0.0]).softplus()
            tensor([0.6931])
        """
        return _F().softplus(self, beta, threshold)
