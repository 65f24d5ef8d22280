"""torch.onnx's registry of TorchScript symbolic functions for custom operators.

monoflow's exporter records monoflow calls and converts them with its own
converters; it does not run TorchScript symbolic functions (``fn(g, *values)``
building nodes with ``g.op``). A library that registers symbolics when it is
imported (torchvision does, for its nms/roi_align/roi_pool) still loads:
the registration is kept and can be removed, and exporting a model that calls
such an operator raises OnnxExporterError as for any call without a converter."""
import re

from ._errors import OnnxExporterError

_symbolics = {}  # ("ns::name", opset) -> symbolic function


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """Keeps ``symbolic_fn`` as the ONNX symbolic of the custom operator ``symbolic_name`` ("ns::name") for
    ``opset_version``; monoflow's exporter does not call it (see the module's note).

    Args:
        symbolic_name (str): ``"namespace::name"``.
        symbolic_fn (callable): ``fn(g, *inputs)``.
        opset_version (int): the opset it is registered for.

    Raises:
        OnnxExporterError: when ``symbolic_name`` is not ``domain::name`` (as torch).

    Example::

        >>> flow.onnx.register_custom_op_symbolic("doc_ns::op", lambda g, x: x, 11)
        >>> flow.onnx.unregister_custom_op_symbolic("doc_ns::op", 11)
    """
    if not isinstance(symbolic_name, str) or not re.match(r"^[a-zA-Z0-9-_]+::[a-zA-Z-_]+[a-zA-Z0-9-_]*$",
                                                          symbolic_name):
        raise OnnxExporterError(f"register_custom_op_symbolic(): Failed to register operator {symbolic_name}. The "
                                "symbolic name must match the format domain::name, and should start with a letter "
                                "and contain only alphanumeric characters")
    if not callable(symbolic_fn):
        raise TypeError(f"register_custom_op_symbolic(): symbolic_fn must be callable, got {type(symbolic_fn).__name__}")
    _symbolics[(symbolic_name, int(opset_version))] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    """Removes the symbolic :func:`register_custom_op_symbolic` kept (nothing when there is none).

    Args:
        symbolic_name (str): ``"namespace::name"``.
        opset_version (int): the opset it was registered for.

    Example::

        >>> flow.onnx.unregister_custom_op_symbolic("doc_ns::absent", 11)
    """
    _symbolics.pop((symbolic_name, int(opset_version)), None)
