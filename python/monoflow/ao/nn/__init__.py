"""monoflow.ao.nn: torch.ao.nn's quantized modules that run in float (see monoflow.nn.quantized)."""
from monoflow.ao.nn import quantized  # noqa: F401
