"""torch._utils / oneflow._utils helpers that libraries import directly: flattening a list of
dense tensors into one buffer and back (used by DDP-style gradient bucketing)."""

from monoflow import ops_shape

__all__ = ["_flatten_dense_tensors", "_unflatten_dense_tensors"]


def _flatten_dense_tensors(tensors):
    """Concatenates the tensors, each flattened, into one 1-D tensor (``torch._utils._flatten_dense_tensors``).

    Args:
        tensors (sequence of Tensor): dense tensors of one dtype.

    Example::

        >>> import monoflow as flow
        >>> from monoflow._utils import _flatten_dense_tensors
        >>> _flatten_dense_tensors([flow.ones(2, 2), flow.zeros(3)])
        tensor([1., 1., 1., 1., 0., 0., 0.])
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("_flatten_dense_tensors(): expected a non-empty sequence of tensors")
    return ops_shape.cat([t.contiguous().view(-1) for t in tensors], 0)


def _unflatten_dense_tensors(flat, tensors):
    """Splits ``flat`` back into views shaped like ``tensors`` (``torch._utils._unflatten_dense_tensors``).

    Args:
        flat (Tensor): a buffer as ``_flatten_dense_tensors`` made (elements past the tensors' total are
            ignored, as torch).
        tensors (sequence of Tensor): the tensors whose shapes (in order) the pieces take.

    Returns:
        tuple of Tensor: one view of ``flat`` per tensor.

    Example::

        >>> import monoflow as flow
        >>> from monoflow._utils import _unflatten_dense_tensors
        >>> [t.shape for t in _unflatten_dense_tensors(flow.arange(7.0), [flow.ones(2, 2), flow.zeros(3)])]
        [monoflow.Size([2, 2]), monoflow.Size([3])]
    """
    flat = flat.reshape(-1)
    outputs, offset = [], 0
    for t in tensors:
        n = t.numel()
        outputs.append(flat.narrow(0, offset, n).view_as(t))
        offset += n
    return tuple(outputs)
