"""monoflow.ao.nn.quantized: torch.ao.nn.quantized.FloatFunctional, the same class as monoflow.nn.quantized's."""
from monoflow.nn.quantized import FloatFunctional  # noqa: F401

__all__ = ["FloatFunctional"]
