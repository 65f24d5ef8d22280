"""torch.onnx.symbolic_helper's ``parse_args``, which symbolic functions are decorated with when they are defined.

monoflow's exporter does not run symbolic functions (see _custom_symbolics),
so the decorator leaves the function as it is."""

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    """``@parse_args("v", "i", ...)``: returns the symbolic function unchanged (it is never called by monoflow's
    exporter).

    Args:
        *arg_descriptors (str): torch's per-argument descriptors ("v", "i", "f", "b", "is", "none").

    Example::

        >>> from monoflow.onnx.symbolic_helper import parse_args
        >>> parse_args("v")(abs)(-1)
        1
    """
    return lambda fn: fn
