"""monoflow.ao: torch.ao's quantization stubs and float FloatFunctional (see monoflow.ao.quantization,
monoflow.nn.quantized)."""
from monoflow.ao import nn, quantization  # noqa: F401
