"""OneFlow's ``depend``: a control dependency, for nn.Graph programs written for OneFlow."""
from monoflow import _C

__all__ = ["depend"]


def depend(input, depend):
    """Returns ``input`` after ``depend`` (a tensor or a list of tensors): OneFlow's control
    dependency, which keeps its graph compiler from running the op that makes ``input``'s users
    before ``depend``'s. monoflow's plans order ops by the memory they share, so the dependency adds
    nothing to run: ``input`` is returned as it is.

    Args:
        input (Tensor): the tensor passed on.
        depend (Tensor or list of Tensor): what OneFlow would run first.

    Example::

        >>> x, y = flow.ones(2), flow.zeros(2)
        >>> flow.nn.functional.depend(x, y) is x
        True
    """
    for t in depend if isinstance(depend, (list, tuple)) else (depend,):
        if not isinstance(t, _C.TensorBase):
            raise TypeError(f"depend(): argument 'depend' must be a Tensor or a list of Tensors, not "
                            f"{type(t).__name__}")
    if not isinstance(input, _C.TensorBase):
        raise TypeError(f"depend(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input
