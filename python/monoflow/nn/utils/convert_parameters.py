"""parameters_to_vector / vector_to_parameters."""
from monoflow import _C

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """One 1-D tensor of every parameter, flattened and concatenated."""
    from monoflow.ops_shape import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive slices of `vec` into the parameters' data."""
    if not isinstance(vec, _C.TensorBase):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
