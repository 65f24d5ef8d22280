"""monoflow.onnx: the import that scripts written for torch make at module level
(pytorch/examples word_language_model: ``import torch.onnx``, export only on a flag).

monoflow does not write ONNX files: :func:`export` raises ``NotImplementedError``
naming the alternatives, and :func:`is_in_onnx_export` answers False (code that
branches on it takes its ordinary path)."""

__all__ = ["export", "is_in_onnx_export", "OnnxExporterError"]


class OnnxExporterError(RuntimeError):
    """Raised by a failing export (the name torch.onnx exposes)."""


def is_in_onnx_export():
    """False: monoflow never traces a model for ONNX export."""
    return False


def export(model, args=(), f=None, *unused_args, **unused_kwargs):
    """Not implemented: monoflow has no ONNX exporter.

    Save the model with ``monoflow.save(model.state_dict(), path)`` (readable by
    ``torch.load``) and export from PyTorch, or use OneFlow's ``oneflow_onnx``."""
    raise NotImplementedError(
        "monoflow.onnx.export(): ONNX export is not implemented in monoflow; save the weights with "
        "monoflow.save(model.state_dict(), path) (torch.load reads the file) and export from PyTorch")
