"""monoflow.ao.quantization: the QuantStub / DeQuantStub marker modules that quantization-ready models hold.

Before a model is converted they pass their input through unchanged (as in
torch); monoflow has no quantized tensors, so nothing converts them and a
quantizable model (torchvision's ``quantize=False`` models) runs in float."""
from monoflow.nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub"]


class _Stub(Module):
    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class QuantStub(_Stub):
    """Marks where a quantized model would quantize its input; it returns the input unchanged.

    Args:
        qconfig (optional): the quantization configuration, kept as ``self.qconfig``.

    Example::

        >>> stub = flow.ao.quantization.QuantStub()
        >>> stub(flow.tensor([1.5]))
        tensor([1.5000])
    """


class DeQuantStub(_Stub):
    """Marks where a quantized model would dequantize its output; it returns the input unchanged.

    Args:
        qconfig (optional): the quantization configuration, kept as ``self.qconfig``.

    Example::

        >>> stub = flow.ao.quantization.DeQuantStub()
        >>> stub(flow.tensor([1.5]))
        tensor([1.5000])
    """
