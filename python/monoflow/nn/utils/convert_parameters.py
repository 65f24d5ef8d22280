"""parameters_to_vector / vector_to_parameters."""
from monoflow import _C

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """Flattens and concatenates the parameters into one 1-d tensor.

    Args:
        parameters (iterable of Tensor): the parameters.

    Example::

        >>> m = nn.Linear(3, 2)
        >>> nn.utils.parameters_to_vector(m.parameters()).shape
        monoflow.Size([8])
    """
    from monoflow.ops_shape import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of ``vec`` into the parameters' data (the inverse of
    :func:`parameters_to_vector`). A ``vec`` that is not a tensor raises ``TypeError``.

    Args:
        vec (Tensor): a 1-d tensor with as many elements as the parameters together.
        parameters (iterable of Tensor): the parameters to overwrite.

    Example::

        >>> m = nn.Linear(3, 2)
        >>> nn.utils.vector_to_parameters(flow.zeros(8), m.parameters())
        >>> m.bias
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """
    if not isinstance(vec, _C.TensorBase):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
